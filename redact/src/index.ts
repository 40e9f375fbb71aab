/**
 * The one credential redaction of Gatehouse. The proxy's trace bus, logs and `/config_dump`,
 * gwctl and the conformance suite's evidence all call it, so a token hidden in one place is hidden
 * in all of them (docs/design/hardening.md: five copies had drifted apart).
 *
 * Redaction is conservative and by shape, not by a list of known places:
 * - every `Authorization` / `Proxy-Authorization` value keeps at most a well-formed scheme
 *   (`Bearer [redacted]`); a value without a scheme (`<jwt>`), or whose scheme is not followed by
 *   a space (`Bearer<TAB>…`, `Bearer,…`), becomes `[redacted]` as a whole;
 * - cookies and every header named like a credential (`X-Api-Key`, `X-Auth-Token`, `*-Secret`,
 *   `*-Key`, …);
 * - members named like a credential in objects, query strings, form bodies and JSON text
 *   (`access_token`, `refresh_token`, `client_secret`, `code`, …);
 * - anything shaped like a JWT (RFC 7515 §7.1 / RFC 7516 §7.1 compact serialization) or a PEM
 *   private key, anywhere in a string;
 * - the private members of JWKs (RFC 7518 §6).
 *
 * The cost is bounded (docs/design/hardening.md: logs and traces redact what clients send, before any
 * token is checked): every pattern runs in linear time (JWTs are found by a scanner, `jwt.ts`,
 * not a backtracking regex), a string is redacted up to {@link MAX_TEXT_CHARS} and truncated past
 * it, and one {@link redactValue} call reads at most {@link MAX_VALUE_CHARS} characters and
 * {@link MAX_DEPTH} levels of nesting.
 */
import { replaceJwts } from './jwt.js'

/** What replaces a secret. */
export const REDACTED = '[redacted]'

/** Characters of one string that are redacted and shown; the rest is cut off. */
export const MAX_TEXT_CHARS = 64 * 1024
/** Characters (of strings and member names) one {@link redactValue} call reads in all. */
export const MAX_VALUE_CHARS = 1024 * 1024
/** Nesting levels of objects and arrays {@link redactValue} descends into. */
export const MAX_DEPTH = 64

/** Object members whose value is a secret (compared lower-case without `-` and `_`). */
const SECRET_FIELDS = new Set([
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'clientsecret',
  'secret',
  'password',
  'passwd',
  'passphrase',
  'token',
  'apitoken',
  'apikey',
  'xapikey',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'bearertoken',
  'sessiontoken',
  'registrationaccesstoken',
  'codeverifier',
  'devicecode',
  'clientassertion',
  'subjecttoken',
  'actortoken',
  'privatekey',
  'tlskey',
  'keypem',
])

/**
 * Query, form and JSON-text members that are secrets. `code` (the authorization code, RFC 6749
 * §4.1.2) is one here but not as an object field, where `code` is usually an error code.
 */
const SECRET_PARAMS = [
  'access_token',
  'refresh_token',
  'id_token',
  'registration_access_token',
  'client_secret',
  'client_assertion',
  'assertion',
  'code',
  'code_verifier',
  'device_code',
  'subject_token',
  'actor_token',
  'token',
  'api_key',
  'apikey',
  'x-api-key',
  'password',
  'authorization',
  'cookie',
  'set-cookie',
].join('|')

/** Header names that carry a credential: named like one anywhere in the name. */
const SECRET_HEADER =
  /auth|token|secret|passw|cookie|credential|signature|api[-_]?key|(^|[-_])key([-_]|$)/i
/** Challenges name the scheme and the metadata URL, never a credential (RFC 9110 §11.6.1). */
const PUBLIC_HEADERS = new Set(['www-authenticate', 'proxy-authenticate'])

/** Schemes kept in front of `[redacted]` (IANA HTTP Authentication Scheme Registry; DPoP, RFC 9449; SSWS, the IdP's API tokens). */
const AUTH_SCHEME =
  /^(Bearer|Basic|DPoP|Digest|Negotiate|NTLM|HOBA|Mutual|GNAP|PrivateToken|SSWS) +\S/i

/** RFC 7518 §6.2.2 / §6.3.2 / §6.4: private members of EC, RSA and symmetric JWKs (`oth`: RSA). */
const JWK_PRIVATE_MEMBERS = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'])

const PEM_PRIVATE =
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g
/** `Bearer <credential>` in free text, with any separator a careless client uses. */
const SCHEME_CREDENTIAL =
  /\b(Bearer|Basic|DPoP|SSWS)(?:[ \t]+|[ \t]*[,:][ \t]*)[A-Za-z0-9\-._~+/]{8,}=*(?![=A-Za-z0-9\-._~+/"])/gi
/** A string that is nothing but a scheme and a credential, however short. */
const WHOLE_CREDENTIAL = /^\s*(Bearer|Basic|DPoP|SSWS)\s+[A-Za-z0-9\-._~+/]+=*\s*$/i
const PARAM = new RegExp(`([?&;]|^)(${SECRET_PARAMS})=[^&#\\s"']*`, 'gi')
const JSON_MEMBER = new RegExp(`"(${SECRET_PARAMS})"(\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'gi')

function normalise(field: string): string {
  return field.toLowerCase().replace(/[-_]/g, '')
}

/** Whether an object member (or query/form parameter) named `name` holds a secret. */
export function isSecretField(name: string): boolean {
  return SECRET_FIELDS.has(normalise(name))
}

/**
 * Options of the header-aware redactions: what an operator declares beyond the built-in rules.
 */
export interface RedactOptions {
  /**
   * More header names that carry a credential, lower-case (a deployment's own session header,
   * `x-session`): their values are redacted whole, like `X-Api-Key`.
   */
  readonly secretHeaders?: ReadonlySet<string> | undefined
}

/** Whether the HTTP header `name` carries a credential (`Authorization`, `Cookie`, `X-Api-Key`, …). */
export function isSecretHeader(name: string, options?: RedactOptions): boolean {
  const lower = name.toLowerCase()
  if (options?.secretHeaders?.has(lower)) return true
  return !PUBLIC_HEADERS.has(lower) && SECRET_HEADER.test(lower)
}

/**
 * An `Authorization` value as it may be shown: `Bearer [redacted]` when the value starts with a
 * registered scheme and a space, else `[redacted]` (a bare token, `Bearer<TAB>…`, `Bearer,…`).
 */
export function redactAuthorization(value: string): string {
  const scheme = AUTH_SCHEME.exec(value)?.[1]
  return scheme ? `${scheme} ${REDACTED}` : REDACTED
}

/** One header value as it may be shown. */
export function redactHeaderValue(name: string, value: string, options?: RedactOptions): string {
  const lower = name.toLowerCase()
  if (lower === 'authorization' || lower === 'proxy-authorization')
    return redactAuthorization(value)
  if (isSecretHeader(lower, options)) return REDACTED
  return redactText(value)
}

/** Headers as a plain object, a `Headers` instance or Node's `IncomingHttpHeaders`. */
export type HeadersLike =
  | Headers
  | Iterable<readonly [string, string]>
  | Readonly<Record<string, string | readonly string[] | number | undefined>>

/**
 * Headers as they may be shown: credential headers redacted (see {@link isSecretHeader}) and any
 * JWT in another header's value. Names keep their case; `undefined` values are dropped.
 */
export function redactHeaders(
  headers: HeadersLike,
  options?: RedactOptions,
): Record<string, string | string[]> {
  const entries: Iterable<readonly [string, unknown]> =
    headers instanceof Headers || Symbol.iterator in headers
      ? (headers as Iterable<readonly [string, string]>)
      : Object.entries(headers)
  const out: Record<string, string | string[]> = {}
  for (const [name, value] of entries) {
    if (value === undefined) continue
    out[name] = Array.isArray(value)
      ? value.map((v) => redactHeaderValue(name, String(v), options))
      : redactHeaderValue(name, String(value), options)
  }
  return out
}

/**
 * A free string as it may be shown (a URL, a body excerpt, a log message): JWTs, PEM private keys,
 * `Bearer <credential>`, and secret members of query strings, form bodies and JSON text are
 * replaced. A string holding a JSON object (an inline JWKS) is redacted member by member.
 */
export function redactText(text: string): string {
  if (text.length > MAX_TEXT_CHARS) return truncated(text)
  return redactBounded(text)
}

/** Characters a credential may end with: cutting one leaves its start, which is dropped too. */
const CREDENTIAL_CHAR = /[A-Za-z0-9\-._~+/=]/

/**
 * The first {@link MAX_TEXT_CHARS} characters redacted, then a marker. The cut never leaves the
 * start of a token: the run of credential characters it falls in is dropped whole.
 */
function truncated(text: string): string {
  let end = MAX_TEXT_CHARS
  while (end > 0 && CREDENTIAL_CHAR.test(text.charAt(end - 1))) end--
  return `${redactBounded(text.slice(0, end))}[truncated: ${text.length - end} more characters]`
}

function redactBounded(text: string): string {
  const trimmed = text.trim()
  if (trimmed.startsWith('{') && trimmed.endsWith('}')) {
    try {
      const parsed: unknown = JSON.parse(trimmed)
      const redacted = redactValue(parsed)
      if (JSON.stringify(redacted) !== JSON.stringify(parsed)) return JSON.stringify(redacted)
    } catch {
      // not JSON: an ordinary string
    }
  }
  const whole = WHOLE_CREDENTIAL.exec(text)
  if (whole) return `${whole[1]} ${REDACTED}`
  return replaceJwts(text.replace(PEM_PRIVATE, REDACTED), REDACTED)
    .replace(SCHEME_CREDENTIAL, (_m, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(PARAM, (_m, sep: string, key: string) => `${sep}${key}=${REDACTED}`)
    .replace(JSON_MEMBER, (_m, key: string, colon: string) => `"${key}"${colon}"${REDACTED}"`)
}

/** A URL as it may be shown: secret query members and any JWT replaced. */
export function redactUrl(url: string): string {
  return redactText(url)
}

/**
 * A deep copy of `value` as it may be shown: members named like credentials (see
 * {@link isSecretField}), every member of an object named `…headers` by the header rules, the
 * private members of JWKs (objects with `kty`), and every string through {@link redactText}.
 * Functions and symbols become `null`; an `Error` becomes `{ type, message, stack }`.
 */
export function redactValue(value: unknown, options?: RedactOptions): unknown {
  return redactWithin(value, { left: MAX_VALUE_CHARS, options }, 0)
}

/** What is left of a {@link redactValue} call's budget, and the call's options. */
interface Budget {
  left: number
  readonly options: RedactOptions | undefined
}

function redactStringWithin(text: string, budget: Budget): string {
  if (budget.left <= 0) return `[truncated: ${text.length} characters]`
  budget.left -= Math.min(text.length, MAX_TEXT_CHARS)
  return redactText(text)
}

function redactWithin(value: unknown, budget: Budget, depth: number): unknown {
  if (typeof value === 'string') return redactStringWithin(value, budget)
  if (typeof value === 'function' || typeof value === 'symbol') return null
  if (value === null || typeof value !== 'object') return value
  if (value instanceof Date) return value
  if (depth >= MAX_DEPTH) return `[truncated: nesting deeper than ${MAX_DEPTH}]`
  budget.left--
  if (Array.isArray(value)) return value.map((v) => redactWithin(v, budget, depth + 1))
  if (value instanceof Error) {
    return {
      type: value.name,
      message: redactStringWithin(value.message, budget),
      ...(value.stack ? { stack: redactStringWithin(value.stack, budget) } : {}),
    }
  }
  const obj = value as Record<string, unknown>
  const isJwk = typeof obj.kty === 'string'
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined) continue
    budget.left -= k.length
    if (isSecretField(k)) {
      out[k] =
        typeof v === 'string' && /^(proxy-?)?authorization$/i.test(k)
          ? redactAuthorization(v)
          : REDACTED
    } else if (isJwk && JWK_PRIVATE_MEMBERS.has(k)) {
      out[k] = REDACTED
    } else if (/headers$/i.test(k) && v !== null && typeof v === 'object' && !Array.isArray(v)) {
      out[k] = redactHeaders(v as Record<string, string>, budget.options)
    } else {
      out[k] = redactWithin(v, budget, depth + 1)
    }
  }
  return out
}

/** CEL string literals (cel-spec, Lexical structure): quoted, triple-quoted, raw or bytes. */
const CEL_STRING =
  /[rRbB]{0,2}("""[\s\S]*?"""|'''[\s\S]*?'''|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')/g

/**
 * A CEL expression as it may be shown: every non-empty string literal becomes `"[redacted]"`, so
 * `jwt.sub` stays readable and a static secret written as a literal (`"Bearer sk-…"`) does not.
 */
export function redactExpression(expression: string): string {
  return expression.replace(CEL_STRING, (literal, quoted: string) =>
    quoted.length <= 2 || /^("""|''')\1$/.test(quoted) ? literal : `"${REDACTED}"`,
  )
}
