/** Small HTTP helpers shared by mock-idp's handlers. */
import type { IncomingMessage, ServerResponse } from 'node:http'

/** Whether a URL is `http://127.0.0.1|localhost:<any port>/<any path>`. */
export function isLoopbackHttp(value: string): boolean {
  try {
    const u = new URL(value)
    return (
      u.protocol === 'http:' &&
      (u.hostname === '127.0.0.1' || u.hostname === 'localhost' || u.hostname === '[::1]')
    )
  } catch {
    return false
  }
}

/** Sends an HTML page (never cached). */
export function html(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
  res.end(body)
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** Reads a request body as text, up to `limit` characters (RangeError beyond). */
export async function readBody(req: IncomingMessage, limit = 64 * 1024): Promise<string> {
  let body = ''
  for await (const chunk of req) {
    body += chunk
    if (body.length > limit) throw new RangeError('body too large')
  }
  return body
}
