/**
 * One reading of a failed request to another server (a backend, the IdP), shared by the data
 * plane, which maps it to 502/504, and the auth layer, which reports why keys or discovery are
 * missing. undici wraps the useful part of a socket error in `cause`; a timeout may surface as
 * its own code or as an aborted signal.
 */

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
