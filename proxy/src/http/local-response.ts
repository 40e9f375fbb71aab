/**
 * Requests the proxy answers itself (OAuth discovery, registration, errors), in a shape that is
 * independent of the HTTP server: handlers return a {@link LocalResponse}, the dataplane writes it
 * (adding CORS), so handlers stay testable without a server.
 */
import { type IncomingHttpHeaders, type ServerResponse, STATUS_CODES } from 'node:http'
import { RequestError, type RequestErrorCode } from '../errors.js'
import type { RequestTrace } from '../telemetry/trace-bus.js'

/**
 * One request as the proxy's stages see it, independent of the HTTP server. The auth and MCP
 * stages take narrower views of it (`AuthStageRequest` in auth/types.ts, `McpStageRequest` in
 * mcp/route-policy.ts: each a `Pick` of this type); local handlers take all of it.
 */
export interface LocalRequest {
  method: string
  /** Path without the query, normalised (dataplane/target.ts). */
  path: string
  /** The query with its leading `?`, or `''` (absent where no handler reads it). */
  query?: string
  /** The client's address (the TCP peer), for per-source limits. */
  remoteAddress?: string | undefined
  headers: IncomingHttpHeaders
  /**
   * Every value of each header (Node's `headersDistinct`): `headers` keeps only the first
   * `Authorization`, and a request that sends two must be refused, not judged by the first.
   */
  headersDistinct: Readonly<Record<string, readonly string[] | undefined>>
  /**
   * Reads the body, at most `limit` bytes (default 64 KiB); rejects with a `RequestError` of
   * status 413 beyond. The gateway's `limits.requestTimeout` bounds the time it takes.
   */
  body(limit?: number): Promise<Buffer>
  /** Where the stages report what they decided (absent in unit tests that do not trace). */
  trace?: RequestTrace | undefined
}

/** A response produced by the proxy itself. An object body is sent as JSON. */
export interface LocalResponse {
  status: number
  headers?: Record<string, string>
  body?: unknown
  /** The error code of an error answer (errors.ts), for logs and traces; never sent. */
  code?: RequestErrorCode
}

/**
 * The answer to error `code` (its status and wire `error` from the table in errors.ts), with
 * `description` as `error_description`.
 */
export function errorResponse(
  code: RequestErrorCode,
  description: string,
  headers?: Record<string, string>,
): LocalResponse {
  return fromRequestError(new RequestError(code, description, { headers: headers ?? {} }))
}

/**
 * The answer to a {@link RequestError}: its status, its headers, `Cache-Control: no-store` and
 * the JSON body `{ error, error_description }` (RFC 6749 §5.2) — every error the proxy answers.
 */
export function fromRequestError(err: RequestError): LocalResponse {
  return {
    status: err.status,
    headers: { 'cache-control': 'no-store', ...err.headers },
    body: { error: err.error, error_description: err.message },
    code: err.code,
  }
}

/**
 * A {@link RequestError} as a whole HTTP/1.1 response that closes the connection, for the cases
 * the HTTP server hands over a bare socket (a request it could not parse, `CONNECT`).
 */
export function rawErrorResponse(err: RequestError): string {
  const body = JSON.stringify({ error: err.error, error_description: err.message })
  return (
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? 'Error'}\r\n` +
    'content-type: application/json\r\ncache-control: no-store\r\nconnection: close\r\n' +
    Object.entries(err.headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('') +
    `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  )
}

/** Writes a response the proxy produced itself; a response already started is cut instead. */
export function sendLocal(
  res: ServerResponse,
  local: LocalResponse,
  extraHeaders: Record<string, string>,
): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  const headers: Record<string, string> = { ...local.headers, ...extraHeaders }
  let body: string | Buffer | undefined
  if (local.body === undefined || local.body === null) {
    body = undefined
  } else if (typeof local.body === 'string' || Buffer.isBuffer(local.body)) {
    body = local.body
  } else {
    body = JSON.stringify(local.body)
    headers['content-type'] ??= 'application/json'
  }
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body))
  res.writeHead(local.status, headers)
  res.end(body)
}
