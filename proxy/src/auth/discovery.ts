/**
 * The provider's OpenID Connect discovery document (OpenID Connect Discovery 1.0 §4), fetched
 * from `<issuer>/.well-known/openid-configuration` through the JWKS backend, cached (5 minutes,
 * or the IdP's `Cache-Control: max-age` within 1 minute to 24 hours) and refreshed on demand.
 * When a refresh fails the last-known-good document is served and a warning logged.
 *
 * Every fetch goes through {@link requestUpstream}, like the key set's: the JWKS backend's pool
 * and TLS settings when the provider has one, else a pool of its own to the issuer's origin (TLS
 * validated against the system CAs for an `https` issuer), and always the 1 MiB cap on the body.
 */
import type { pino } from 'pino'
import { BackendConfigSchema } from '../config/schema.js'
import { createUpstream, type Upstream } from '../http/upstream.js'
import type { TaskRegistry } from '../telemetry/tasks.js'
import { firstIssue, type OidcDiscovery, OidcDiscoverySchema } from './documents.js'
import { maxAgeMs, requestUpstream } from './fetch.js'
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

/** The cached discovery document of one issuer. */
export class DiscoveryCache {
  readonly #upstream: Upstream
  /** True when {@link #upstream} is this cache's own pool to the issuer (closed with it). */
  readonly #ownsUpstream: boolean
  readonly #issuer: string
  readonly #path: string
  readonly #document: RefreshingDocument<OidcDiscovery>

  /**
   * @param upstream the JWKS backend (the org domain); without one the issuer URL is fetched
   *   directly.
   */
  constructor(
    issuer: string,
    upstream: Upstream | undefined,
    log: pino.Logger,
    tasks: TaskRegistry,
  ) {
    this.#issuer = issuer
    this.#upstream = upstream ?? issuerUpstream(issuer)
    this.#ownsUpstream = upstream === undefined
    this.#path = `${new URL(issuer).pathname.replace(/\/$/, '')}/.well-known/openid-configuration`
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
    return this.#ownsUpstream
      ? `${this.#issuer.replace(/\/$/, '')}/.well-known/openid-configuration`
      : `${this.#upstream.origin}${this.#path}`
  }

  /** Closes the pool this cache opened to the issuer, if it opened one. */
  async close(): Promise<void> {
    if (this.#ownsUpstream) await this.#upstream.close()
  }

  /** The document, fetching it when missing or expired. */
  async get(): Promise<DiscoveryResult> {
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
      throw new Error(`the document names issuer ${String(d.issuer)}, expected ${this.#issuer}`)
    }
    return { value: d, maxAgeMs: ttl }
  }

  /** View for the config dump. */
  dump(): Record<string, unknown> {
    return {
      url: this.url,
      cached: this.#document.value !== undefined,
      lastError: this.#document.lastError ?? null,
    }
  }
}

/**
 * A pool to the issuer's own origin, for a provider without a JWKS backend: the same pool, TLS
 * origination (system CAs, the issuer's host as SNI) and timeouts as a configured backend.
 */
function issuerUpstream(issuer: string): Upstream {
  const url = new URL(issuer)
  const https = url.protocol === 'https:'
  const host = url.hostname.replace(/^\[|\]$/g, '')
  return createUpstream(
    BackendConfigSchema.parse({
      static: { host, port: Number(url.port) || (https ? 443 : 80) },
      ...(https ? { tls: { hostname: host } } : {}),
      timeouts: { response: '10s' },
    }),
  )
}
