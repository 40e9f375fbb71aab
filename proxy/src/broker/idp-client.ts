/**
 * The gateway as the IdP's client (docs/design/broker.md, "the IdP leg"): the authorization URL it sends the
 * user to, with its own pre-registered client id, its own PKCE (RFC 7636, S256) and state, and the
 * seed's `audience` parameter (the IdP has no RFC 8707); the server-side code exchange and
 * refreshes at the IdP's token endpoint (RFC 6749 §4.1.3, §6); and best-effort revocation
 * (RFC 7009) when a grant is revoked.
 *
 * Token requests go through the JWKS backend's pool (the seed's org-domain backend, with its TLS
 * and timeouts) to the path of the discovered `token_endpoint`, so a gateway that reaches the IdP
 * by another name than the browser does (docker compose) still works, and a slow or absent IdP
 * costs at most the backend's response timeout (10 s at most), never a hang.
 */
import { z } from 'zod'
import type { DiscoveryCache } from '../auth/discovery.js'
import { describeError, requestUpstream } from '../auth/fetch.js'
import type { OriginPools } from '../auth/origin-pools.js'
import type { UpstreamSettings } from '../config/idp-presets.js'
import type { Upstream } from '../http/upstream.js'

/** The gateway's client at the IdP (`mcp.broker.upstreamClient`, resolved). */
export interface UpstreamClient {
  clientId: string
  clientSecret?: string | undefined
  tokenEndpointAuthMethod: 'none' | 'client_secret_basic' | 'client_secret_post'
}

/** Parameters the gateway sets itself; `authorizeParameters` cannot replace them. */
const OWN_PARAMETERS = new Set([
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
])

/** The IdP's token response (RFC 6749 §5.1), read tolerantly. */
const IdpTokenResponseSchema = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string(),
  expires_in: z.number().optional(),
  refresh_token: z.string().min(1).optional(),
  scope: z.string().optional(),
})
/** Tokens the IdP issued. */
export type IdpTokens = z.infer<typeof IdpTokenResponseSchema>

/** The outcome of a token request at the IdP. */
export type IdpTokenResult =
  | { ok: true; tokens: IdpTokens }
  /** The IdP answered with an OAuth error (RFC 6749 §5.2). */
  | { ok: false; unavailable: false; error: string; description: string }
  /** The IdP did not answer usably (down, slow, not JSON, no discovery). */
  | { ok: false; unavailable: true; cause: string }

/** What {@link IdpClient} needs. */
export interface IdpClientOptions {
  /** The IdP's issuer (`providers[0].issuer`). */
  issuer: string
  /** The seed's `audience` parameter: `providers[0].audiences[0]`. */
  audience: string | undefined
  discovery: DiscoveryCache
  /** The JWKS backend (the org domain); without one the endpoints are fetched directly. */
  upstream: Upstream | undefined
  /** Pools to the IdP's hosts, for endpoints fetched at their own URLs (`settings.ownEndpoints`). */
  pools?: OriginPools | undefined
  /** The preset's authorization-request settings with the configured overrides. */
  settings: UpstreamSettings
  client: UpstreamClient
  /** `<issuer>/oauth/callback`: the redirect URI registered for the gateway at the IdP. */
  callbackUrl: string
}

/** The gateway's client towards the IdP. */
export class IdpClient {
  readonly #o: IdpClientOptions

  constructor(options: IdpClientOptions) {
    this.#o = options
  }

  /** The IdP's issuer, for the RFC 9207 `iss` check of its authorization responses. */
  get issuer(): string {
    return this.#o.issuer
  }

  /**
   * Whether the IdP says it sends `iss` in authorization responses (RFC 9207 §3), so that a
   * response without one is refused.
   */
  async sendsIss(): Promise<boolean> {
    const found = await this.#o.discovery.get()
    return found.ok && found.document.authorization_response_iss_parameter_supported === true
  }

  /**
   * The scopes asked of the IdP: the configured ones, plus the IdP scopes `scopeMap` maps the
   * client's to; `offline_access` only when the IdP's discovery lists it in `scopes_supported`
   * (or lists none): Google answers `invalid_scope` to it.
   */
  scopesFor(clientScope: string, supported: readonly string[] | undefined): string[] {
    const s = this.#o.settings
    const mapped = clientScope
      .split(' ')
      .filter(Boolean)
      .flatMap((c) => (s.scopeMap[c] ? [s.scopeMap[c]] : []))
    const all = [...new Set([...s.scopes, ...mapped])]
    if (supported && !supported.includes('offline_access')) {
      return all.filter((x) => x !== 'offline_access')
    }
    return all
  }

  /** The URL the user's browser is sent to, or why there is none (discovery unavailable). */
  async authorizationUrl(
    state: string,
    codeChallenge: string,
    clientScope = '',
  ): Promise<{ ok: true; url: string } | { ok: false; cause: string }> {
    const found = await this.#o.discovery.get()
    if (!found.ok) return { ok: false, cause: `discovery at ${found.url}: ${found.cause}` }
    const endpoint = found.document.authorization_endpoint
    if (!endpoint)
      return { ok: false, cause: 'the discovery document has no authorization_endpoint' }
    const url = new URL(endpoint)
    const p = url.searchParams
    p.set('response_type', 'code')
    p.set('client_id', this.#o.client.clientId)
    p.set('redirect_uri', this.#o.callbackUrl)
    const scopes = this.scopesFor(clientScope, found.document.scopes_supported)
    p.set('scope', scopes.join(' '))
    p.set('state', state)
    p.set('code_challenge', codeChallenge)
    p.set('code_challenge_method', 'S256')
    // OpenID Connect Core §11: a refresh token for offline_access needs prompt=consent.
    if (scopes.includes('offline_access')) p.set('prompt', 'consent')
    // seed: the first audience goes to the provider as `audience` (no RFC 8707); other presets
    // name it otherwise or send none.
    const audienceParameter = this.#o.settings.audienceParameter
    if (this.#o.audience && audienceParameter) p.set(audienceParameter, this.#o.audience)
    for (const [k, v] of Object.entries(this.#o.settings.authorizeParameters)) {
      if (!OWN_PARAMETERS.has(k)) p.set(k, v)
    }
    return { ok: true, url: url.toString() }
  }

  /** RFC 6749 §4.1.3: exchanges the IdP's code (with the gateway's PKCE verifier). */
  exchangeCode(code: string, codeVerifier: string): Promise<IdpTokenResult> {
    return this.#token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: this.#o.callbackUrl,
      code_verifier: codeVerifier,
    })
  }

  /** RFC 6749 §6: a new access token for the IdP's refresh token. */
  refresh(refreshToken: string): Promise<IdpTokenResult> {
    return this.#token({ grant_type: 'refresh_token', refresh_token: refreshToken })
  }

  /** RFC 7009: revokes a token at the IdP when it has a revocation endpoint; never throws. */
  async revoke(token: string, hint: 'refresh_token' | 'access_token'): Promise<boolean> {
    const found = await this.#o.discovery.get()
    const endpoint = found.ok ? found.document.revocation_endpoint : undefined
    if (typeof endpoint !== 'string') return false
    try {
      const res = await this.#post(endpoint, { token, token_type_hint: hint })
      return res.status === 200
    } catch {
      return false
    }
  }

  async #token(params: Record<string, string>): Promise<IdpTokenResult> {
    const found = await this.#o.discovery.get()
    if (!found.ok) {
      return { ok: false, unavailable: true, cause: `discovery at ${found.url}: ${found.cause}` }
    }
    const endpoint = found.document.token_endpoint
    if (!endpoint) {
      return { ok: false, unavailable: true, cause: 'the discovery document has no token_endpoint' }
    }
    let res: { status: number; body: Buffer }
    try {
      res = await this.#post(endpoint, params)
    } catch (err) {
      return { ok: false, unavailable: true, cause: describeError(err) }
    }
    let json: unknown
    try {
      json = JSON.parse(res.body.toString('utf8'))
    } catch {
      return { ok: false, unavailable: true, cause: `HTTP ${res.status}, not JSON` }
    }
    if (res.status === 200) {
      const parsed = IdpTokenResponseSchema.safeParse(json)
      if (parsed.success) return { ok: true, tokens: parsed.data }
      return { ok: false, unavailable: true, cause: 'HTTP 200 without an access_token' }
    }
    const e = json as { error?: unknown; error_description?: unknown }
    if (typeof e?.error === 'string') {
      const description = typeof e.error_description === 'string' ? e.error_description : ''
      return { ok: false, unavailable: false, error: e.error, description }
    }
    return { ok: false, unavailable: true, cause: `HTTP ${res.status}` }
  }

  /** POSTs a form with the gateway's client authentication (RFC 6749 §2.3.1). */
  async #post(
    endpoint: string,
    params: Record<string, string>,
  ): Promise<{ status: number; body: Buffer }> {
    const c = this.#o.client
    const form = new URLSearchParams(params)
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
    }
    if (c.tokenEndpointAuthMethod === 'client_secret_basic' && c.clientSecret) {
      // RFC 6749 §2.3.1: id and secret form-urlencoded before the Basic encoding.
      const pair = `${formEncode(c.clientId)}:${formEncode(c.clientSecret)}`
      headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`
    } else {
      form.set('client_id', c.clientId)
      if (c.tokenEndpointAuthMethod === 'client_secret_post' && c.clientSecret) {
        form.set('client_secret', c.clientSecret)
      }
    }
    const url = new URL(endpoint)
    const init = { method: 'POST', headers, body: form.toString() }
    // Any preset but okta: the endpoint at its own URL (Google's token endpoint is on another host).
    if (this.#o.settings.ownEndpoints && this.#o.pools) return this.#o.pools.request(endpoint, init)
    const upstream = this.#o.upstream
    if (upstream) {
      return requestUpstream(upstream, `${url.pathname}${url.search}`, {
        method: 'POST',
        headers,
        body: form.toString(),
      })
    }
    const res = await fetch(url, {
      method: 'POST',
      headers: { accept: 'application/json', ...headers },
      body: form.toString(),
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    })
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()) }
  }
}

function formEncode(s: string): string {
  return new URLSearchParams({ s }).toString().slice(2)
}
