/**
 * Redaction for `/config_dump`: the dump is for debugging and may be pasted into an issue, so no
 * secret survives it (issue 5: client secrets, API tokens, keys' private parts, bearer tokens).
 * Redaction is by shape, not by a list of config paths, so a field added later is covered too.
 */

/** What replaces a secret. */
export const REDACTED = '<redacted>'

/** Field names (compared lower-case without `-`/`_`) whose values are secrets wherever they appear. */
const SECRET_FIELDS = new Set([
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'clientsecret',
  'secret',
  'password',
  'passphrase',
  'token',
  'apitoken',
  'apikey',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'bearertoken',
  'privatekey',
  'tlskey',
  'keypem',
])

/**
 * RFC 7518 §6.2.2 / §6.3.2 / §6.4: the private members of EC, RSA and symmetric ("oct") JWKs.
 * `oth` carries further RSA primes.
 */
const JWK_PRIVATE_MEMBERS = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'])

const PEM_PRIVATE = /-----BEGIN [A-Z ]*PRIVATE KEY-----/
const BEARER = /^\s*bearer\s+\S/i
/** A JWS/JWE compact serialization (RFC 7515 §7.1): an access or ID token. */
const COMPACT_JWT = /^eyJ[\w-]*\.[\w-]*\.[\w-]*(\.[\w-]*\.[\w-]*)?$/

function normalise(field: string): string {
  return field.toLowerCase().replace(/[-_]/g, '')
}

function redactString(value: string): string {
  if (PEM_PRIVATE.test(value) || BEARER.test(value) || COMPACT_JWT.test(value.trim())) {
    return REDACTED
  }
  // An inline JWKS given as a JSON string (`jwks.inline: '{"keys":[...]}'`).
  const trimmed = value.trim()
  if (trimmed.startsWith('{') && trimmed.endsWith('}')) {
    try {
      const parsed: unknown = JSON.parse(trimmed)
      const redacted = redactSecrets(parsed)
      if (JSON.stringify(redacted) !== JSON.stringify(parsed)) return JSON.stringify(redacted)
    } catch {
      // not JSON: an ordinary string
    }
  }
  return value
}

/**
 * Returns a deep copy of `value` with every secret replaced by {@link REDACTED}: fields named like
 * credentials (authorization, cookie, client secret, tokens, passwords, private keys), the private
 * members of anything that looks like a JWK (has `kty`), PEM private keys, bearer strings and
 * compact JWTs. Non-plain values (functions, class instances) are dropped to `null`.
 */
export function redactSecrets(value: unknown): unknown {
  if (typeof value === 'string') return redactString(value)
  if (value === null || typeof value !== 'object') {
    return typeof value === 'function' || typeof value === 'symbol' ? null : value
  }
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v))
  const obj = value as Record<string, unknown>
  const isJwk = typeof obj.kty === 'string'
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined) continue
    if (SECRET_FIELDS.has(normalise(k)) || (isJwk && JWK_PRIVATE_MEMBERS.has(k))) {
      out[k] = REDACTED
    } else {
      out[k] = redactSecrets(v)
    }
  }
  return out
}
