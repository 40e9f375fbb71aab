/**
 * Failed requests to other servers (a backend, the IdP), read in one place and shared by the
 * auth layer, which reports why keys or discovery are missing, and the data plane, which answers
 * with them: unreachable → 502 `upstream_unavailable`, no answer in time → 504
 * `upstream_timeout`, anything else before the response started → 502 `upstream_error`, no free
 * slot → 503 `upstream_busy` (docs/errors.md). undici wraps the useful part of a socket error in
 * `cause`; a timeout may surface as its own code or as an aborted signal.
 */
import { RequestError } from '../errors.js'

/** What kind of failure it was, for status mapping (504, 502 `upstream_unavailable`, 502). */
export type UpstreamFailureKind = 'timeout' | 'unreachable' | 'other'

/** A failed upstream request, read once. */
export interface UpstreamFailure {
  kind: UpstreamFailureKind
  /** The most specific code found (`ECONNREFUSED`, `UND_ERR_HEADERS_TIMEOUT`), or ''. */
  code: string
  /** A readable cause: `ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:9)`, `timed out`. */
  text: string
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
])

/** Nothing answered at that address: refused, no route, no such name (yet). */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])

/** Reads an error thrown by undici (or by `fetch`, or an abort signal). */
export function describeUpstreamError(err: unknown): UpstreamFailure {
  const e = (err ?? {}) as Error & { code?: string; cause?: Error & { code?: string } }
  if (e.name === 'TimeoutError' || e.name === 'AbortError') {
    return { kind: 'timeout', code: e.code ?? '', text: 'timed out' }
  }
  const carrier = e.cause?.code ? e.cause : e
  const code = carrier.code ?? ''
  const message = carrier.message ?? ''
  const text = code ? `${code}${message ? ` (${message})` : ''}` : message || 'unknown error'
  const kind: UpstreamFailureKind = TIMEOUT_CODES.has(code)
    ? 'timeout'
    : UNREACHABLE_CODES.has(code)
      ? 'unreachable'
      : 'other'
  return { kind, code, text }
}

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

/**
 * The backend already holds `limits.maxListenStreams` `subscriptions/listen` streams (MCP
 * 2026-07-28 Subscriptions): refused at once, as a stream slot frees only when a client leaves.
 */
export function listenStreamsFull(backend: string, max: number): RequestError {
  return new RequestError(
    'GW_ERR_UPSTREAM_STREAMS_FULL',
    `backend "${backend}" already holds ${max} subscriptions/listen streams (limits.maxListenStreams); retry later`,
    { headers: { 'retry-after': '5' } },
  )
}
