/**
 * End to end with real parts only: the official MCP TypeScript SDK client with its OAuth client
 * provider, given only the gateway URL, against gatehouse protecting the real MCP backend with
 * the real OpenID provider (mock-idp on oidc-provider). Seed: "Authentication" 4.
 */

import { authorizeHeadless, controlClient, type MockIdp, startMockIdp } from '@gatehouse/mock-idp'
import { type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { freePort, MemoryOAuthClient } from '@gatehouse/support'
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authConfig } from '../auth/config.js'
import { startTestGatehouse, type TestGatehouse } from '../helpers.js'
import { recordingFetch, type SdkProvider, sdkSignIn } from './sdk-sign-in.js'

let idp: MockIdp
let backend: McpBackend
let gh: TestGatehouse
let mcpUrl: URL

/** The test kit's in-memory provider, as a CLI MCP client keeps it; the test plays the browser. */
const testProvider = () =>
  new MemoryOAuthClient<OAuthDiscoveryState>({
    redirectUrl: 'http://127.0.0.1:33418/callback',
    clientName: 'gatehouse e2e',
  })

/** Statuses of the gateway's `/mcp` answers, as the SDK client received them. */
const mcpStatuses: number[] = []

/** Runs the whole flow for a user; returns the connected client (or throws what connect threw). */
async function signInAndConnect(login: string): Promise<{ client: Client; provider: SdkProvider }> {
  const provider = testProvider()
  const { client } = await sdkSignIn({
    mcpUrl,
    provider,
    // What the user's browser does: sign in at the IdP and come back with a code.
    browser: (url) => authorizeHeadless(url, { loginHint: login }),
    statuses: mcpStatuses,
    clientName: 'e2e',
  })
  return { client, provider }
}

beforeAll(async () => {
  idp = await startMockIdp()
  backend = await startMcpBackend()
  // The resource is the gateway's real address here: the SDK checks it against the URL it uses.
  const port = await freePort()
  gh = await startTestGatehouse(
    {
      ...authConfig({
        idpPort: idp.port,
        backendPort: backend.port,
        issuer: idp.issuer,
        resource: `http://127.0.0.1:${port}/mcp`,
      }),
      gateways: { default: { port, address: '127.0.0.1' } },
    },
    { ephemeralPorts: false },
  )
  mcpUrl = new URL(`${gh.url}/mcp`)
})
afterAll(async () => {
  await gh?.stop('done')
  await backend.stop()
  await idp.stop()
})

describe('MCP SDK client through gatehouse with the bridged IdP', () => {
  it('alice: 401 → metadata → registration (clientId) → PKCE sign-in → token → initialize → tools/call', async () => {
    const { client, provider } = await signInAndConnect('alice')
    expect(provider.clientInformation()?.client_id).toBe('gatehouse-demo-client')
    const authorize = provider.authorizationUrl
    expect(authorize?.origin).toBe(idp.orgUrl)
    expect(authorize?.searchParams.get('audience')).toBe('api://default')
    expect(authorize?.searchParams.get('code_challenge_method')).toBe('S256')
    expect(client.getServerVersion()?.name).toBe('mcp-backend')
    const result = await client.callTool({
      name: 'fetch',
      arguments: { url: `${backend.origin}/healthz` },
    })
    expect(JSON.stringify(result.content)).toContain('status')
    const registrations = await controlClient(idp.controlUrl).registrations()
    expect(registrations).toHaveLength(0) // answered by the gateway, never proxied
    await client.close()
  })

  it('bob: the same flow ends in 403 insufficient_scope at the gateway', async () => {
    mcpStatuses.length = 0
    // The SDK answers a 403 insufficient_scope by asking for authorization again (step-up),
    // which our provider does not complete: connect fails after the gateway said 403.
    await expect(signInAndConnect('bob')).rejects.toThrow()
    expect(mcpStatuses).toEqual([401, 403])
  })

  it('a client-credentials token (no user, no groups) gets 403', async () => {
    const basic = Buffer.from(
      `${idp.serviceClient.clientId}:${idp.serviceClient.clientSecret}`,
    ).toString('base64')
    const res = await fetch(`${idp.issuer}/v1/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${basic}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'openid' }),
    })
    const { access_token } = (await res.json()) as { access_token: string }
    const client = new Client({ name: 'service', version: '0.0.0' })
    const transport = new StreamableHTTPClientTransport(mcpUrl, {
      requestInit: { headers: { authorization: `Bearer ${access_token}` } },
      fetch: recordingFetch(mcpStatuses),
    })
    mcpStatuses.length = 0
    await expect(client.connect(transport)).rejects.toThrow(/insufficient_scope/)
    expect(mcpStatuses).toEqual([403])
  })
})
