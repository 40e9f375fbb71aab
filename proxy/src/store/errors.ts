/** The typed errors of the broker store (codes in `../errors.ts`, documented in docs/errors.md). */
import { RequestError } from '../errors.js'

/**
 * A broker store namespace is at its size bound (`mcp.broker.store.*.maxEntries`): the new entry
 * is refused, live ones are never evicted. Answered 503 `temporarily_unavailable`.
 */
export class StoreFullError extends RequestError {
  constructor(namespace: string, max: number) {
    super(
      'GW_ERR_STORE_FULL',
      `the gateway's ${namespace} store is full (${max} entries); try again later, or raise mcp.broker.store maxEntries`,
      { headers: { 'retry-after': '30' } },
    )
    this.name = 'StoreFullError'
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
