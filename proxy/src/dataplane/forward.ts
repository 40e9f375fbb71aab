/**
 * Forwarding one request to its backend with undici, streaming both ways with no buffering:
 * the request body is piped up as it arrives and the response (an SSE stream included) is piped
 * down event by event. Upstream failures map to gateway errors in one place ({@link mapUpstreamError}).
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import type { Readable } from 'node:stream'
import type { Logger } from 'pino'
import type { Dispatcher } from 'undici'
import type { RequestTask } from '../telemetry/tasks.js'
import type { RequestTrace } from '../telemetry/trace-bus.js'
import { errorResponse, type LocalResponse } from './local-response.js'
import type { Upstream } from './upstream.js'

/** RFC 9110 §7.6.1 hop-by-hop fields, plus the legacy ones proxies drop. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
])

function connectionTokens(value: string | string[] | undefined): string[] {
  if (!value) return []
  return (Array.isArray(value) ? value.join(',') : value)
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean)
}

/**
 * The headers sent upstream: hop-by-hop removed, `Host` left to undici (the backend's own),
 * `X-Forwarded-For/-Proto/-Host` set (RFC 7239 predecessors, as most backends read them).
 */
export function upstreamHeaders(
  headers: IncomingHttpHeaders,
  clientIp: string | undefined,
  proto: 'http' | 'https',
  stripAuthorization: boolean,
): Record<string, string | string[]> {
  const drop = connectionTokens(headers.connection)
  const out: Record<string, string | string[]> = {}
  for (const name in headers) {
    if (HOP_BY_HOP.has(name) || name === 'host') continue
    if (drop.length > 0 && drop.includes(name)) continue
    if (stripAuthorization && name === 'authorization') continue
    const v = headers[name]
    if (v !== undefined) out[name] = v
  }
  const prior = headers['x-forwarded-for']
  out['x-forwarded-for'] = prior ? `${prior}, ${clientIp ?? 'unknown'}` : (clientIp ?? 'unknown')
  out['x-forwarded-proto'] = proto
  if (headers.host) out['x-forwarded-host'] = headers.host
  return out
}

function withChanges(
  headers: Record<string, string | string[]>,
  changes: ForwardInput['requestHeaders'],
  traceContext: Record<string, string> | undefined,
): Record<string, string | string[]> {
  if (changes) {
    for (const name of changes.remove) delete headers[name]
    Object.assign(headers, changes.set)
  }
  // W3C Trace Context: the gateway's span is the backend's parent (replaces the client's).
  if (traceContext) Object.assign(headers, traceContext)
  return headers
}

function downstreamHeaders(
  headers: Record<string, string | string[] | undefined>,
  extra: Record<string, string>,
): Record<string, string | string[]> {
  const drop = connectionTokens(headers.connection)
  const out: Record<string, string | string[]> = {}
  for (const name in headers) {
    if (HOP_BY_HOP.has(name)) continue
    if (drop.length > 0 && drop.includes(name)) continue
    const v = headers[name]
    if (v !== undefined) out[name] = v
  }
  for (const name in extra) {
    // Vary is merged rather than replaced so caches keep the backend's own variance.
    if (name === 'vary' && out.vary) out.vary = `${out.vary}, ${extra[name]}`
    else out[name] = extra[name] as string
  }
  return out
}

/** Maps an upstream failure to the gateway's answer: refused → 502, timeout → 504. */
export function mapUpstreamError(err: unknown, backend: string): LocalResponse {
  const code = (err as { code?: string }).code ?? ''
  if (
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'ETIMEDOUT'
  ) {
    return errorResponse(
      504,
      'upstream_timeout',
      `backend "${backend}" did not answer in time (${code})`,
    )
  }
  if (code === 'ECONNREFUSED') {
    return errorResponse(502, 'upstream_unavailable', `backend "${backend}" refused the connection`)
  }
  return errorResponse(
    502,
    'upstream_error',
    `backend "${backend}" failed: ${code || (err as Error).message || 'unknown error'}`,
  )
}

/** What {@link forward} did: streamed the backend's answer, or produced a gateway error to send. */
export type ForwardResult =
  | { kind: 'streamed'; status: number }
  | { kind: 'local'; response: LocalResponse }

/** Inputs of {@link forward}. */
export interface ForwardInput {
  req: IncomingMessage
  res: ServerResponse
  backendName: string
  upstream: Upstream
  /** Path and query to request upstream. */
  pathAndQuery: string
  /** Extra response headers (CORS). */
  responseHeaders: Record<string, string>
  /** Remove the bearer token: the backend is behind the gateway and must not replay it. */
  stripAuthorization: boolean
  /** Header changes from policies (`transformations`), applied after the proxy's own headers. */
  requestHeaders?: { set: Record<string, string>; remove: string[] } | undefined
  /** The request body already read by the MCP-aware policy: sent as is instead of `req`. */
  requestBody?: Buffer | undefined
  /** Wraps the response body (MCP list filtering); may adjust the headers before they leave. */
  filterResponse?:
    | ((body: Readable, headers: Record<string, string | string[] | undefined>) => Readable)
    | undefined
  log: Logger
  trace?: RequestTrace | undefined
  task?: RequestTask | undefined
}

/**
 * Forwards the request and streams the answer.
 * @returns the status streamed, or a gateway error to send when nothing was sent yet.
 */
export async function forward(input: ForwardInput): Promise<ForwardResult> {
  const { req, res, upstream, trace, task } = input
  const abort = new AbortController()
  const onClose = () => {
    if (!res.writableFinished) abort.abort(new Error('client disconnected'))
  }
  res.once('close', onClose)
  const method = req.method ?? 'GET'
  const hasBody =
    method !== 'GET' && method !== 'HEAD' && method !== 'DELETE' ? true : hasRequestBody(req)
  const started = performance.now()
  trace?.event('backend_selected', { backend: input.backendName, address: upstream.origin })
  task?.stage('upstream_wait')
  let response: Dispatcher.ResponseData
  try {
    response = await upstream.dispatcher.request({
      origin: upstream.origin,
      method: method as Dispatcher.HttpMethod,
      path: input.pathAndQuery,
      headers: withChanges(
        upstreamHeaders(req.headers, req.socket.remoteAddress, 'http', input.stripAuthorization),
        input.requestHeaders,
        trace?.propagation?.(),
      ),
      body: input.requestBody ?? (hasBody ? req : null),
      signal: abort.signal,
      headersTimeout: upstream.responseTimeoutMs,
    })
  } catch (err) {
    res.off('close', onClose)
    const durationMs = performance.now() - started
    if (abort.signal.aborted) {
      trace?.event('backend_response', { error: 'client disconnected', durationMs })
      return { kind: 'streamed', status: 499 }
    }
    const mapped = mapUpstreamError(err, input.backendName)
    input.log.warn(
      {
        backend: input.backendName,
        err: (err as Error).message,
        code: (err as { code?: string }).code,
      },
      'upstream request failed',
    )
    trace?.event('backend_response', {
      error: (err as Error).message,
      status: mapped.status,
      durationMs,
    })
    return { kind: 'local', response: mapped }
  }
  const contentType = String(response.headers['content-type'] ?? '')
  trace?.event('backend_response', {
    status: response.statusCode,
    contentType,
    durationMs: Math.round((performance.now() - started) * 1000) / 1000,
  })
  task?.stage('streaming')
  const headers = downstreamHeaders(response.headers, input.responseHeaders)
  const body = input.filterResponse?.(response.body, headers) ?? response.body
  try {
    res.writeHead(response.statusCode, headers as Record<string, string | string[]>)
    // Event-stream chunks go out as they arrive: flush the head at once.
    if (contentType.startsWith('text/event-stream')) res.flushHeaders()
    await pipeTo(body, res)
  } catch (err) {
    // The client went away or the backend broke mid-stream: nothing more can be sent.
    input.log.debug(
      { backend: input.backendName, err: (err as Error).message },
      'stream ended early',
    )
    response.body.destroy()
    body.destroy()
    if (!res.destroyed) res.destroy()
  } finally {
    res.off('close', onClose)
  }
  return { kind: 'streamed', status: response.statusCode }
}

/**
 * Streams `body` into `res` with backpressure and resolves once `res` closed; rejects when the
 * body fails. Lighter than `stream/promises` `pipeline`, which creates and aborts an
 * AbortController (and its DOMException, with a stack trace) for every response — measurable on
 * a proxy's hot path.
 */
function pipeTo(body: Readable, res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => {
      res.off('close', onClose)
      reject(err)
    }
    const onClose = () => {
      body.off('error', onError)
      if (!res.writableFinished) body.destroy()
      resolve()
    }
    body.once('error', onError)
    res.once('close', onClose)
    body.pipe(res)
  })
}

function hasRequestBody(req: IncomingMessage): boolean {
  return req.headers['content-length'] !== undefined
    ? req.headers['content-length'] !== '0'
    : req.headers['transfer-encoding'] !== undefined
}
