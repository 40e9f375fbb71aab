/**
 * Stage 1 of a policy, authentication (seed: Authentication 1–2; RFC 6750): the bearer JWT of a
 * request is found, verified against the providers' keys (`iss`, `aud`, signature, lifetime) and
 * turned into verified claims, or the request is refused with 401 (400 for two Authorization
 * headers). Mode `Strict` refuses a request without a token; `Optional` lets it through without
 * claims (a token that is sent must still be valid).
 *
 * With `opaqueTokens`, a token that is not a JWT of one of the providers (by its unverified `iss`)
 * is validated by the IdP instead (`./opaque-token.ts`): its answer's claims are the claims.
 */
import { decodeJwt } from 'jose'
import type { JwtProviderConfig, OpaqueTokensConfig } from '../config/schema.js'
import type { LocalResponse } from '../http/local-response.js'
import type { AuthenticationFailure, AuthenticationVerdict } from '../telemetry/trace-events.js'
import type { Challenge } from './challenge.js'
import type { DiscoveryCache } from './discovery.js'
import { KeySet, loadStaticJwks } from './jwks.js'
import { OpaqueTokenValidator } from './opaque-token.js'
import type { OriginPools } from './origin-pools.js'
import { sharedVerification } from './shared-verification.js'
import type { AuthContext, AuthStageRequest } from './types.js'
import { type ProviderVerifyConfig, TokenVerifier } from './verify.js'

/** Verified claims, none (Optional mode, no token), or the refusal to send. */
export type AuthenticationResult =
  | { ok: true; claims: Readonly<Record<string, unknown>> | undefined }
  | { ok: false; response: LocalResponse; reason: AuthenticationFailure }

/** The authentication stage of one policy. */
export class JwtAuthentication {
  /** One key set per provider, in configuration order. */
  readonly keySets: readonly KeySet[]
  readonly #policy: string
  readonly #strict: boolean
  readonly #verifier: TokenVerifier
  readonly #issuers: ReadonlySet<string>
  /** Validates tokens that are not JWTs of a provider; absent without `opaqueTokens`. */
  readonly opaque: OpaqueTokenValidator | undefined
  readonly #challenge: Challenge
  readonly #log

  /**
   * @throws Error when a provider's JWKS backend does not exist (the schema checks names; this is
   *   the compiler's guard).
   * @param discoveryOf the discovery document of provider `i`, for a provider whose keys come
   *   from its `jwks_uri` (no `jwks`)
   */
  constructor(
    policy: string,
    jwt: {
      mode: 'Strict' | 'Optional'
      providers: readonly JwtProviderConfig[]
      opaqueTokens?: OpaqueTokensConfig | undefined
    },
    ctx: AuthContext,
    challenge: Challenge,
    discoveryOf?: (i: number) => { discovery: DiscoveryCache; pools: OriginPools },
  ) {
    this.#policy = policy
    this.#strict = jwt.mode === 'Strict'
    this.#challenge = challenge
    this.#log = ctx.logging.logger('proxy::auth::jwt')
    const jwksLog = ctx.logging.logger('proxy::auth::jwks')
    const { keySets, verifier } = sharedVerification(ctx, jwt.providers, () => {
      const providers: ProviderVerifyConfig[] = jwt.providers.map((p, i) => ({
        issuer: p.issuer,
        audiences: p.audiences,
        clockSkewSec: Math.round(p.clockSkew.ms / 1000),
        keys: keySetOf(policy, p, i, ctx, jwksLog, discoveryOf),
      }))
      return { keySets: providers.map((p) => p.keys), verifier: new TokenVerifier(providers) }
    })
    this.keySets = keySets
    this.#verifier = verifier
    this.#issuers = new Set(jwt.providers.map((p) => p.issuer))
    this.opaque = jwt.opaqueTokens ? opaqueValidatorOf(policy, jwt.opaqueTokens, ctx) : undefined
  }

  /** `Strict` or `Optional`. */
  get mode(): 'Strict' | 'Optional' {
    return this.#strict ? 'Strict' : 'Optional'
  }

  /** Finds and verifies the bearer token of a request. */
  async authenticate(req: AuthStageRequest): Promise<AuthenticationResult> {
    const sent = req.headersDistinct.authorization?.length ?? 0
    if (sent > 1) {
      // RFC 6750 §3.1 invalid_request: the token is sent twice; judging the first one would let
      // whatever sits between client and gateway disagree with us about which one counts.
      this.#event(req, { result: 'failed', check: 'duplicate authorization' })
      return {
        ok: false,
        reason: 'duplicate_authorization',
        response: this.#challenge.badRequest(
          `the request carries ${sent} Authorization headers; send exactly one ("Authorization: Bearer <token>")`,
        ),
      }
    }
    const token = bearerToken(req)
    if (token === undefined) {
      this.#event(req, { result: 'missing', check: 'no bearer token' })
      if (this.#strict) {
        return {
          ok: false,
          reason: 'missing_token',
          response: this.#challenge.unauthorized('a bearer token is required', false),
        }
      }
      return { ok: true, claims: undefined }
    }
    const result = this.#isOpaque(token)
      ? await (this.opaque as OpaqueTokenValidator).validate(token, req.remoteAddress)
      : await this.#verifier.verify(token)
    if (!result.ok) {
      if (result.code === 'GW_ERR_TOKEN_VALIDATION_UNAVAILABLE') {
        this.#event(req, { result: 'failed', check: result.check, code: result.code })
        // The cause names the IdP's address or status: the operator's log, never the client.
        this.#log.warn(
          { policy: this.#policy, code: result.code, cause: 'cause' in result ? result.cause : '' },
          'opaque token not validated: the identity provider did not answer usably',
        )
        return {
          ok: false,
          reason: result.check,
          response: this.#challenge.unavailable(result.description),
        }
      }
      const code = result.code ? { code: result.code } : {}
      this.#event(req, {
        result: 'failed',
        check: result.check,
        reason: result.description,
        ...code,
      })
      this.#log.debug(
        { policy: this.#policy, check: result.check, code: result.code ?? 'GW_ERR_INVALID_TOKEN' },
        'bearer token refused',
      )
      return {
        ok: false,
        reason: result.check,
        response: this.#challenge.unauthorized(result.description, true),
      }
    }
    const claims = result.claims
    this.#event(req, {
      result: 'ok',
      issuer: result.issuer,
      subject: typeof claims.sub === 'string' ? claims.sub : null,
      // The verified claims (never the token) for later stages and for whoever debugs them.
      claims,
    })
    return { ok: true, claims }
  }

  /**
   * Whether a token goes to the IdP rather than to local JWT verification: with `opaqueTokens`,
   * every token that does not decode as a JWT naming a provider's issuer. The decision reads the
   * unverified `iss` only to choose; either path then verifies the token in full.
   */
  #isOpaque(token: string): boolean {
    if (!this.opaque) return false
    try {
      const iss = decodeJwt(token).iss
      return iss === undefined || !this.#issuers.has(iss)
    } catch {
      return true
    }
  }

  #event(req: AuthStageRequest, data: AuthenticationVerdict): void {
    req.trace?.event('authentication', { policy: this.#policy, ...data })
  }
}

function opaqueValidatorOf(
  policy: string,
  opaque: OpaqueTokensConfig,
  ctx: AuthContext,
): OpaqueTokenValidator {
  const endpoint = opaque.introspection ?? opaque.userinfo
  const name = endpoint?.backendRef.name ?? ''
  const upstream = ctx.upstreams.get(name)
  if (!upstream) throw new Error(`policies.${policy}: backend ${name} does not exist`)
  return new OpaqueTokenValidator(opaque, upstream)
}

function keySetOf(
  policy: string,
  p: JwtProviderConfig,
  i: number,
  ctx: AuthContext,
  log: ReturnType<AuthContext['logging']['logger']>,
  discoveryOf?: (i: number) => { discovery: DiscoveryCache; pools: OriginPools },
): KeySet {
  if (!p.jwks) {
    // No jwks (any preset but okta): the keys at the discovery document's jwks_uri.
    if (!discoveryOf) throw new Error(`policies.${policy}: provider ${i} has no key source`)
    const { discovery, pools } = discoveryOf(i)
    return new KeySet(
      p.issuer,
      { kind: 'discovery', discovery, pools, refreshMs: 5 * 60_000 },
      log,
      ctx.tasks,
    )
  }
  const remote = p.jwks.remote
  if (remote) {
    const upstream = ctx.upstreams.get(remote.backendRef.name)
    if (!upstream)
      throw new Error(`policies.${policy}: backend ${remote.backendRef.name} does not exist`)
    return new KeySet(
      p.issuer,
      {
        kind: 'remote',
        upstream,
        path: remote.jwksPath,
        refreshMs: remote.cacheDuration.ms,
      },
      log,
      ctx.tasks,
    )
  }
  const origin = p.jwks.file
    ? `file:${p.jwks.file}`
    : `policies.${policy}.providers[${i}].jwks.inline`
  return new KeySet(
    p.issuer,
    { kind: 'static', jwks: loadStaticJwks(p.jwks), origin },
    log,
    ctx.tasks,
  )
}

/**
 * The bearer token of a request (RFC 6750 §2.1, the Authorization header): `undefined` when
 * there is no Authorization header, `''` when there is one that is not a well-formed bearer
 * credential (so it is judged as an invalid token, not as a missing one). Query-string tokens
 * (§2.3) are not accepted: MCP authorization forbids them, as URLs end up in logs.
 */
function bearerToken(req: AuthStageRequest): string | undefined {
  const header = req.headers.authorization
  if (typeof header !== 'string') return undefined
  const m = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header)
  return m?.[1] ?? ''
}
