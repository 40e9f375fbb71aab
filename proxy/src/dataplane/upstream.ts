/**
 * Connection pools to backends, one per backend, with TLS origination when the backend has a
 * `tls` block (the seed's BackendTLSPolicy): the server certificate is validated against the
 * system CAs, or the given CA bundle, for `tls.hostname` (also sent as SNI). Validation cannot be
 * turned off.
 */
import { readFileSync } from 'node:fs'
import { Agent, type Dispatcher, Pool } from 'undici'
import { durationMs } from '../config/duration.js'
import type { BackendConfig } from '../config/schema.js'

/** A backend ready for requests. */
export interface Upstream {
  /** `http://host:port` or `https://host:port`. */
  readonly origin: string
  /** The pool to send requests with. */
  readonly dispatcher: Dispatcher
  /** Time to response headers, in milliseconds. */
  readonly responseTimeoutMs: number
  close(): Promise<void>
}

/**
 * Creates the pool of one backend.
 * @throws Error when a CA bundle file cannot be read (the message names it).
 */
export function createUpstream(backend: BackendConfig): Upstream {
  const { host, port } = backend.static
  const tls = backend.tls
  const hostForUrl = host.includes(':') ? `[${host}]` : host
  const origin = `${tls ? 'https' : 'http'}://${hostForUrl}:${port}`
  const connectTimeout = durationMs(backend.timeouts.connect)
  const responseTimeoutMs = durationMs(backend.timeouts.response)
  const ca = tls?.caCertificates?.map((file) => {
    try {
      return readFileSync(file, 'utf8')
    } catch (cause) {
      throw new Error(`cannot read CA bundle ${file}: ${(cause as Error).message}`, { cause })
    }
  })
  const dispatcher = new Pool(origin, {
    connections: 128,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    headersTimeout: responseTimeoutMs,
    bodyTimeout: 0, // streams (SSE) may be idle for long; the client's disconnect ends them
    connect: {
      timeout: connectTimeout,
      ...(tls
        ? {
            servername: tls.hostname ?? host,
            rejectUnauthorized: true,
            ...(ca ? { ca } : {}),
          }
        : {}),
    },
  })
  return {
    origin,
    dispatcher,
    responseTimeoutMs,
    close: () => dispatcher.close(),
  }
}

/** A plain agent for URLs that are not a configured backend (the IdP discovery document). */
export function createAgent(): Agent {
  return new Agent({ connect: { timeout: 5000 }, headersTimeout: 10_000, bodyTimeout: 10_000 })
}
