/**
 * Requests the proxy answers itself (OAuth discovery, registration, errors), in a shape that is
 * independent of the HTTP server: handlers return a {@link LocalResponse}, the dataplane writes it
 * (adding CORS), so handlers stay testable without a server.
 */
import type { IncomingHttpHeaders } from 'node:http'

/** A request as seen by a local handler. */
export interface LocalRequest {
  method: string
  /** Path without the query. */
  path: string
  headers: IncomingHttpHeaders
  /** Every value of each header (Node's `headersDistinct`; `headers` drops repeated ones). */
  headersDistinct: Readonly<Record<string, readonly string[] | undefined>>
  /** Reads the body, at most `limit` bytes (default 64 KiB); rejects with status 413 beyond. */
  body(limit?: number): Promise<Buffer>
}

/** A response produced by the proxy itself. An object body is sent as JSON. */
export interface LocalResponse {
  status: number
  headers?: Record<string, string>
  body?: unknown
}

/** The JSON error body of every error the proxy answers: `{ error, error_description }`. */
export function errorResponse(
  status: number,
  error: string,
  description: string,
  headers?: Record<string, string>,
): LocalResponse {
  return {
    status,
    headers: { 'cache-control': 'no-store', ...headers },
    body: { error, error_description: description },
  }
}
