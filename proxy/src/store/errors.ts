/** The typed errors of the broker store (codes in `../errors.ts`, documented in docs/errors.md). */
import { RequestError } from '../errors.js'

/**
 * A broker store namespace is at its size bound (`mcp.broker.store.*.maxEntries`): the new entry
 * is refused, live ones are never evicted. Answered 503 `temporarily_unavailable`, with a
 * `Retry-After` that comes true: the time until the earliest entry of the namespace expires and
 * frees its place (at least 1 s).
 */
export class StoreFullError extends RequestError {
  /** Seconds until a place frees up (the earliest expiry in the namespace). */
  readonly retryAfterSeconds: number

  constructor(namespace: string, max: number, freeInMs: number) {
    const seconds = Math.max(1, Math.ceil(freeInMs / 1000))
    super(
      'GW_ERR_STORE_FULL',
      `the gateway's ${namespace} store is full (${max} entries); the next place frees up in ${seconds} s, or raise mcp.broker.store maxEntries`,
      { headers: { 'retry-after': String(seconds) } },
    )
    this.name = 'StoreFullError'
    this.retryAfterSeconds = seconds
  }
}

/** The broker store (Redis) cannot be reached or did not answer in time. Answered 503. */
export class StoreUnavailableError extends RequestError {
  constructor(detail: string, options?: { cause?: unknown }) {
    super(
      'GW_ERR_STORE_UNAVAILABLE',
      `the gateway's state store is not available (${detail}); try again later`,
      { ...options, headers: { 'retry-after': '5' } },
    )
    this.name = 'StoreUnavailableError'
  }
}
