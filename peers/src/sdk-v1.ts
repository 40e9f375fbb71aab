/**
 * The official MCP TypeScript SDK 1.x client (`@modelcontextprotocol/sdk`, pinned in
 * peers/package.json) as a command-line application uses it: `Client` over
 * `StreamableHTTPClientTransport` with an `OAuthClientProvider` that opens the authorization URL
 * in a browser (here Chromium, where {@link completeSignIn} plays the person) and receives the
 * authorization response on a loopback redirect URI (RFC 8252 §7.3). The SDK 1.x leaves checking
 * the response's `state` (RFC 6749 §10.12) and `iss` (RFC 9207) to the application; this one
 * checks both, as an application should.
 */
import { randomBytes } from 'node:crypto'
import {
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  UnauthorizedError,
} from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js'
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

/** An in-memory OAuth client provider whose "browser" is Chromium. */
class BrowserProvider implements OAuthClientProvider {
  #info: OAuthClientInformationMixed | undefined
  #tokens: OAuthTokens | undefined
  #verifier = ''
  #state = ''
  #issuer: string | undefined
  #issSupported = false
  /** The code of the last authorization response, once it passed the checks. */
  code: string | undefined
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
      client_name: 'MCP SDK 1.x client (gatehouse peers)',
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
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.#info = info
  }
  tokens() {
    return this.#tokens
  }
  saveTokens(tokens: OAuthTokens) {
    this.#tokens = tokens
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier
  }
  codeVerifier() {
    return this.#verifier
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    const metadata = state.authorizationServerMetadata as Record<string, unknown> | undefined
    this.#issuer = typeof metadata?.issuer === 'string' ? metadata.issuer : undefined
    this.#issSupported = metadata?.authorization_response_iss_parameter_supported === true
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.code = undefined
    this.authorizations++
    const back = await browserAuthorization(this.browser, this.callback, url, this.user)
    if (back.searchParams.get('state') !== this.#state) {
      throw new Error('authorization response refused: its state is not the one sent')
    }
    const iss = back.searchParams.get('iss')
    if ((iss !== null || this.#issSupported) && iss !== this.#issuer) {
      throw new Error(
        `authorization response refused: iss ${iss} is not the issuer ${this.#issuer} (RFC 9207)`,
      )
    }
    const error = back.searchParams.get('error')
    if (error) {
      throw new Error(
        `authorization refused: ${error} ${back.searchParams.get('error_description') ?? ''}`,
      )
    }
    this.code = back.searchParams.get('code') ?? undefined
  }
}

/**
 * Runs the SDK 1.x client against `mcpUrl` as `user`: connect (signing in when the gateway
 * answers 401), `tools/list`, and `tools/call echo` when listed. Never throws for the client's own
 * failures: they are the outcome's `error`.
 */
export async function runSdkV1Client(options: SdkClientOptions): Promise<PeerOutcome> {
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
