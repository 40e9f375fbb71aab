/**
 * The MCP SDK 1.x client's whole sign-in as the e2e tests drive it: connect (the gateway answers
 * 401), play the user's browser from the authorization URL to the redirect back, check the
 * response and redeem its code (the test kit's MemoryOAuthClient), then connect with the tokens.
 * The statuses of the gateway's `/mcp` answers are recorded as the client saw them.
 */
import type { MemoryOAuthClient } from '@gatehouse/support'
import {
  type OAuthDiscoveryState,
  UnauthorizedError,
} from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { expect } from 'vitest'

/** The provider the SDK 1.x client is given. */
export type SdkProvider = MemoryOAuthClient<OAuthDiscoveryState>

/** A fetch that pushes the status of every `/mcp` answer onto `statuses`. */
export function recordingFetch(statuses: number[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init)
    const url = new URL(input instanceof Request ? input.url : String(input))
    if (url.pathname === '/mcp') statuses.push(res.status)
    return res
  }
}

/** Options of {@link sdkSignIn}. */
export interface SdkSignInOptions {
  mcpUrl: URL
  provider: SdkProvider
  /** Plays the user's browser: from the authorization URL to the redirect back to the client. */
  browser: (authorizationUrl: URL) => Promise<URL>
  /** Where the `/mcp` statuses go. */
  statuses: number[]
  /** `clientInfo.name` of the SDK client. */
  clientName: string
}

/**
 * Signs in and connects; returns the connected client and `connect` for another one with the same
 * provider (or throws what connecting threw, e.g. for a user the gateway refuses).
 */
export async function sdkSignIn(
  o: SdkSignInOptions,
): Promise<{ client: Client; connect: () => Promise<Client> }> {
  const fetch = recordingFetch(o.statuses)
  const transport = () =>
    new StreamableHTTPClientTransport(o.mcpUrl, { authProvider: o.provider, fetch })
  const first = new Client({ name: o.clientName, version: '0.0.0' })
  const signingIn = transport()
  await expect(first.connect(signingIn)).rejects.toBeInstanceOf(UnauthorizedError)
  if (!o.provider.authorizationUrl) throw new Error('the SDK did not start authorization')
  o.provider.acceptResponse(await o.browser(o.provider.authorizationUrl))
  await signingIn.finishAuth(o.provider.code as string)
  const connect = async () => {
    const client = new Client({ name: o.clientName, version: '0.0.0' })
    await client.connect(transport())
    return client
  }
  return { client: await connect(), connect }
}
