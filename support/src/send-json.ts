/** A JSON response, written the one way the mocks and test servers write it. */
import type { ServerResponse } from 'node:http'

/**
 * Answers with `body` as JSON: `Content-Type: application/json` and its `Content-Length`
 * (RFC 9110 §8.6), then `headers`, which may add to or replace those two.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string | number>> = {},
): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  })
  res.end(text)
}
