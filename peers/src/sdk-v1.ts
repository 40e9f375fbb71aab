/**
 * The official MCP TypeScript SDK 1.x client (`@modelcontextprotocol/sdk`, pinned in
 * peers/package.json) as a command-line application uses it: `Client` over
 * `StreamableHTTPClientTransport` with an `OAuthClientProvider` that opens the authorization URL
 * in a browser (here Chromium, where {@link completeSignIn} plays the person) and receives the
 * authorization response on a loopback redirect URI (RFC 8252 §7.3). The SDK 1.x leaves checking
 * the response's `state` (RFC 6749 §10.12) and `iss` (RFC 9207) to the application; this one
 * checks both, as an application should.
 */
import { MemoryOAuthClient } from '@gatehouse/support'
import {
  type OAuthDiscoveryState,
  UnauthorizedError,
} from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Browser } from 'playwright-core'
import { type PeerOutcome, recordingFetch, resultText } from './outcome.js'
import { completeSignIn, type LoopbackCallback, startLoopbackCallback } from './sign-in.js'

/** Options of the SDK client drivers. */
export interface SdkClientOptions {
  /** The gateway's MCP endpoint. */
  mcpUrl: string
  /** The mock-idp user who signs in. */
  user: string
  /** The browser the sign-in runs in. */
  browser: Browser
  /** Authorization flows to allow before giving up (first sign-in plus step-ups); default 3. */
  maxAuthorizations?: number
}

/** The browser half of a native app's sign-in: the authorization URL in, the response out. */
export async function browserAuthorization(
  browser: Browser,
  callback: LoopbackCallback,
  authorizationUrl: URL,
  user: string,
): Promise<URL> {
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    const arrival = callback.next()
    await page.goto(authorizationUrl.href)
    await completeSignIn(page, {
      user,
      done: (url) => url.href.startsWith(callback.redirectUri),
    })
    return await arrival
  } finally {
    await context.close()
  }
}

/**
 * The test kit's in-memory provider whose "browser" is Chromium; it checks the response's `state`,
 * `iss` and `error`, which SDK 1.x leaves to the application.
 */
function browserProvider(callback: LoopbackCallback, browser: Browser, user: string) {
  return new MemoryOAuthClient<OAuthDiscoveryState>({
    redirectUrl: callback.redirectUri,
    clientName: 'MCP SDK 1.x client (gatehouse peers)',
    authorize: (url) => browserAuthorization(browser, callback, url, user),
  })
}

/**
 * Runs the SDK 1.x client against `mcpUrl` as `user`: connect (signing in when the gateway
 * answers 401), `tools/list`, and `tools/call echo` when listed. Never throws for the client's own
 * failures: they are the outcome's `error`.
 */
export async function runSdkV1Client(options: SdkClientOptions): Promise<PeerOutcome> {
  const callback = await startLoopbackCallback()
  const provider = browserProvider(callback, options.browser, options.user)
  const mcpStatuses: number[] = []
  const outcome = (rest: Partial<PeerOutcome>): PeerOutcome => ({
    tools: [],
    mcpStatuses,
    authorizations: provider.authorizations,
    ...rest,
  })
  let client: Client | undefined
  try {
    const maxAuthorizations = options.maxAuthorizations ?? 3
    for (;;) {
      const transport = new StreamableHTTPClientTransport(new URL(options.mcpUrl), {
        authProvider: provider,
        fetch: recordingFetch(options.mcpUrl, mcpStatuses),
      })
      client = new Client({ name: 'gatehouse-peers-sdk-v1', version: '0.1.0' })
      try {
        await client.connect(transport)
        break
      } catch (err) {
        const code = provider.code
        if (!(err instanceof UnauthorizedError) || !code) throw err
        if (provider.authorizations > maxAuthorizations) throw err
        provider.code = undefined
        await transport.finishAuth(code)
      }
    }
    const tools = (await client.listTools()).tools.map((t) => t.name)
    if (!tools.includes('echo')) return outcome({ tools })
    const echo = resultText(
      await client.callTool({ name: 'echo', arguments: { text: 'hello from the SDK 1.x client' } }),
    )
    return outcome({ tools, echo })
  } catch (err) {
    return outcome({ error: (err as Error).message })
  } finally {
    await client?.close().catch(() => undefined)
    await callback.close()
  }
}
