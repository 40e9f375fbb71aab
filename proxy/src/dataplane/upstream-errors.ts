/**
 * Upstream failures as the gateway's answers, in one place: unreachable → 502
 * `upstream_unavailable`, no answer in time → 504 `upstream_timeout`, anything else before the
 * response started → 502 `upstream_error`, no free slot → 503 `upstream_busy` (docs/errors.md).
 */
import { RequestError } from '../errors.js'
import { describeUpstreamError } from '../http/upstream-error.js'

/**
 * Maps an upstream failure (read by {@link describeUpstreamError}, as the auth layer reads its
 * fetches) to the gateway's answer: unreachable → 502, timeout → 504.
 */
export function mapUpstreamError(err: unknown, backend: string): RequestError {
  const { kind, code, text } = describeUpstreamError(err)
  if (kind === 'timeout') {
    return new RequestError(
      'GW_ERR_UPSTREAM_TIMEOUT',
      `backend "${backend}" did not answer in time (${code || text})`,
      { cause: err },
    )
  }
  if (kind === 'unreachable') {
    return new RequestError(
      'GW_ERR_UPSTREAM_CONNECT',
      `backend "${backend}" cannot be reached (${code})`,
      { cause: err },
    )
  }
  const why = code || text
  return new RequestError('GW_ERR_UPSTREAM', `backend "${backend}" failed: ${why}`, { cause: err })
}

/** No slot of the backend's budget came free in time (`limits.maxRequests`). */
export function busy(backend: string, waitedMs: number): RequestError {
  return new RequestError(
    'GW_ERR_UPSTREAM_BUSY',
    `backend "${backend}" has no free slot: waited ${Math.round(waitedMs)} ms (timeouts.response) behind limits.maxRequests requests in flight; retry later`,
    { headers: { 'retry-after': '1' } },
  )
}
