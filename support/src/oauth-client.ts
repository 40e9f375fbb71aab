/**
 * The one in-memory OAuth client provider of Gatehouse's tests, peers and example clients: what a
 * command-line MCP client keeps between the authorization request and its response (client
 * registration, tokens, PKCE verifier, `state`, the authorization server's metadata), in the shape
 * of the MCP SDK's `OAuthClientProvider` (1.x `@modelcontextprotocol/sdk` and v2
 * `@modelcontextprotocol/client` alike; it imports neither, so it fits both by shape).
 *
 * The SDK leaves the sign-in and checking the authorization response to the application; here
 * `authorize` plays the browser and {@link MemoryOAuthClient.redirectToAuthorization} checks what
 * comes back as an application should: `state` (RFC 6749 §10.12), `iss` (RFC 9207 §2.4) and
 * `error` (RFC 6749 §4.1.2.1) before the code is redeemed, and, with `strictIssuer`, the
 * authorization-server metadata's `issuer` (RFC 8414 §3.3), which SDK 1.x does not check.
 */
import { randomBytes } from 'node:crypto'

/** A registered client, as the SDK stores it (RFC 7591 §3.2.1). */
export interface ClientInformation {
  client_id: string
  client_secret?: string
  [field: string]: unknown
}

/** Tokens of a token response (RFC 6749 §5.1), as the SDK stores them. */
export interface TokenSet {
  access_token: string
  token_type: string
  refresh_token?: string
  expires_in?: number
  scope?: string
  id_token?: string
}

/** What the SDK saves of discovery (`OAuthDiscoveryState`), as far as this provider reads it. */
export interface DiscoveryState {
  authorizationServerUrl: string
  authorizationServerMetadata?: unknown
}

/** Options of {@link MemoryOAuthClient}. */
export interface MemoryOAuthClientOptions {
  /** The redirect URI registered and sent (a loopback URI for a native app, RFC 8252 §7.3). */
  redirectUrl: string
  /** `client_name` of the registration. */
  clientName: string
  /**
   * The client's metadata document URL (MCP 2025-11-25, Client ID Metadata Documents); the SDK
   * uses it only where the server advertises `client_id_metadata_document_supported`. Default none.
   */
  clientMetadataUrl?: string
  /** A client registered beforehand (no registration then). Default none. */
  preRegistered?: ClientInformation
  /**
   * Plays the browser: given the authorization URL, returns the authorization response (the URL
   * the user agent was redirected back to), or `undefined` to only record the URL (the caller
   * completes the flow itself). Default: record only.
   */
  authorize?: (url: URL) => Promise<URL | undefined> | URL | undefined
  /**
   * Refuse authorization-server metadata whose `issuer` is not the identifier its URL was built
   * from (RFC 8414 §3.3). Default false (SDK v2 checks it itself).
   */
  strictIssuer?: boolean
  /**
   * Leave `iss` and `error` to the SDK, checking only `state`: SDK v2 checks both itself in
   * `finishAuth(callbackParams)`. Default false (SDK 1.x leaves them to the application).
   */
  sdkChecksResponse?: boolean
}

/**
 * RFC 8414 §3.3's comparison: identical — except that an issuer without a path equals itself with
 * the empty path written "/" (RFC 3986 §6.2.3), as the SDK writes a 2025-03-26 server's origin.
 */
export function sameIssuer(issuer: unknown, derived: string): boolean {
  if (issuer === derived) return true
  if (typeof issuer !== 'string' || !URL.canParse(issuer)) return false
  const a = new URL(issuer)
  return a.pathname === '/' && !a.search && `${a.origin}/` === derived
}

/**
 * The pre-registered client of the official MCP conformance suite's `auth/pre-registration`
 * scenario: `MCP_CONFORMANCE_CONTEXT` (JSON) names its `client_id` (and `client_secret`) when
 * `MCP_CONFORMANCE_SCENARIO` is that scenario; `undefined` for any other scenario.
 * @throws when the scenario is `auth/pre-registration` but the context names no client.
 */
export function preRegisteredFromEnvironment(
  redirectUrl: string,
  env: NodeJS.ProcessEnv = process.env,
): ClientInformation | undefined {
  if (env.MCP_CONFORMANCE_SCENARIO !== 'auth/pre-registration') return undefined
  const ctx = JSON.parse(env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, string>
  if (!ctx.client_id) throw new Error('MCP_CONFORMANCE_CONTEXT names no client_id')
  return {
    client_id: ctx.client_id,
    ...(ctx.client_secret ? { client_secret: ctx.client_secret } : {}),
    redirect_uris: [redirectUrl],
  }
}

/**
 * A headless "browser" for {@link MemoryOAuthClientOptions.authorize}: one GET of the
 * authorization URL, whose redirect is the authorization response. Works only against an IdP that
 * signs a test user in without a page (mock-idp's `autoSignIn`, the official suite's fixtures).
 */
export async function followAuthorizationRedirect(url: URL): Promise<URL> {
  const res = await fetch(url, { redirect: 'manual' })
  const location = res.headers.get('location')
  if (!location) throw new Error(`the authorization server did not redirect (HTTP ${res.status})`)
  return new URL(location, url)
}

/**
 * An OAuth client provider that keeps everything in memory; see the module's comment.
 * @typeParam Discovery - the SDK's `OAuthDiscoveryState`, so that `discoveryState()` returns
 * what the SDK saved, typed as it expects.
 */
export class MemoryOAuthClient<Discovery extends DiscoveryState = DiscoveryState> {
  readonly #options: MemoryOAuthClientOptions
  #info: ClientInformation | undefined
  #tokens: TokenSet | undefined
  #verifier = ''
  #state = ''
  #discovery: Discovery | undefined
  #issuer: string | undefined
  #issParameterSupported = false
  /** The client metadata document URL, when one was given. */
  readonly clientMetadataUrl: string | undefined
  /** The last authorization URL the SDK asked to open. */
  authorizationUrl: URL | undefined
  /** How many authorization flows the SDK started (first sign-in plus step-ups). */
  authorizations = 0
  /** The last authorization response, once its checks passed (SDK v2's `finishAuth` takes it). */
  callbackParams: URLSearchParams | undefined
  /** Its code (SDK 1.x's `finishAuth` takes it). */
  code: string | undefined

  constructor(options: MemoryOAuthClientOptions) {
    this.#options = options
    this.#info = options.preRegistered
    this.clientMetadataUrl = options.clientMetadataUrl
  }

  get redirectUrl(): string {
    return this.#options.redirectUrl
  }

  get clientMetadata() {
    return {
      client_name: this.#options.clientName,
      redirect_uris: [this.#options.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }

  /** A fresh `state` per authorization request (RFC 6749 §10.12). */
  state(): string {
    this.#state = randomBytes(32).toString('base64url')
    return this.#state
  }

  clientInformation(): ClientInformation | undefined {
    return this.#info
  }

  saveClientInformation(info: ClientInformation): void {
    this.#info = info
  }

  tokens(): TokenSet | undefined {
    return this.#tokens
  }

  saveTokens(tokens: TokenSet): void {
    this.#tokens = tokens
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier
  }

  codeVerifier(): string {
    return this.#verifier
  }

  /**
   * Kept so the SDK can bind the callback to the authorization server it started with; the
   * metadata's `issuer` is what the response's `iss` must equal.
   * @throws when `strictIssuer` and the metadata's issuer is not the one its URL was built from.
   */
  saveDiscoveryState(state: Discovery): void {
    const metadata = state.authorizationServerMetadata as Record<string, unknown> | undefined
    if (
      this.#options.strictIssuer &&
      metadata &&
      !sameIssuer(metadata.issuer, state.authorizationServerUrl)
    ) {
      throw new Error(
        `authorization-server metadata refused: issuer ${String(metadata.issuer)} is not ${state.authorizationServerUrl} (RFC 8414 §3.3)`,
      )
    }
    this.#discovery = state
    this.#issuer = typeof metadata?.issuer === 'string' ? metadata.issuer : undefined
    this.#issParameterSupported = metadata?.authorization_response_iss_parameter_supported === true
  }

  discoveryState(): Discovery | undefined {
    return this.#discovery
  }

  /** Records the URL, and with `authorize`, follows it and checks the response. */
  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrl = url
    this.callbackParams = undefined
    this.code = undefined
    this.authorizations++
    const back = await this.#options.authorize?.(url)
    if (back) this.acceptResponse(back)
  }

  /**
   * Checks an authorization response (the redirect back) and keeps it as {@link callbackParams}
   * and {@link code}.
   * @throws when its `state` is not the one sent; unless `sdkChecksResponse`, also when its `iss`
   * is not the issuer (RFC 9207: checked when present, or when the metadata says the server sends
   * it), when it carries an `error`, or no `code`.
   */
  acceptResponse(back: URL): void {
    const params = back.searchParams
    if (params.get('state') !== this.#state) {
      throw new Error(
        'authorization response refused: its state is not the one sent (RFC 6749 §10.12)',
      )
    }
    if (this.#options.sdkChecksResponse) {
      this.callbackParams = params
      return
    }
    const iss = params.get('iss')
    if ((iss !== null || this.#issParameterSupported) && iss !== this.#issuer) {
      throw new Error(
        `authorization response refused: iss ${iss} is not the issuer ${this.#issuer} (RFC 9207)`,
      )
    }
    const error = params.get('error')
    if (error) {
      throw new Error(`authorization refused: ${error} ${params.get('error_description') ?? ''}`)
    }
    const code = params.get('code')
    if (!code) throw new Error('the authorization response carries no code')
    this.callbackParams = params
    this.code = code
  }
}
