/**
 * Opaque access tokens, validated by the IdP (docs/idp/opaque-tokens.md): RFC 7662 token
 * introspection with the gateway's client credentials, or an OpenID Connect UserInfo request with
 * the token (OIDC Core §5.3), for IdPs that offer no introspection (Google). The answer's members
 * become the request's claims, which the route's rules read as `jwt.*`.
 *
 * Fail closed: the IdP unreachable, slow past `timeout`, answering 5xx, an unexpected status or
 * anything but a JSON object, or more than {@link MAX_ANSWER_BYTES}, refuses the request with 503
 * (`GW_ERR_TOKEN_VALIDATION_UNAVAILABLE`) — never lets it through, and never says more to the
 * client than that the IdP could not be asked (the cause goes to the operator's log).
 *
 * RFC 7662 §2.2 makes every member but `active` optional; what the gateway requires of the rest:
 * - `aud` must be present and contain a configured audience (a token for another API is refused);
 * - `iss`, when present, must equal the configured issuer (absent: the answer came from the
 *   configured endpoint, whose issuer that is);
 * - `exp`/`nbf`, when present, are checked with the clock skew; `exp` also ends the caching;
 * - `token_type`, when present, must be `Bearer` (a refresh token sent as a bearer is refused);
 * - `cnf` (a sender-constrained token, RFC 8705 §3.2 / RFC 9449 §6.2) is refused: the gateway
 *   checks no proof of possession, so accepting it as a bearer token would defeat the binding.
 */
import type { OpaqueTokensConfig } from '../config/schema.js'
import type { ErrorCode } from '../errors.js'
import type { Upstream } from '../http/upstream.js'
import type { TokenCheck } from '../telemetry/trace-events.js'
import { describeError, requestUpstream } from './fetch.js'
import { OpaqueTokenCache } from './opaque-cache.js'
import { IdpCallLimit } from './opaque-limit.js'

/** Bytes accepted in one introspection or UserInfo answer: a claims set is a few KiB. */
export const MAX_ANSWER_BYTES = 64 * 1024

/** A validated opaque token: its claims (the IdP's answer) and the configured issuer. */
export interface OpaqueSuccess {
  ok: true
  claims: Readonly<Record<string, unknown>>
  issuer: string
}

/** A refused token, or an IdP that could not be asked (`code` set: answer 503, not 401). */
export interface OpaqueFailure {
  ok: false
  check: TokenCheck
  /** Safe to show the client: says nothing about the IdP's address or answer. */
  description: string
  code?: ErrorCode
  /** For the operator's log only: why the IdP could not be asked. */
  cause?: string
}

type Outcome = OpaqueSuccess | OpaqueFailure

/** Validates opaque tokens against one IdP endpoint, remembering accepted ones. */
export class OpaqueTokenValidator {
  readonly #config: OpaqueTokensConfig
  readonly #upstream: Upstream
  readonly #cache: OpaqueTokenCache<Outcome>
  readonly #limit: IdpCallLimit

  constructor(config: OpaqueTokensConfig, upstream: Upstream) {
    this.#config = config
    this.#upstream = upstream
    this.#cache = new OpaqueTokenCache(
      config.cacheSize,
      config.cacheDuration.ms,
      config.refusalCacheDuration.ms,
    )
    this.#limit = new IdpCallLimit({
      perSource: config.idpCallLimit.perSource,
      windowMs: config.idpCallLimit.window.ms,
      maxInFlight: config.idpCallLimit.maxInFlight,
    })
  }

  /** `introspection` or `userinfo`. */
  get mode(): 'introspection' | 'userinfo' {
    return this.#config.introspection ? 'introspection' : 'userinfo'
  }

  /**
   * Accepts or refuses a token; concurrent calls for one token share one call to the IdP, and a
   * call the IdP must answer counts against `source` (the client's address; opaque-limit.ts).
   */
  validate(token: string, source?: string): Promise<Outcome> {
    return this.#cache.get(token, async () => {
      const admitted = this.#limit.take(source)
      if (!admitted.ok) {
        const outcome = unavailable(
          admitted.cause === 'source'
            ? `this client address caused ${this.#config.idpCallLimit.perSource} calls to the IdP within ${this.#config.idpCallLimit.window.text} (idpCallLimit.perSource); not asked`
            : `${this.#config.idpCallLimit.maxInFlight} calls to the IdP are running (idpCallLimit.maxInFlight); not asked`,
        )
        return { value: outcome, ttlMs: undefined }
      }
      try {
        const outcome = await this.#ask(token).catch(
          (err: unknown): Outcome => unavailable(describeError(err)),
        )
        if (outcome.ok) return { value: outcome, ttlMs: this.#ttlMs(outcome.claims) }
        // The IdP's refusal is remembered briefly; its failure to answer is not.
        return outcome.code === undefined
          ? { value: outcome, ttlMs: this.#config.refusalCacheDuration.ms, refused: true }
          : { value: outcome, ttlMs: undefined }
      } finally {
        admitted.release()
      }
    })
  }

  /** A view for `/config_dump`: no client secret. */
  dump(): Record<string, unknown> {
    const c = this.#config
    const endpoint = c.introspection ?? c.userinfo
    return {
      mode: this.mode,
      issuer: c.issuer,
      audiences: c.audiences ?? null,
      backend: endpoint?.backendRef.name ?? null,
      path: endpoint?.path ?? null,
      ...(c.introspection
        ? { clientId: c.introspection.clientId, authMethod: c.introspection.authMethod }
        : {}),
      cacheDuration: c.cacheDuration.text,
      cacheSize: c.cacheSize,
      cached: this.#cache.size,
      refusalCacheDuration: c.refusalCacheDuration.text,
      refusalsCached: this.#cache.refusals,
      idpCallLimit: {
        perSource: c.idpCallLimit.perSource,
        window: c.idpCallLimit.window.text,
        maxInFlight: c.idpCallLimit.maxInFlight,
      },
      idpCallsInFlight: this.#limit.inFlight,
      timeout: c.timeout.text,
    }
  }

  /** How long an accepted token is remembered: until its exp, at most `cacheDuration`. */
  #ttlMs(claims: Readonly<Record<string, unknown>>): number {
    const exp = claims.exp
    return typeof exp === 'number' ? exp * 1000 - Date.now() : this.#config.cacheDuration.ms
  }

  async #ask(token: string): Promise<Outcome> {
    const { introspection, userinfo } = this.#config
    if (introspection) {
      const form = new URLSearchParams({ token, token_type_hint: 'access_token' })
      const headers: Record<string, string> = {
        'content-type': 'application/x-www-form-urlencoded',
      }
      // RFC 6749 §2.3.1: Basic credentials are the form-encoded id and secret.
      if (introspection.authMethod === 'client_secret_basic') {
        const pair = `${formEncode(introspection.clientId)}:${formEncode(introspection.clientSecret)}`
        headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`
      } else {
        form.set('client_id', introspection.clientId)
        form.set('client_secret', introspection.clientSecret)
      }
      // RFC 7662 §2.1: "The protected resource calls the introspection endpoint using an HTTP
      // POST request with parameters sent as application/x-www-form-urlencoded data".
      const res = await requestUpstream(this.#upstream, introspection.path, {
        method: 'POST',
        headers,
        body: form.toString(),
        timeoutMs: this.#config.timeout.ms,
        maxBytes: MAX_ANSWER_BYTES,
      })
      if (res.status !== 200) return unavailable(`introspection answered HTTP ${res.status}`)
      const answer = jsonObject(res.body)
      if (!answer || typeof answer.active !== 'boolean') {
        return unavailable('introspection answer is not an RFC 7662 JSON object with "active"')
      }
      return this.#judgeIntrospection(answer, token)
    }
    if (!userinfo) return unavailable('no endpoint configured')
    const res = await requestUpstream(this.#upstream, userinfo.path, {
      headers: { authorization: `Bearer ${token}` },
      timeoutMs: this.#config.timeout.ms,
      maxBytes: MAX_ANSWER_BYTES,
    })
    // OIDC Core §5.3.3 (RFC 6750 §3.1): an invalid token is answered 401 with invalid_token.
    if (res.status === 401) {
      return refused('inactive', 'the identity provider does not accept the token')
    }
    if (res.status !== 200) return unavailable(`UserInfo answered HTTP ${res.status}`)
    const answer = jsonObject(res.body)
    // OIDC Core §5.3.2: "The sub (subject) Claim MUST always be returned in the UserInfo Response."
    if (!answer || typeof answer.sub !== 'string') {
      return unavailable('UserInfo answer is not a JSON object with "sub"')
    }
    return { ok: true, claims: withoutToken(answer, token), issuer: this.#config.issuer }
  }

  #judgeIntrospection(answer: Record<string, unknown>, token: string): Outcome {
    // RFC 7662 §2.2: active "Boolean indicator of whether or not the presented token is
    // currently active."
    if (answer.active !== true) {
      return refused('inactive', 'the token is not active (expired, revoked or unknown)')
    }
    const c = this.#config
    if (answer.token_type !== undefined && !/^bearer$/i.test(String(answer.token_type))) {
      return refused('claims', 'the token is not a bearer access token')
    }
    if (answer.cnf !== undefined) {
      return refused(
        'claims',
        'the token is sender-constrained (cnf); the gateway accepts bearer tokens only',
      )
    }
    if (answer.iss !== undefined && answer.iss !== c.issuer) {
      return refused('issuer', 'the token was not issued by an accepted issuer')
    }
    const aud = answer.aud
    const auds = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : []
    if (!auds.some((a) => typeof a === 'string' && c.audiences?.includes(a))) {
      return refused(
        'audience',
        aud === undefined
          ? 'the introspection answer names no audience; the token cannot be checked for this API'
          : 'the token is not for this audience',
      )
    }
    const now = Date.now() / 1000
    const skew = c.clockSkew.ms / 1000
    if (typeof answer.exp === 'number' && answer.exp + skew <= now) {
      return refused('expired', 'the token has expired')
    }
    if (typeof answer.nbf === 'number' && answer.nbf - skew > now) {
      return refused('not_yet_valid', 'the token is not yet valid')
    }
    return { ok: true, claims: withoutToken(answer, token), issuer: c.issuer }
  }
}

function refused(check: TokenCheck, description: string): OpaqueFailure {
  return { ok: false, check, description }
}

function unavailable(cause: string): OpaqueFailure {
  return {
    ok: false,
    check: 'validation_unavailable',
    code: 'GW_ERR_TOKEN_VALIDATION_UNAVAILABLE',
    description: 'the identity provider could not validate the token; try again later',
    cause,
  }
}

/** The body as a JSON object, or undefined. */
function jsonObject(body: Buffer): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(body.toString('utf8'))
    return v !== null && typeof v === 'object' && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/**
 * The answer without any member whose value is the token itself (some IdPs echo it, e.g. as
 * `jti`; oidc-provider leaves it out): claims go to CEL, traces and transformations, the token
 * never does.
 */
function withoutToken(answer: Record<string, unknown>, token: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(answer).filter(([, v]) => v !== token))
}

/** `application/x-www-form-urlencoded` encoding of one value (RFC 6749 §2.3.1, Appendix B). */
function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2)
}
