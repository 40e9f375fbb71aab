/**
 * The broker's two browser cookies (MCP security best practices, "Confused Deputy": consent is
 * remembered in a cookie the server signs; the authorization is bound to the browser that gave
 * it):
 *
 * - the **browser binding** (`gatehouse_broker`): a random nonce identifying this browser. The
 *   consent form's CSRF token is a MAC over it, and a pending authorization records its digest,
 *   so the IdP's return is accepted only in the browser that consented (a captured IdP URL
 *   opened in a victim's browser is refused).
 * - the **remembered consents** (`gatehouse_consent`): signed list of (client, redirect URI,
 *   scopes, expiry) the user approved, so the consent page is not shown again for them.
 *
 * Both are HttpOnly and SameSite=Lax (sent on the top-level redirects back from the IdP, never
 * on cross-site subrequests or POSTs). On an https issuer they are `__Host-` cookies (Secure,
 * Path=/, no Domain; RFC 6265bis §4.1.3.2); on http (loopback demos) they are limited to the
 * broker's path.
 */
import type { IncomingHttpHeaders } from 'node:http'

/** The cookie names and attributes of one issuer. */
export class BrokerCookies {
  readonly browserName: string
  readonly consentName: string
  readonly #attributes: string

  /** @param issuer the broker's issuer (`http://127.0.0.1:3000/mcp`) */
  constructor(issuer: string) {
    const url = new URL(issuer)
    const secure = url.protocol === 'https:'
    const prefix = secure ? '__Host-' : ''
    this.browserName = `${prefix}gatehouse_broker`
    this.consentName = `${prefix}gatehouse_consent`
    const path = secure ? '/' : `${url.pathname.replace(/\/$/, '')}/oauth/`
    this.#attributes = `Path=${path}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`
  }

  /** A `Set-Cookie` value; `maxAgeSeconds` 0 deletes the cookie. */
  set(name: string, value: string, maxAgeSeconds?: number): string {
    const age =
      maxAgeSeconds === undefined ? '' : `; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`
    return `${name}=${value}; ${this.#attributes}${age}`
  }
}

/** The value of one cookie in the request (`undefined` when absent or sent twice differently). */
export function readCookie(headers: IncomingHttpHeaders, name: string): string | undefined {
  const raw = headers.cookie
  if (!raw) return undefined
  let found: string | undefined
  for (const part of raw.split(';')) {
    const eq = part.indexOf('=')
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue
    const value = part.slice(eq + 1).trim()
    // Two different values (one planted by a sibling subdomain): trust neither.
    if (found !== undefined && found !== value) return undefined
    found = value
  }
  return found
}
