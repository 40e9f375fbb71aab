/**
 * The official MCP TypeScript SDK v2 client (`@modelcontextprotocol/client`, pinned in
 * peers/package.json; MCP Inspector 2.x is built on it) as a command-line application uses it:
 * `Client` over `StreamableHTTPClientTransport` with an `OAuthClientProvider` whose browser is
 * Chromium, the authorization response arriving on a loopback redirect URI (RFC 8252 §7.3).
 * Unlike 1.x, v2 is strict by itself: it checks the metadata's issuer (RFC 8414 §3.3) and the
 * response's `iss` (RFC 9207, in `finishAuth(callbackParams)`); the application checks `state`.
 */
import { randomBytes } from 'node:crypto'
import {
  Client,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client'
import type { Browser } from 'playwright-core'
import { type PeerOutcome, recordingFetch, resultText } from './outcome.js'
import { browserAuthorization, type SdkClientOptions } from './sdk-v1.js'
import { type LoopbackCallback, startLoopbackCallback } from './sign-in.js'

/** An in-memory OAuth client provider whose "browser" is Chromium. */
class BrowserProvider implements OAuthClientProvider {
  #info: StoredOAuthClientInformation | undefined
  #tokens: StoredOAuthTokens | undefined
  #verifier = ''
  #state = ''
  #discovery: OAuthDiscoveryState | undefined
  /** The authorization response, once its `state` was checked. */
  callbackParams: URLSearchParams | undefined
  authorizations = 0

  constructor(
    private readonly callback: LoopbackCallback,
    private readonly browser: Browser,
    private readonly user: string,
  ) {}

  get redirectUrl(): string {
    return this.callback.redirectUri
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP SDK v2 client (gatehouse peers)',
      redirect_uris: [this.callback.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }
  state(): string {
    this.#state = randomBytes(32).toString('base64url')
    return this.#state
  }
  clientInformation() {
    return this.#info
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.#info = info
  }
  tokens() {
    return this.#tokens
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.#tokens = tokens
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier
  }
  codeVerifier() {
    return this.#verifier
  }
  // Kept so the SDK can bind the callback to the authorization server it started with.
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.#discovery = state
  }
  discoveryState() {
    return this.#discovery
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.callbackParams = undefined
    this.authorizations++
    const back = await browserAuthorization(this.browser, this.callback, url, this.user)
    // The SDK leaves state to the application (RFC 6749 §10.12).
    if (back.searchParams.get('state') !== this.#state) {
      throw new Error('authorization response refused: its state is not the one sent')
    }
    this.callbackParams = back.searchParams
  }
}

/**
 * Runs the SDK v2 client against `mcpUrl` as `user`: connect (signing in when the gateway
 * answers 401), `tools/list`, and `tools/call echo` when listed. Never throws for the client's own
 * failures: they are the outcome's `error` (e.g. the SDK's issuer checks).
 */
export async function runSdkV2Client(options: SdkClientOptions): Promise<PeerOutcome> {
  const callback = await startLoopbackCallback()
  const provider = new BrowserProvider(callback, options.browser, options.user)
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
