/**
 * The official MCP TypeScript SDK v2 client (`@modelcontextprotocol/client`, pinned in
 * peers/package.json; MCP Inspector 2.x is built on it) as a command-line application uses it:
 * `Client` over `StreamableHTTPClientTransport` with an `OAuthClientProvider` whose browser is
 * Chromium, the authorization response arriving on a loopback redirect URI (RFC 8252 §7.3).
 * Unlike 1.x, v2 is strict by itself: it checks the metadata's issuer (RFC 8414 §3.3) and the
 * response's `iss` (RFC 9207, in `finishAuth(callbackParams)`); the application checks `state`.
 */
import { MemoryOAuthClient } from '@gatehouse/support'
import {
  Client,
  type OAuthDiscoveryState,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client'
import type { Browser } from 'playwright-core'
import { type PeerOutcome, recordingFetch, resultText } from './outcome.js'
import { browserAuthorization, type SdkClientOptions } from './sdk-v1.js'
import { type LoopbackCallback, startLoopbackCallback } from './sign-in.js'

/**
 * The test kit's in-memory provider whose "browser" is Chromium. It checks `state`, which the SDK
 * leaves to the application (RFC 6749 §10.12); SDK v2 checks `iss` itself in `finishAuth`.
 */
function browserProvider(callback: LoopbackCallback, browser: Browser, user: string) {
  return new MemoryOAuthClient<OAuthDiscoveryState>({
    redirectUrl: callback.redirectUri,
    clientName: 'MCP SDK v2 client (gatehouse peers)',
    authorize: (url) => browserAuthorization(browser, callback, url, user),
    sdkChecksResponse: true,
  })
}

/**
 * Runs the SDK v2 client against `mcpUrl` as `user`: connect (signing in when the gateway
 * answers 401), `tools/list`, and `tools/call echo` when listed. Never throws for the client's own
 * failures: they are the outcome's `error` (e.g. the SDK's issuer checks).
 */
export async function runSdkV2Client(options: SdkClientOptions): Promise<PeerOutcome> {
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
      client = new Client({ name: 'gatehouse-peers-sdk-v2', version: '0.1.0' })
      try {
        await client.connect(transport)
        break
      } catch (err) {
        const params = provider.callbackParams
        if (!(err instanceof UnauthorizedError) || !params) throw err
        if (provider.authorizations > maxAuthorizations) throw err
        provider.callbackParams = undefined
        // v2 checks iss against the recorded issuer before redeeming the code (RFC 9207).
        await transport.finishAuth(params)
      }
    }
    const tools = (await client.listTools()).tools.map((t) => t.name)
    if (!tools.includes('echo')) return outcome({ tools })
    const echo = resultText(
      await client.callTool({ name: 'echo', arguments: { text: 'hello from the SDK v2 client' } }),
    )
    return outcome({ tools, echo })
  } catch (err) {
    return outcome({ error: `${(err as Error).name}: ${(err as Error).message}` })
  } finally {
    await client?.close().catch(() => undefined)
    await callback.close()
  }
}
