/**
 * The admin interface's guard against browsers, run before any endpoint (each of them can change
 * or reveal something: shut down, start a CPU profile, open trace watchers, dump the config). The
 * admin has no authentication, so a page the user visits must not be able to reach it:
 *
 * - **Origin** (a browser's request from a page): same-origin only, scheme included — the admin
 *   speaks plain `http`, so `https://127.0.0.1:15000` is another origin (RFC 6454 §5).
 * - **Sec-Fetch-Site** (Fetch Metadata, sent by browsers even where they omit Origin, such as a
 *   cross-site `GET` or `<img>`): only `same-origin` and `none` (the user typed the address) pass;
 *   `cross-site` and `same-site` (another origin of the same site, e.g. another port) are refused.
 * - **The authority** the request names: that of an absolute-form target when there is one, which
 *   a server must use instead of `Host` (RFC 9112 §3.2.2), else `Host`. On a loopback bind it must
 *   be a loopback name (DNS rebinding needs a name the attacker controls).
 */
import type { IncomingHttpHeaders } from 'node:http'
import { isLoopback } from './address.js'

/** What the guard reads of a request. */
export interface GuardedRequest {
  /** The raw request target (origin-form `/path?q` or absolute-form `http://host/path`). */
  url?: string | undefined
  headers: IncomingHttpHeaders
}

/** Host names a loopback-bound admin accepts (anything else may be DNS rebinding). */
function hostIsLoopback(host: string | undefined): boolean {
  if (!host) return true
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d+$/, '')
  return name === 'localhost' || name.endsWith('.localhost') || isLoopback(name)
}

/** The authority the request names: an absolute-form target's (RFC 9112 §3.2.2), else Host. */
export function requestAuthority(request: GuardedRequest): string | undefined {
  const target = request.url ?? ''
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
    try {
      return new URL(target).host
    } catch {
      return ''
    }
  }
  return request.headers.host
}

/** A browser's same-origin request names the admin's own scheme (http) and authority. */
function sameOrigin(origin: string, authority: string | undefined): boolean {
  try {
    const url = new URL(origin)
    return url.protocol === 'http:' && url.host === authority
  } catch {
    return false
  }
}

/** Fetch Metadata values a request from the admin's own pages (or the address bar) carries. */
const ALLOWED_FETCH_SITES = new Set(['same-origin', 'none'])

/**
 * Why the request is refused (a one-line text for the 403), or `undefined` to let it through.
 * @param loopbackOnly - the admin is bound to loopback: only loopback names are accepted
 * @param options.anySite - a page another site may send the browser to (the UI's OAuth callback,
 * which reveals and changes nothing): Origin and Fetch Metadata are not judged, the authority is
 */
export function browserRefusal(
  request: GuardedRequest,
  loopbackOnly: boolean,
  options: { anySite?: boolean } = {},
): string | undefined {
  const authority = requestAuthority(request)
  if (options.anySite) {
    return loopbackOnly && !hostIsLoopback(authority)
      ? `Host "${authority}" refused: the admin interface answers loopback names only`
      : undefined
  }
  const { origin } = request.headers
  if (origin !== undefined && !sameOrigin(origin, authority)) {
    return `cross-origin request from ${origin} refused: the admin interface is local only`
  }
  const site = request.headers['sec-fetch-site']
  if (site !== undefined && !ALLOWED_FETCH_SITES.has(site.toLowerCase())) {
    return `request from another site (Sec-Fetch-Site: ${site}) refused: the admin interface answers its own pages and direct requests only`
  }
  if (loopbackOnly && !hostIsLoopback(authority)) {
    return `Host "${authority}" refused: the admin interface answers loopback names only`
  }
  return undefined
}
