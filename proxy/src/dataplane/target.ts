/**
 * The request target, read and normalised before routing, so that the path a route is matched
 * against is exactly the path forwarded to the backend: no spelling of a path can be matched as
 * one route and understood by the backend as another (`/healthz/../mcp`, `/%2e%2e/mcp`, `//mcp`).
 *
 * - Forms (RFC 9112 §3.2): origin-form (`/mcp?x`) and absolute-form (`http://host/mcp`, §3.2.2,
 *   routed like origin-form, its authority replacing Host). Asterisk-form and anything else: 400.
 * - Percent-encoding (RFC 3986 §6.2.2.1-2): encoded unreserved characters are decoded (`%2e` is
 *   `.`, `%6D` is `m`), other triplets are kept with upper-case hex.
 * - Segments: runs of `/` are merged (as nginx's `merge_slashes` does), then dot segments are
 *   removed (RFC 3986 §5.2.4; `..` never climbs above the root).
 * - Rejected as ambiguous (backends disagree on them, so no normalisation is safe): `\` and
 *   `%5C` (WHATWG URL parsers read them as `/`), `%2F` (some backends decode it before routing),
 *   `%00`, a double-encoded triplet (`%252e`), a `.`/`..` segment with `;` parameters (`..;`,
 *   which Tomcat-style servers read as `..`), a malformed `%` escape, a fragment (`#`).
 * The query is forwarded untouched.
 */

/** A request target that passed. */
export interface Target {
  /** The normalised path: starts with `/`, no dot segments, no empty segments but a trailing one. */
  path: string
  /** The query with its leading `?`, or `''`. */
  query: string
  /** The authority of an absolute-form target (lower-case), which replaces Host (RFC 9112 §3.2.2). */
  authority?: string
}

/** What {@link parseTarget} says: the target, or why it was refused. */
export type TargetResult = { ok: true; target: Target } | { ok: false; reason: string }

const UNRESERVED = /[A-Za-z0-9\-._~]/
/** Characters a path needs no work for: anything but `%`, `\`, `/.` and `//`. */
const NEEDS_WORK = /[%\\]|\/\.|\/\//
/** host, `[v6]` or empty, then an optional port (RFC 3986 §3.2.2-3). */
const AUTHORITY = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]*)(?::\d*)?$/

function refuse(reason: string): TargetResult {
  return { ok: false, reason }
}

/** Whether a Host value (or absolute-form authority) is syntactically an authority without userinfo. */
export function isValidAuthority(value: string): boolean {
  return AUTHORITY.test(value)
}

/** Percent-decodes unreserved characters; `undefined` with a reason when the path is ambiguous. */
function decodeUnreserved(path: string): { path: string } | { reason: string } {
  let out = ''
  for (let i = 0; i < path.length; i++) {
    const c = path[i] as string
    if (c === '\\') return { reason: 'a backslash in the path (some backends read it as "/")' }
    if (c !== '%') {
      out += c
      continue
    }
    const hex = path.slice(i + 1, i + 3)
    if (!/^[0-9A-Fa-f]{2}$/.test(hex))
      return { reason: `a malformed percent-escape at "${path.slice(i, i + 3)}"` }
    const ch = String.fromCharCode(Number.parseInt(hex, 16))
    i += 2
    if (UNRESERVED.test(ch)) out += ch
    else if (ch === '/' || ch === '\\')
      return { reason: `an encoded "${ch}" (%${hex}) in the path` }
    else if (ch === '\0') return { reason: 'an encoded NUL (%00) in the path' }
    else if (ch === '%' && /^[0-9A-Fa-f]{2}/.test(path.slice(i + 1, i + 3))) {
      return { reason: 'a double-encoded percent-escape (%25 followed by hex digits)' }
    } else out += `%${hex.toUpperCase()}`
  }
  return { path: out }
}

/** RFC 3986 §5.2.4 over segments, with runs of `/` merged; undefined for a `..;` segment. */
function removeDotSegments(path: string): string | undefined {
  const segments = path.split('/')
  const out: string[] = []
  for (let i = 1; i < segments.length; i++) {
    const s = segments[i] as string
    const last = i === segments.length - 1
    if (s === '.' || s === '..') {
      if (s === '..') out.pop()
      if (last) out.push('')
    } else if (s === '' && !last) {
      // merged slash
    } else if (/^\.\.?;/.test(s)) {
      return undefined
    } else {
      out.push(s)
    }
  }
  return `/${out.join('/')}`
}

/** Normalises an origin-form path (see the module comment). */
export function normalizePath(
  path: string,
): { ok: true; path: string } | { ok: false; reason: string } {
  if (!NEEDS_WORK.test(path)) return { ok: true, path }
  const decoded = decodeUnreserved(path)
  if ('reason' in decoded) return { ok: false, reason: decoded.reason }
  const normal = removeDotSegments(decoded.path)
  if (normal === undefined) {
    return {
      ok: false,
      reason: 'a "." or ".." segment with ";" parameters (read as ".." by some backends)',
    }
  }
  return { ok: true, path: normal }
}

/** Splits an absolute-form target into authority and origin-form (RFC 9112 §3.2.2). */
function fromAbsoluteForm(url: string): { authority: string; rest: string } | undefined {
  const m = /^https?:\/\/([^/?]*)(.*)$/i.exec(url)
  if (!m) return undefined
  const rest = m[2] as string
  return {
    authority: (m[1] as string).toLowerCase(),
    rest: rest.startsWith('/') ? rest : `/${rest}`,
  }
}

/**
 * Reads a request target (`req.url`).
 * @returns the normalised path, the raw query and, for absolute-form, the authority; or why the
 * target is refused (answered with 400 `invalid_path`).
 */
export function parseTarget(url: string): TargetResult {
  if (url.includes('#')) return refuse('a fragment ("#") in the request target (RFC 9112 §3.2)')
  let authority: string | undefined
  let originForm = url
  if (!url.startsWith('/')) {
    const abs = fromAbsoluteForm(url)
    if (!abs)
      return refuse('the request target is neither a path nor an http(s) URL (RFC 9112 §3.2)')
    if (abs.authority === '' || !AUTHORITY.test(abs.authority)) {
      return refuse('the request target has no valid host, or has userinfo (RFC 9110 §4.2.4)')
    }
    authority = abs.authority
    originForm = abs.rest
  }
  const q = originForm.indexOf('?')
  const rawPath = q === -1 ? originForm : originForm.slice(0, q)
  const query = q === -1 ? '' : originForm.slice(q)
  const normal = normalizePath(rawPath)
  if (!normal.ok) return refuse(normal.reason)
  const target: Target = { path: normal.path, query }
  if (authority !== undefined) target.authority = authority
  return { ok: true, target }
}
