/**
 * The header sets of a proxied exchange: what goes up to the backend and what comes back down,
 * hop-by-hop fields removed both ways (RFC 9110 §7.6.1).
 */
import type { IncomingHttpHeaders } from 'node:http'

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

/**
 * Not forwarded upstream either: `Expect` (RFC 9110 §10.1.1) is answered by the gateway itself —
 * it sends `100 Continue` when it starts reading the body — and undici refuses it; `Host` is the
 * backend's own.
 */
const ANSWERED_HERE = new Set(['expect', 'host'])

/** Header changes from policies (`transformations`). */
export interface HeaderChanges {
  set: Record<string, string>
  remove: string[]
}

function connectionTokens(value: string | string[] | undefined): string[] {
  if (!value) return []
  return (Array.isArray(value) ? value.join(',') : value)
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean)
}

function forwardable(name: string, drop: readonly string[]): boolean {
  return !HOP_BY_HOP.has(name) && !(drop.length > 0 && drop.includes(name))
}

/**
 * The headers sent upstream: hop-by-hop and `Expect` removed, `Host` left to undici (the
 * backend's own), `X-Forwarded-For/-Proto/-Host` set (RFC 7239 predecessors, as most backends
 * read them), then the policies' changes — which cannot bring hop-by-hop fields back.
 */
export function upstreamHeaders(
  headers: IncomingHttpHeaders,
  clientIp: string | undefined,
  stripAuthorization: boolean,
  changes?: HeaderChanges,
): Record<string, string | string[]> {
  const drop = connectionTokens(headers.connection)
  const out: Record<string, string | string[]> = {}
  for (const name in headers) {
    if (ANSWERED_HERE.has(name) || !forwardable(name, drop)) continue
    if (stripAuthorization && name === 'authorization') continue
    const v = headers[name]
    if (v !== undefined) out[name] = v
  }
  const prior = headers['x-forwarded-for']
  out['x-forwarded-for'] = prior ? `${prior}, ${clientIp ?? 'unknown'}` : (clientIp ?? 'unknown')
  out['x-forwarded-proto'] = 'http'
  if (headers.host) out['x-forwarded-host'] = headers.host
  if (!changes) return out
  for (const name of changes.remove) delete out[name]
  for (const name in changes.set) {
    if (!ANSWERED_HERE.has(name) && forwardable(name, [])) out[name] = changes.set[name] as string
  }
  return out
}

/** The backend's response headers as sent to the client, plus `extra` (CORS; `Vary` merged). */
export function downstreamHeaders(
  headers: Record<string, string | string[] | undefined>,
  extra: Record<string, string>,
): Record<string, string | string[]> {
  const drop = connectionTokens(headers.connection)
  const out: Record<string, string | string[]> = {}
  for (const name in headers) {
    if (!forwardable(name, drop)) continue
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
