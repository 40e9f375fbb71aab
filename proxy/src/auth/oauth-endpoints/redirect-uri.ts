/**
 * The one check of a client's redirect URIs, used wherever a client states them: the broker's
 * registration endpoint, Client ID Metadata Documents, and the pass-through `mcp.clientId`
 * registration (docs/design/broker.md, docs/design/hardening.md). A redirect URI that passes is absolute, https (or http on
 * a loopback host, RFC 8252 §7.3 / §8.3), without fragment (RFC 6749 §3.1.2) or userinfo, and
 * written plainly (no whitespace or control characters that a parser would drop or a browser would
 * read differently). Matching later is by exact string comparison (OAuth 2.1 §4.1.3).
 */

/** Longest redirect URI accepted, in characters. */
export const MAX_REDIRECT_URI_LENGTH = 2000
/** Most redirect URIs one client may register. */
export const MAX_REDIRECT_URIS = 20

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]'])

/** Whether a URL's host name is a loopback host: `localhost`, 127.0.0.0/8 or `[::1]`. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase()
  return LOOPBACK_HOSTS.has(h) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
}

/**
 * Why `uri` cannot be a redirect URI, or `undefined` when it can.
 * @returns a sentence naming the rule broken and what to send instead.
 */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return 'expected a string'
  if (uri.length === 0) return 'is empty; send an absolute https URL'
  if (uri.length > MAX_REDIRECT_URI_LENGTH) {
    return `is longer than ${MAX_REDIRECT_URI_LENGTH} characters`
  }
  // WHATWG URL parsing drops leading/trailing spaces and tabs/newlines inside: the URI the
  // browser is sent to would not be the one that was registered.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\s\u0000-\u001f\u007f\\]/.test(uri)) {
    return 'contains whitespace, a control character or a backslash; send the URI percent-encoded'
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(uri)?.[1]?.toLowerCase()
  if (!scheme) return 'is not an absolute URI (RFC 6749 §3.1.2: the redirect URI MUST be absolute)'
  if (scheme !== 'https' && scheme !== 'http') {
    return `uses the scheme "${scheme}:"; only https (or http on a loopback host, RFC 8252 §7.3) is accepted`
  }
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return 'is not a valid URL'
  }
  if (!/^https?:\/\/[^/?#]/i.test(uri) || url.hostname === '') return 'has no host'
  if (url.username !== '' || url.password !== '' || /^https?:\/\/[^/?#]*@/i.test(uri)) {
    return 'contains userinfo (user@host); remove it'
  }
  if (uri.includes('#')) return 'contains a fragment (RFC 6749 §3.1.2: MUST NOT include one)'
  if (scheme === 'http' && !isLoopbackHost(url.hostname)) {
    return 'uses http on a host that is not loopback; use https (http only for localhost, 127.0.0.1 or [::1], RFC 8252 §7.3)'
  }
  return undefined
}

/**
 * Why a client's `redirect_uris` cannot be accepted, naming the member (`redirect_uris[1]: …`), or
 * `undefined` when every one passes {@link redirectUriProblem}.
 */
export function redirectUrisProblem(uris: unknown): string | undefined {
  if (!Array.isArray(uris)) return 'redirect_uris: expected an array of URLs'
  if (uris.length === 0) {
    return 'redirect_uris: is empty; the authorization code flow needs at least one redirect URI'
  }
  if (uris.length > MAX_REDIRECT_URIS) {
    return `redirect_uris: at most ${MAX_REDIRECT_URIS} are accepted, got ${uris.length}`
  }
  for (const [i, uri] of uris.entries()) {
    const problem = redirectUriProblem(uri)
    if (problem) return `redirect_uris[${i}]: ${problem}`
  }
  return undefined
}

/** Whether `uri` is a valid redirect URI on a loopback host (RFC 8252 §7.3). */
export function isLoopbackRedirect(uri: string): boolean {
  if (redirectUriProblem(uri) !== undefined) return false
  return isLoopbackHost(new URL(uri).hostname)
}
