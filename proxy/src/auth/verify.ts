/**
 * Bearer JWT verification (seed: Authentication 2): signature against the provider's keys,
 * `iss` equal to the configured issuer, `aud` containing a configured audience, `exp`/`nbf` with a
 * clock skew (default 60 s). Only asymmetric algorithms are accepted, and the algorithm must fit
 * the key (jose checks it): `none` and HMAC signed with a public key are refused (RFC 8725 §3.1).
 * A token must carry `exp` (RFC 9068 §2.2: REQUIRED in a JWT access token), and a header that
 * lists critical extensions (`crit`) is refused, since the gateway understands none
 * (RFC 7515 §4.1.11).
 *
 * Successful verifications are cached per token until `exp`, in a bounded LRU, so a client that
 * sends the same token on every MCP request pays for the signature once, and a flood of distinct
 * tokens evicts the least recently used rather than the tokens of active clients.
 */
import {
  decodeJwt,
  decodeProtectedHeader,
  errors,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
  type ProtectedHeaderParameters,
  UnsecuredJWT,
} from 'jose'
import { LRUCache } from 'lru-cache'
import type { ErrorCode } from '../errors.js'
import type { TokenCheck } from '../telemetry/trace-events.js'
import type { KeySet } from './jwks.js'
import { verifySignature } from './jws-signature.js'

/** Asymmetric JWS algorithms (RFC 7518 §3.1, RFC 8037). */
export const ACCEPTED_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
]

/**
 * One provider's verification settings (issuer, audiences, clock skew, key set), compiled from
 * its `JwtProviderConfig`: what a {@link TokenVerifier} checks a token against.
 */
export interface ProviderVerifyConfig {
  issuer: string
  audiences: string[]
  clockSkewSec: number
  keys: KeySet
}

/** Why a token was refused: the failed check and a description safe to show the client. */
export interface VerifyFailure {
  ok: false
  /** `no_keys` when the key set was never loaded (fail closed), else the failed check. */
  check: TokenCheck
  description: string
  /** The error code of a failure that is the gateway's, not the token's (no keys). */
  code?: ErrorCode
}

/** A verified token. */
export interface VerifySuccess {
  ok: true
  claims: Readonly<JWTPayload>
  issuer: string
}

/**
 * The protected header `{"alg":"none"}`: with a token's payload, jose's claim validation
 * (`UnsecuredJWT.decode`) runs on a token whose signature was checked already.
 */
const UNSECURED_HEADER = Buffer.from('{"alg":"none"}').toString('base64url')

/** Verified tokens remembered at most (about 2 KB each with their claims). */
const CACHE_MAX = 10_000

interface CachedVerification {
  claims: Readonly<JWTPayload>
  issuer: string
}

/** Verifies tokens against one or more providers, with a per-token result cache. */
export class TokenVerifier {
  readonly #providers: ProviderVerifyConfig[]
  // Each entry lives until its token's exp (lru-cache checks the TTL on read). Bounded by
  // `maxSize` with every entry counted 1, not by `max`: with `max`, lru-cache allocates its index
  // and TTL arrays for all 10,000 entries up front (about 370 KiB per verifier, so per JWT policy,
  // before a single token: docs/design/performance.md); with `maxSize` they grow with the entries.
  readonly #cache = new LRUCache<string, CachedVerification>({
    maxSize: CACHE_MAX,
    sizeCalculation: () => 1,
    ttlAutopurge: false,
  })

  constructor(providers: ProviderVerifyConfig[]) {
    this.#providers = providers
    for (const p of providers) p.keys.onChange(() => this.#cache.clear())
  }

  async verify(token: string): Promise<VerifySuccess | VerifyFailure> {
    const cached = this.#cache.get(token)
    if (cached) return { ok: true, claims: cached.claims, issuer: cached.issuer }
    let unverified: JWTPayload
    let header: ProtectedHeaderParameters
    try {
      header = decodeProtectedHeader(token)
      unverified = decodeJwt(token)
    } catch {
      return { ok: false, check: 'malformed', description: 'the bearer token is not a JWT' }
    }
    if (header.crit !== undefined) return criticalExtension(header.crit)
    const provider = this.#providers.find((p) => p.issuer === unverified.iss)
    if (!provider) {
      return {
        ok: false,
        check: 'issuer',
        description: 'the token was not issued by an accepted issuer',
      }
    }
    const result = await this.#verifyWith(provider, token, header)
    if (result.ok && typeof result.claims.exp === 'number') {
      // exp is required (checked above), so every cached token has a lifetime.
      const ttl = result.claims.exp * 1000 - Date.now()
      if (ttl > 0) this.#cache.set(token, { claims: result.claims, issuer: result.issuer }, { ttl })
    }
    return result
  }

  async #verifyWith(
    provider: ProviderVerifyConfig,
    token: string,
    header: ProtectedHeaderParameters,
  ): Promise<VerifySuccess | VerifyFailure> {
    const getKey = provider.keys.getKey
    if (!getKey) {
      return {
        ok: false,
        check: 'no_keys',
        code: 'GW_ERR_JWKS_UNAVAILABLE',
        description:
          'the signing keys of the issuer are not available; the token cannot be verified',
      }
    }
    // The provider was chosen by the token's iss, so jose's issuer check holds: a second guard.
    const options = {
      algorithms: ACCEPTED_ALGORITHMS,
      // RFC 9068 §2.2: exp is REQUIRED; a token without it would be valid forever.
      requiredClaims: ['exp'],
      clockTolerance: provider.clockSkewSec,
      issuer: provider.issuer,
      audience: provider.audiences,
    }
    const verifyWith = async (getKey: JWTVerifyGetKey): Promise<VerifySuccess> => {
      const { alg } = header
      // An algorithm outside the list: jose refuses it with its own error (JOSEAlgNotAllowed).
      if (typeof alg !== 'string' || !ACCEPTED_ALGORITHMS.includes(alg)) {
        const { payload } = await jwtVerify(token, getKey, options)
        return { ok: true, claims: payload, issuer: provider.issuer }
      }
      // jose selects the key (kid, alg); node:crypto checks the signature where it can
      // (jws-signature.ts), and jose validates the claims. Otherwise jose does it all.
      const [protectedHeader = '', payload = '', signature = ''] = token.split('.')
      const key = await getKey(
        { ...header, alg },
        { protected: protectedHeader, payload, signature },
      )
      if (verifySignature(token, alg, key)) {
        const claims = UnsecuredJWT.decode(`${UNSECURED_HEADER}.${payload}.`, options).payload
        return { ok: true, claims, issuer: provider.issuer }
      }
      const verified = await jwtVerify(token, key, options)
      return { ok: true, claims: verified.payload, issuer: provider.issuer }
    }
    try {
      return await verifyWith(getKey)
    } catch (err) {
      // A rotation at the IdP: fetch the key set again (rate-limited) and retry once.
      if (!(err instanceof errors.JWKSNoMatchingKey)) return describeFailure(err)
      if (!(await provider.keys.refetchForUnknownKid())) return describeFailure(err)
    }
    try {
      return await verifyWith(provider.keys.getKey ?? getKey)
    } catch (err) {
      return describeFailure(err)
    }
  }
}

function describeFailure(err: unknown): VerifyFailure {
  if (err instanceof errors.JWTExpired)
    return { ok: false, check: 'expired', description: 'the token has expired' }
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'nbf')
      return { ok: false, check: 'not_yet_valid', description: 'the token is not yet valid' }
    if (err.claim === 'aud') {
      return { ok: false, check: 'audience', description: 'the token is not for this audience' }
    }
    if (err.reason === 'missing') {
      return {
        ok: false,
        check: 'claims',
        description: `the token has no ${err.claim} claim; an access token must carry ${err.claim} (RFC 9068 §2.2)`,
      }
    }
    return { ok: false, check: 'claims', description: `invalid ${err.claim} claim` }
  }
  if (err instanceof errors.JOSEAlgNotAllowed || err instanceof errors.JOSENotSupported) {
    return {
      ok: false,
      check: 'algorithm',
      description: 'the token is signed with an algorithm that is not accepted',
    }
  }
  if (err instanceof errors.JWKSNoMatchingKey) {
    return { ok: false, check: 'signature', description: 'no key of the issuer matches the token' }
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) {
    return { ok: false, check: 'signature', description: 'the token signature is invalid' }
  }
  if (err instanceof errors.JWTInvalid || err instanceof errors.JWSInvalid) {
    return { ok: false, check: 'malformed', description: 'the bearer token is not a valid JWT' }
  }
  return { ok: false, check: 'signature', description: 'the token could not be verified' }
}

/** RFC 7515 §4.1.11: an extension the recipient does not understand makes the JWS invalid. */
function criticalExtension(crit: unknown): VerifyFailure {
  const names =
    // An empty list joins to '', which is refused as malformed too.
    Array.isArray(crit) && crit.every((c) => typeof c === 'string')
      ? crit.map((c) => JSON.stringify(c)).join(', ')
      : undefined
  return {
    ok: false,
    check: 'critical_extension',
    description: names
      ? `the token header marks the extension ${names} as critical (crit), and the gateway does not understand it (RFC 7515 §4.1.11)`
      : 'the token header has a malformed crit parameter: it must be a non-empty list of extension names (RFC 7515 §4.1.11)',
  }
}
