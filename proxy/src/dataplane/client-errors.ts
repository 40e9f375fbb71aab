/**
 * What the HTTP server would otherwise answer by itself, with an empty body or none: requests it
 * cannot parse (400), headers too large (431), deadlines missed (408), an expectation other than
 * `100-continue` (417), `CONNECT` (405). Each gets the JSON body of docs/errors.md, and the
 * connection is closed the way RFC 9112 §9.6 asks: the answer is sent, the write side closed,
 * and what the client still sends is read and dropped for a moment, so the client's TCP stack
 * does not discard the answer on a reset.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { RequestError } from '../errors.js'
import { fromRequestError, rawErrorResponse, sendLocal } from '../http/local-response.js'

/** How long a closing connection is read from (and dropped) after the answer. */
const LINGER_MS = 2000

/** The methods the gateway routes; others get 405 (`TRACE` never reaches a backend). */
export const ROUTED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

/** The answer to a method the gateway does not route. */
export function methodNotAllowed(method: string): RequestError {
  return new RequestError(
    'GW_ERR_METHOD_NOT_ALLOWED',
    `the gateway does not route ${method} requests; it routes ${ROUTED_METHODS.join(', ')}`,
    { headers: { allow: ROUTED_METHODS.join(', ') } },
  )
}

/** The error a client error of Node's HTTP parser or deadline checks stands for. */
export function clientRequestError(err: NodeJS.ErrnoException & { reason?: string }): RequestError {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new RequestError(
        'GW_ERR_REQUEST_TIMEOUT',
        'the request was not received in time: its headers must arrive within limits.headersTimeout and the whole request within limits.requestTimeout',
      )
    case 'HPE_HEADER_OVERFLOW':
      return new RequestError(
        'GW_ERR_HEADERS_TOO_LARGE',
        'the request line and headers are larger than limits.maxHeaderSize',
      )
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new RequestError(
        'GW_ERR_BODY_TOO_LARGE',
        'the chunk extensions of the request body are too large',
      )
    default:
      return new RequestError(
        'GW_ERR_BAD_REQUEST',
        `the request is not valid HTTP/1.1 (${err.code ?? 'parse error'}${err.reason ? `: ${err.reason}` : ''})`,
      )
  }
}

/** Sends `payload` then closes, reading and dropping input for at most {@link LINGER_MS}. */
function endLingering(socket: Duplex, payload?: string): void {
  const timer = setTimeout(() => socket.destroy(), LINGER_MS)
  timer.unref()
  socket.once('close', () => clearTimeout(timer))
  socket.end(payload)
  socket.resume()
}

const answered = new WeakSet<Duplex>()

/**
 * `clientError`: answers once per connection, unless a response already started on it (then the
 * connection is only cut, as nothing can be added to a response in flight).
 */
export function onClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (answered.has(socket)) return
  answered.add(socket)
  // As Node's own default handler does: the response in flight on this socket, if any.
  const res = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage
  if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || !socket.writable || res?.headersSent) {
    socket.destroy()
    return
  }
  const error = clientRequestError(err)
  if (res) {
    // A deadline passed while the pipeline holds the request: answer through its response.
    res.shouldKeepAlive = false
    sendLocal(res, fromRequestError(error), {})
    endLingering(socket)
  } else {
    endLingering(socket, rawErrorResponse(error))
  }
}

/** `checkExpectation`: an `Expect` other than `100-continue` (RFC 9110 §10.1.1). */
export function onUnknownExpectation(req: IncomingMessage, res: ServerResponse): void {
  const error = new RequestError(
    'GW_ERR_EXPECTATION_FAILED',
    `the gateway meets no expectation but 100-continue; got Expect: ${String(req.headers.expect).slice(0, 100)}`,
  )
  res.shouldKeepAlive = false
  sendLocal(res, fromRequestError(error), {})
}

/** `connect`: the gateway is not a forward proxy. */
export function onConnectMethod(_req: IncomingMessage, socket: Duplex): void {
  endLingering(socket, rawErrorResponse(methodNotAllowed('CONNECT')))
}
