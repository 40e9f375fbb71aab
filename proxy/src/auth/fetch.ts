/**
 * Small HTTP helper for the auth layer's control-plane fetches (key sets, discovery documents,
 * proxied registrations). Requests go through the configured backend's pool, so TLS origination
 * and CA validation are the backend's (the seed's BackendTLSPolicy), never ad hoc.
 */
import type { Upstream } from '../http/upstream.js'
import { describeUpstreamError } from '../http/upstream-error.js'

/** A fetched response with its body read. */
export interface FetchedResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

/** Bytes accepted from the IdP for one document: a key set or discovery document is small. */
const MAX_DOCUMENT_BYTES = 1024 * 1024

/**
 * Sends one request to a backend.
 * @throws Error with a readable cause (connection refused, timeout, TLS failure, too large).
 */
export async function requestUpstream(
  upstream: Upstream,
  path: string,
  init: {
    method?: string
    headers?: Record<string, string>
    body?: string
    timeoutMs?: number
    /** Bytes accepted in the body; default 1 MiB. */
    maxBytes?: number
  } = {},
): Promise<FetchedResponse> {
  const signal = AbortSignal.timeout(init.timeoutMs ?? Math.min(upstream.responseTimeoutMs, 10_000))
  const res = await upstream.dispatcher.request({
    origin: upstream.origin,
    path,
    method: (init.method ?? 'GET') as 'GET',
    headers: { accept: 'application/json', ...init.headers },
    ...(init.body !== undefined ? { body: init.body } : {}),
    signal,
  })
  const maxBytes = init.maxBytes ?? MAX_DOCUMENT_BYTES
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of res.body) {
    size += (chunk as Buffer).length
    if (size > maxBytes) {
      res.body.destroy()
      throw new Error(`response larger than ${maxBytes} bytes`)
    }
    chunks.push(chunk as Buffer)
  }
  return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }
}

/** A readable cause for a failed fetch: connection refused, timed out, TLS failure, too large. */
export function describeError(err: unknown): string {
  return describeUpstreamError(err).text
}

/** `max-age` of a Cache-Control header, in milliseconds, or undefined. */
export function maxAgeMs(headers: FetchedResponse['headers']): number | undefined {
  const raw = headers['cache-control']
  const value = Array.isArray(raw) ? raw.join(',') : raw
  const m = value && /(?:^|,)\s*max-age\s*=\s*(\d+)/i.exec(value)
  return m?.[1] ? Number(m[1]) * 1000 : undefined
}
