// Over 300 lines but one job (forwarding one request to its backend): kept whole.
/**
 * Forwarding one request to its backend with undici, streaming both ways with no buffering:
 * the request body is piped up as it arrives and the response (an SSE stream included) is piped
 * down event by event. A finite request first takes a slot of the backend's budget
 * (`Admission`); an event stream goes to its own pool. Upstream failures map to gateway
 * errors in one place (http/upstream-error.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { PassThrough, type Readable } from 'node:stream'
import type { Logger } from 'pino'
import type { Dispatcher } from 'undici'
import { RequestError } from '../errors.js'
import type { Upstream } from '../http/upstream.js'
import { busy, listenStreamsFull, mapUpstreamError } from '../http/upstream-error.js'
import type { RequestTask } from '../telemetry/tasks.js'
import type { RequestTrace } from '../telemetry/trace-bus.js'
import { downstreamHeaders, type HeaderChanges, upstreamHeaders } from './headers.js'
import { continueBody, hasRequestBody } from './request-body.js'

/** What {@link forward} did: streamed the backend's answer, or produced a gateway error to send. */
export type ForwardResult =
  | { kind: 'streamed'; status: number }
  | { kind: 'local'; error: RequestError }

/** Inputs of {@link forward}. */
export interface ForwardInput {
  req: IncomingMessage
  res: ServerResponse
  backendName: string
  upstream: Upstream
  /** Path (normalised) and query to request upstream. */
  pathAndQuery: string
  /** Extra response headers (CORS). */
  responseHeaders: Record<string, string>
  /** Remove the bearer token: the backend is behind the gateway and must not replay it. */
  stripAuthorization: boolean
  /** Header changes from policies (`transformations`), applied after the proxy's own headers. */
  requestHeaders?: HeaderChanges | undefined
  /**
   * An MCP 2026-07-28 `subscriptions/listen` POST: its answer is a long-lived stream, forwarded on
   * a connection of its own outside the request budget, up to `limits.maxListenStreams`.
   */
  listen?: boolean | undefined
  /** The request body already read by the MCP-aware policy: sent as is instead of `req`. */
  requestBody?: Buffer | undefined
  /**
   * Wraps the response body (MCP list filtering); may adjust the headers before they leave, or
   * throw a `RequestError` to answer with instead (a body it refuses to read).
   */
  filterResponse?:
    | ((
        body: Readable,
        headers: Record<string, string | string[] | undefined>,
        status: number,
      ) => Readable)
    | undefined
  /**
   * Called with the backend's status and headers before anything is sent to the client, and
   * awaited (the MCP session binding records a session id the backend issued before the client
   * can use it).
   */
  onResponseHead?:
    | ((status: number, headers: Record<string, string | string[] | undefined>) => Promise<void>)
    | undefined
  log: Logger
  trace?: RequestTrace | undefined
  task?: RequestTask | undefined
}

/** MCP 2025-06-18 Transports: a GET with `Accept: text/event-stream` opens a server stream. */
function isEventStream(req: IncomingMessage): boolean {
  return req.method === 'GET' && /\btext\/event-stream\b/i.test(String(req.headers.accept ?? ''))
}

type Sent = { ok: true; response: Dispatcher.ResponseData } | { ok: false; error: unknown }

/** Why an exchange was cut: one error for all, as nobody reads its stack. */
const RESPONSE_CLOSED = new Error('response closed')

/**
 * One exchange's end, as undici, {@link Admission} and the response pipe hear it: the subset of
 * `AbortSignal` they read (`aborted`, `reason`, `add`/`removeEventListener('abort')`), set off by
 * the client's response closing — the client went away, or the gateway answered on its own while
 * the backend had not (a 408 at `requestTimeout`). An `AbortController` and two close listeners
 * per request cost 4–5 % of a request's CPU (docs/design/performance.md); this is one small object and one
 * listener.
 */
class Exchange {
  aborted = false
  reason: Error | undefined = undefined
  /** Until the backend's answer head arrived. */
  waiting = true
  /** Set while the answer is piped: called once the response closed. */
  piped: (() => void) | undefined = undefined
  #listeners: Array<() => void> | undefined = undefined

  constructor(private readonly res: ServerResponse) {
    res.on('close', this.#onClose)
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    this.#listeners ??= []
    this.#listeners.push(listener)
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const i = this.#listeners?.indexOf(listener) ?? -1
    if (i !== -1) this.#listeners?.splice(i, 1)
  }

  /** The exchange no longer needs the response's close. */
  detach(): void {
    this.res.off('close', this.#onClose)
  }

  /** The signal to give undici, which reads it as an `AbortSignal` (see the class comment). */
  get signal(): AbortSignal {
    return this as unknown as AbortSignal
  }

  #onClose = (): void => {
    if (this.waiting || !this.res.writableFinished) {
      this.aborted = true
      this.reason = RESPONSE_CLOSED
      const listeners = this.#listeners
      this.#listeners = undefined
      for (const listener of listeners ?? []) listener()
    }
    this.piped?.()
  }
}

/**
 * The request body as undici reads it. undici destroys the body it was given when the exchange
 * ends early (the backend answered before reading it all, or failed), and a destroyed request
 * whose upload is still arriving stops Node reading the client's connection: the rest would stall
 * there. Such a body goes through a stream of its own, and {@link dropRest} reads and drops what
 * undici left, as Node does with a body nobody read, so the connection stays usable. A body
 * received whole already (most MCP messages: one packet) is handed over as it is.
 */
function uploadOf(req: IncomingMessage): Readable {
  if (req.complete) return req
  const body = new PassThrough()
  req.once('error', (err) => body.destroy(err))
  req.pipe(body)
  return body
}

function dropRest(req: IncomingMessage, body: Readable): void {
  if (body === req) return
  req.unpipe(body as PassThrough)
  if (!req.readableEnded) req.resume()
}

function carriesBody(req: IncomingMessage): boolean {
  const method = req.method ?? 'GET'
  return method !== 'GET' && method !== 'HEAD' && method !== 'DELETE' ? true : hasRequestBody(req)
}

/** Sends the request within the time left to its response headers. */
async function send(
  input: ForwardInput,
  dispatcher: Dispatcher,
  body: Readable | Buffer | null,
  signal: AbortSignal,
  timeLeftMs: number,
): Promise<Sent> {
  const { req, res } = input
  if (body && !Buffer.isBuffer(body)) continueBody(req, res)
  const headers = upstreamHeaders(
    req.headers,
    req.socket.remoteAddress,
    input.stripAuthorization,
    input.requestHeaders,
  )
  // W3C Trace Context: the gateway's span is the backend's parent (replaces the client's). Added
  // to the fresh object rather than spread into another: most requests have no span.
  const propagation = input.trace?.propagation?.()
  if (propagation) Object.assign(headers, propagation)
  try {
    const response = await dispatcher.request({
      origin: input.upstream.origin,
      method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
      path: input.pathAndQuery,
      headers,
      body,
      signal,
      headersTimeout: Math.max(1, Math.round(timeLeftMs)),
    })
    return { ok: true, response }
  } catch (error) {
    return { ok: false, error }
  }
}

/**
 * Forwards the request and streams the answer.
 * @returns the status streamed, or a gateway error to send when nothing was sent yet.
 */
export async function forward(input: ForwardInput): Promise<ForwardResult> {
  const { req, res, upstream } = input
  const exchange = new Exchange(res)
  const started = performance.now()
  input.trace?.event('backend_selected', { backend: input.backendName, address: upstream.origin })
  input.task?.stage('upstream_wait')
  let release: (() => void) | undefined
  let body: Readable | null = null
  // An event stream has a connection of its own; every other request takes a slot of the pool.
  // MCP 2026-07-28 Subscriptions: a listen stream "stays open and delivers notifications until
  // the client cancels it", so it is one too, with a bound of its own.
  const stream = input.listen
    ? upstream.openListenStream()
    : isEventStream(req)
      ? upstream.openStream()
      : undefined
  if (input.listen && !stream) {
    exchange.detach()
    const max = upstream.maxListenStreams
    return failed(input, listenStreamsFull(input.backendName, max), started)
  }
  try {
    if (!stream) {
      const slot = await upstream.admission.acquire(upstream.responseTimeoutMs, exchange)
      if (!slot.ok) {
        if (slot.failure.kind === 'aborted') return clientGone(input, started)
        return failed(input, busy(input.backendName, slot.failure.waitedMs), started)
      }
      release = slot.release
    }
    body = input.requestBody === undefined && carriesBody(req) ? uploadOf(req) : null
    const timeLeftMs = upstream.responseTimeoutMs - (performance.now() - started)
    const dispatcher = stream?.dispatcher ?? upstream.dispatcher
    const sent = await send(
      input,
      dispatcher,
      input.requestBody ?? body,
      exchange.signal,
      timeLeftMs,
    )
    if (!sent.ok) {
      if (exchange.aborted || res.destroyed) return clientGone(input, started)
      return failed(input, mapUpstreamError(sent.error, input.backendName), started, sent.error)
    }
    exchange.waiting = false
    return await answer(input, exchange, sent.response, started)
  } finally {
    release?.()
    stream?.done()
    exchange.detach()
    if (body) dropRest(req, body)
  }
}

function clientGone(input: ForwardInput, started: number): ForwardResult {
  input.trace?.event('backend_response', {
    error: 'client disconnected',
    durationMs: performance.now() - started,
  })
  return { kind: 'streamed', status: 499 }
}

function failed(
  input: ForwardInput,
  error: RequestError,
  started: number,
  cause?: unknown,
): ForwardResult {
  input.log.warn(
    {
      backend: input.backendName,
      err: cause ? (cause as Error).message : error.message,
      code: cause ? (cause as { code?: string }).code : error.code,
    },
    'upstream request failed',
  )
  input.trace?.event('backend_response', {
    error: error.message,
    status: error.status,
    durationMs: performance.now() - started,
  })
  return { kind: 'local', error }
}

/** Streams the backend's answer to the client. */
async function answer(
  input: ForwardInput,
  exchange: Exchange,
  response: Dispatcher.ResponseData,
  started: number,
): Promise<ForwardResult> {
  const { res, trace } = input
  const contentType = String(response.headers['content-type'] ?? '')
  trace?.event('backend_response', {
    status: response.statusCode,
    contentType,
    durationMs: Math.round((performance.now() - started) * 1000) / 1000,
  })
  input.task?.stage('streaming')
  try {
    await input.onResponseHead?.(response.statusCode, response.headers)
  } catch (err) {
    // The head is refused (an MCP session that cannot be bound): nothing of it reaches the client.
    if (!(err instanceof RequestError)) throw err
    response.body.on('error', () => {}).destroy()
    return failed(input, err, started)
  }
  const headers = downstreamHeaders(response.headers, input.responseHeaders)
  let body: Readable
  try {
    body = input.filterResponse?.(response.body, headers, response.statusCode) ?? response.body
  } catch (err) {
    if (!(err instanceof RequestError)) throw err
    response.body.on('error', () => {}).destroy()
    return failed(input, err, started)
  }
  try {
    res.writeHead(response.statusCode, headers as Record<string, string | string[]>)
    // Event-stream chunks go out as they arrive: flush the head at once.
    if (contentType.startsWith('text/event-stream')) res.flushHeaders()
    await pipeTo(body, res, exchange)
  } catch (err) {
    // The client went away or the backend broke mid-stream: nothing more can be sent.
    input.log.debug(
      {
        backend: input.backendName,
        err: (err as Error).message,
        code: (err as { code?: string }).code,
      },
      'stream ended early',
    )
    response.body.destroy()
    body.destroy()
    if (!res.destroyed) res.destroy()
  }
  return { kind: 'streamed', status: response.statusCode }
}

/**
 * Streams `body` into `res` with backpressure and resolves once `res` closed (the exchange hears
 * it); rejects when the body fails. Lighter than `stream/promises` `pipeline`, which creates and
 * aborts an AbortController (and its DOMException, with a stack trace) for every response —
 * measurable on a proxy's hot path.
 */
function pipeTo(body: Readable, res: ServerResponse, exchange: Exchange): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => {
      exchange.piped = undefined
      reject(err)
    }
    exchange.piped = () => {
      exchange.piped = undefined
      body.off('error', onError)
      if (!res.writableFinished) body.destroy()
      resolve()
    }
    body.once('error', onError)
    body.pipe(res)
  })
}
