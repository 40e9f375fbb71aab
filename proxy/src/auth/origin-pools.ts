/**
 * Pools to the IdP's own hosts, for the endpoints a provider names by URL (its discovery URL, the
 * `jwks_uri`, token and revocation endpoints of its discovery document): Google alone spreads them
 * over three hosts. Each origin gets one pool built like a configured backend (TLS origination
 * with the system CAs and the host as SNI for `https`, the backend's timeouts), so every fetch
 * goes through {@link requestUpstream} with its time and size bounds, never an ad hoc client.
 */
import { BackendConfigSchema } from '../config/schema.js'
import { createUpstream, type Upstream } from '../http/upstream.js'
import { type FetchedResponse, requestUpstream } from './fetch.js'

/** One pool per origin, opened on first use and closed together. */
export class OriginPools {
  readonly #pools = new Map<string, Upstream>()

  /** The pool to the origin of `url`, opened if needed. */
  pool(url: URL): Upstream {
    let pool = this.#pools.get(url.origin)
    if (!pool) {
      pool = originUpstream(url)
      this.#pools.set(url.origin, pool)
    }
    return pool
  }

  /** Sends one request to `url` through its origin's pool (see {@link requestUpstream}). */
  request(url: string, init?: Parameters<typeof requestUpstream>[2]): Promise<FetchedResponse> {
    const u = new URL(url)
    return requestUpstream(this.pool(u), `${u.pathname}${u.search}`, init)
  }

  /** Closes every pool. */
  async close(): Promise<void> {
    const pools = [...this.#pools.values()]
    this.#pools.clear()
    await Promise.all(pools.map((p) => p.close()))
  }
}

/**
 * A pool to one origin: the same pool, TLS origination (system CAs, the host as SNI) and timeouts
 * as a configured backend.
 */
export function originUpstream(url: URL): Upstream {
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
