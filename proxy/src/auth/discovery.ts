/**
 * The provider's OpenID Connect discovery document (OpenID Connect Discovery 1.0 §4), fetched
 * from `<issuer>/.well-known/openid-configuration` through the JWKS backend (the seed's okta
 * preset), or from the provider's own discovery URL (`providers[].discoveryUrl`, any host), cached (5 minutes,
 * or the IdP's `Cache-Control: max-age` within 1 minute to 24 hours) and refreshed on demand.
 * When a refresh fails the last-known-good document is served and a warning logged.
 *
 * Every fetch goes through {@link requestUpstream}, like the key set's: the JWKS backend's pool
 * and TLS settings when the provider has one, else a pool of its own to the issuer's origin (TLS
 * validated against the system CAs for an `https` issuer), and always the 1 MiB cap on the body.
 */
import type { pino } from 'pino'
import { endpointUrlProblem } from '../config/endpoint-url.js'
import type { Upstream } from '../http/upstream.js'
import type { TaskRegistry } from '../telemetry/tasks.js'
import { firstIssue, type OidcDiscovery, OidcDiscoverySchema } from './documents.js'
import { maxAgeMs, requestUpstream } from './fetch.js'
import { originUpstream } from './origin-pools.js'
import { type Fetched, RefreshingDocument } from './refreshing-document.js'

const DEFAULT_TTL_MS = 5 * 60_000
const MIN_TTL_MS = 60_000
const MAX_TTL_MS = 24 * 60 * 60_000
/** After a failure, wait this long before asking the IdP again (requests get the cached answer). */
const FAILURE_BACKOFF_MS = 2000

/** A discovery document, or why there is none. */
export type DiscoveryResult =
  | { ok: true; document: OidcDiscovery; stale: boolean }
  | { ok: false; url: string; cause: string }

/** Options of a {@link DiscoveryCache} beyond its issuer and backend. */
export interface DiscoveryOptions {
  /** The document's own URL (`providers[].discoveryUrl`); wins over the backend. */
  url?: string | undefined
  /**
   * Refuse a document without `jwks_uri`: the provider's keys come from it (OIDC Discovery §3
   * makes it REQUIRED).
   */
  requireJwksUri?: boolean | undefined
  /**
   * The document the provider's configuration states (`providers[].endpoints`): served as it is,
   * never fetched (the IdP publishes none).
   */
  stated?: OidcDiscovery | undefined
}

/** The members of a discovery document that are URLs the gateway calls or sends users to. */
const ENDPOINT_MEMBERS = [
  'authorization_endpoint',
  'token_endpoint',
  'jwks_uri',
  'revocation_endpoint',
  'introspection_endpoint',
  'userinfo_endpoint',
] as const

/** The cached discovery document of one issuer. */
export class DiscoveryCache {
  readonly #upstream: Upstream
  /** True when {@link #upstream} is this cache's own pool to the issuer (closed with it). */
  readonly #ownsUpstream: boolean
  readonly #issuer: string
  readonly #path: string
  readonly #requireJwksUri: boolean
  readonly #document: RefreshingDocument<OidcDiscovery>
  readonly #stated: OidcDiscovery | undefined

  /**
   * @param upstream the JWKS backend (the org domain); without one (or with `options.url`) the
   *   document's URL is fetched directly.
   */
  constructor(
    issuer: string,
    upstream: Upstream | undefined,
    log: pino.Logger,
    tasks: TaskRegistry,
    options: DiscoveryOptions = {},
  ) {
    this.#issuer = issuer
    this.#requireJwksUri = options.requireJwksUri ?? false
    this.#stated = options.stated
    const own = options.url
      ? new URL(options.url)
      : upstream === undefined
        ? new URL(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`)
        : undefined
    this.#upstream = own ? originUpstream(own) : (upstream as Upstream)
    this.#ownsUpstream = own !== undefined
    this.#path = own
      ? `${own.pathname}${own.search}`
      : `${new URL(issuer).pathname.replace(/\/$/, '')}/.well-known/openid-configuration`
    this.#document = new RefreshingDocument<OidcDiscovery>({
      task: 'discovery_fetch',
      taskDetails: { issuer, url: this.url },
      tasks,
      fetch: () => this.#fetch(),
      defaultTtlMs: DEFAULT_TTL_MS,
      minTtlMs: MIN_TTL_MS,
      maxTtlMs: MAX_TTL_MS,
      retryMinMs: FAILURE_BACKOFF_MS,
      retryMaxMs: FAILURE_BACKOFF_MS,
      onFailure: (cause) =>
        log.warn(
          {
            code: 'GW_ERR_DISCOVERY_UNAVAILABLE',
            issuer,
            url: this.url,
            cause,
            serving: this.#document.value ? 'last-known-good' : 'nothing',
          },
          'OIDC discovery document is not available',
        ),
    })
  }

  /** The URL the document is fetched from. */
  get url(): string {
    if (this.#stated) return 'the configured providers[].endpoints'
    // URL's origin leaves out the scheme's default port (the pool's names it).
    return `${new URL(this.#upstream.origin).origin}${this.#path}`
  }

  /** Why the document is not available, or `undefined` when it is (or was never asked for). */
  get problem(): string | undefined {
    if (this.#stated) return undefined
    return this.#document.value ? undefined : this.#document.lastError
  }

  /** Closes the pool this cache opened to the issuer, if it opened one. */
  async close(): Promise<void> {
    if (this.#ownsUpstream) await this.#upstream.close()
  }

  /** The document, fetching it when missing or expired. */
  async get(): Promise<DiscoveryResult> {
    if (this.#stated) return { ok: true, document: this.#stated, stale: false }
    const document = await this.#document.current()
    if (document) return { ok: true, document, stale: this.#document.stale }
    return { ok: false, url: this.url, cause: this.#document.lastError ?? 'not fetched yet' }
  }

  async #fetch(): Promise<Fetched<OidcDiscovery>> {
    const res = await requestUpstream(this.#upstream, this.#path)
    const status = res.status
    const text = res.body.toString('utf8')
    const ttl = maxAgeMs(res.headers)
    if (status !== 200) throw new Error(`HTTP ${status}`)
    const parsed = OidcDiscoverySchema.safeParse(JSON.parse(text))
    if (!parsed.success) {
      const { member, message } = firstIssue(parsed.error)
      throw new Error(`not an OpenID Connect discovery document (${member}: ${message})`)
    }
    const d = parsed.data
    if (d.issuer !== this.#issuer) {
      // OpenID Connect Discovery §4.3: the issuer in the document must be the one asked for.
      throw new Error(
        `the document names issuer ${String(d.issuer)}, expected ${this.#issuer} (compared exactly, trailing slash included): set providers[].issuer to the document's issuer`,
      )
    }
    if (this.#requireJwksUri && !d.jwks_uri) {
      // OIDC Discovery §3: jwks_uri is REQUIRED; the provider's keys come from it.
      throw new Error('the document has no jwks_uri, so the signing keys cannot be found')
    }
    if (this.#ownsUpstream) {
      // Fetched at the IdP's own URLs (any preset but okta): its endpoints meet the rule stated
      // endpoints meet (config/endpoint-url.ts). The okta preset's are reached through the JWKS
      // backend, whatever host they name (the seed).
      for (const member of ENDPOINT_MEMBERS) {
        const value = d[member]
        const problem = typeof value === 'string' ? endpointUrlProblem(value) : undefined
        if (problem) throw new Error(`its ${member} ${problem}`)
      }
    }
    return { value: d, maxAgeMs: ttl }
  }

  /** View for the config dump. */
  dump(): Record<string, unknown> {
    if (this.#stated) return { url: this.url, cached: true, lastError: null }
    return {
      url: this.url,
      cached: this.#document.value !== undefined,
      lastError: this.#document.lastError ?? null,
    }
  }
}
