/**
 * A compiled `GatewayPolicy.spec.traffic` (seed: GatewayPolicy; Authentication 1–3; Errors):
 * JWT authentication (401), CEL authorization (403) and the MCP OAuth endpoints.
 *
 * Challenges follow RFC 6750 §3 and RFC 9728 §5.1: a request without a token gets
 * `WWW-Authenticate: Bearer resource_metadata="…"`; an invalid token adds
 * `error="invalid_token"`; a valid token that fails the rules gets 403 with
 * `error="insufficient_scope"` (no `scope` parameter unless `mcp.requiredScopes` names some, so
 * MCP clients do not loop on step-up authorization).
 */
import { durationMs } from '../config/duration.js'
import type { PolicyConfig } from '../config/schema.js'
import { errorResponse, type LocalResponse } from '../dataplane/local-response.js'
import type { ConfigIssue } from '../errors.js'
import { DiscoveryCache } from './discovery.js'
import { KeySet, loadStaticJwks } from './jwks.js'
import { OAuthEndpoints } from './oauth.js'
import {
  type CompiledHeader,
  type CompiledRules,
  compileHeaders,
  compileRules,
  type RuleResult,
} from './rules.js'
import type {
  AuthContext,
  AuthPolicy,
  AuthRequest,
  AuthResult,
  CompileAuthPolicy,
  PolicyStatus,
} from './types.js'
import { TokenVerifier, type Verifier } from './verify.js'

/**
 * Static checks of a policy beyond the schema: CEL syntax, inline/file key sets.
 * Used at start-up and by `gatehouse --validate`.
 */
export function checkAuthPolicy(name: string, policy: PolicyConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  const base = `policies.${name}.traffic`
  const expressions = policy.traffic.authorization?.policy.matchExpressions ?? []
  expressions.forEach((expression, i) => {
    try {
      compileRules([expression])
    } catch (err) {
      issues.push({
        path: `${base}.authorization.policy.matchExpressions[${i}]`,
        message: (err as Error).message.replace(/^matchExpressions\[0\]: /, ''),
      })
    }
  })
  try {
    compileHeaders(policy.traffic.transformations?.request.set ?? [])
  } catch (err) {
    issues.push({ path: `${base}.transformations.request`, message: (err as Error).message })
  }
  policy.traffic.jwtAuthentication?.providers.forEach((p, i) => {
    if (p.jwks.remote) return
    try {
      const jwks = loadStaticJwks(p.jwks)
      if (jwks.keys.length === 0) throw new Error('the key set has no usable public key')
    } catch (err) {
      issues.push({
        path: `${base}.jwtAuthentication.providers[${i}].jwks`,
        message: (err as Error).message,
      })
    }
  })
  return issues
}

/** Quotes a value for an auth-param (RFC 9110 §11.2): no quote or backslash survives. */
function q(value: string): string {
  return `"${value.replace(/["\\]/g, '')}"`
}

/** Compiles one policy. Throws only for problems {@link checkAuthPolicy} reports. */
export const compileAuthPolicy: CompileAuthPolicy = (name, policy, ctx) =>
  new CompiledPolicy(name, policy, ctx)

class CompiledPolicy implements AuthPolicy {
  readonly name: string
  readonly #ctx: AuthContext
  readonly #strict: boolean
  readonly #verifier: TokenVerifier | undefined
  readonly #keySets: KeySet[] = []
  readonly #rules: CompiledRules | undefined
  readonly #decisions = new WeakMap<object, RuleResult[]>()
  readonly #setHeaders: CompiledHeader[]
  readonly #removeHeaders: string[]
  readonly #oauth: OAuthEndpoints | undefined
  readonly #discovery: DiscoveryCache | undefined
  readonly #policy: PolicyConfig
  readonly #log
  #wasProgrammed: boolean | undefined

  constructor(name: string, policy: PolicyConfig, ctx: AuthContext) {
    this.name = name
    this.#policy = policy
    this.#ctx = ctx
    this.#log = ctx.logging.logger('proxy::auth::jwt')
    const jwt = policy.traffic.jwtAuthentication
    this.#strict = (jwt?.mode ?? 'Strict') === 'Strict'
    const jwksLog = ctx.logging.logger('proxy::auth::jwks')
    if (jwt) {
      const verifiers: Verifier[] = jwt.providers.map((p, i) => {
        const remote = p.jwks.remote
        let keys: KeySet
        if (remote) {
          const upstream = ctx.upstreams.get(remote.backendRef.name)
          if (!upstream)
            throw new Error(`policies.${name}: backend ${remote.backendRef.name} does not exist`)
          keys = new KeySet(
            p.issuer,
            {
              kind: 'remote',
              upstream,
              path: remote.jwksPath,
              refreshMs: durationMs(remote.cacheDuration),
            },
            jwksLog,
            ctx.tasks,
          )
        } else {
          const origin = p.jwks.file
            ? `file:${p.jwks.file}`
            : `policies.${name}.providers[${i}].jwks.inline`
          keys = new KeySet(
            p.issuer,
            { kind: 'static', jwks: loadStaticJwks(p.jwks), origin },
            jwksLog,
            ctx.tasks,
          )
        }
        this.#keySets.push(keys)
        return {
          issuer: p.issuer,
          audiences: p.audiences,
          clockSkewSec: Math.round(durationMs(p.clockSkew) / 1000),
          keys,
        }
      })
      this.#verifier = new TokenVerifier(verifiers)
      for (const k of this.#keySets) k.onChange(() => this.#noteProgrammed())
      const first = jwt.providers[0]
      if (jwt.mcp && first) {
        const orgUpstream = first.jwks.remote
          ? ctx.upstreams.get(first.jwks.remote.backendRef.name)
          : undefined
        this.#discovery = new DiscoveryCache(
          first.issuer,
          orgUpstream,
          ctx.logging.logger('proxy::auth::mcp'),
          ctx.tasks,
        )
        this.#oauth = new OAuthEndpoints({
          mcp: jwt.mcp,
          issuer: first.issuer,
          audience: first.audiences[0],
          discovery: this.#discovery,
          orgUpstream,
        })
      }
    }
    const expressions = policy.traffic.authorization?.policy.matchExpressions
    this.#rules = expressions ? compileRules(expressions) : undefined
    const transform = policy.traffic.transformations?.request
    this.#setHeaders = compileHeaders(transform?.set ?? [])
    this.#removeHeaders = (transform?.remove ?? []).map((h) => h.toLowerCase())
  }

  status(): PolicyStatus {
    const attached = this.#policy.targetRefs.every(
      (t) => this.#ctx.config.routes[t.name] !== undefined,
    )
    const missing = this.#keySets.filter((k) => !k.available)
    if (missing.length > 0) {
      return {
        accepted: true,
        attached,
        programmed: false,
        reason: 'JwksUnavailable',
        message: missing
          .map(
            (k) => `JWKS keyset is not available at ${k.url}: ${k.lastError ?? 'not fetched yet'}`,
          )
          .join('; '),
      }
    }
    return {
      accepted: true,
      attached,
      programmed: true,
      reason: 'Programmed',
      message: 'enforced on the data plane',
    }
  }

  #noteProgrammed(): void {
    const programmed = this.status().programmed
    if (programmed !== this.#wasProgrammed && this.#wasProgrammed !== undefined) {
      this.#log.info(
        { policy: this.name, programmed },
        programmed ? 'policy programmed' : 'policy not programmed',
      )
    }
    this.#wasProgrammed = programmed
  }

  async start(): Promise<void> {
    await Promise.all([
      ...this.#keySets.map((k) => k.start()),
      // Warm the discovery cache; its failure is reported when a client asks.
      this.#discovery
        ? Promise.race([this.#discovery.get(), new Promise((r) => setTimeout(r, 2000).unref())])
        : undefined,
    ])
    this.#wasProgrammed = this.status().programmed
    if (!this.#wasProgrammed) {
      this.#log.error(
        { policy: this.name, reason: 'JwksUnavailable', message: this.status().message },
        `policy ${this.name} is accepted but not programmed: JWKS keyset is not available; its routes answer 401`,
      )
    }
  }

  stop(): void {
    for (const k of this.#keySets) k.stop()
  }

  serveOAuth: AuthPolicy['serveOAuth'] = async (req) => this.#oauth?.serve(req)

  #challenge(params: Record<string, string>): Record<string, string> {
    const parts: string[] = []
    if (this.#oauth) parts.push(`resource_metadata=${q(this.#oauth.resourceMetadataUrl)}`)
    else parts.push(`realm=${q('gatehouse')}`)
    for (const [k, v] of Object.entries(params)) parts.push(`${k}=${q(v)}`)
    return { 'www-authenticate': `Bearer ${parts.join(', ')}` }
  }

  #unauthorized(description: string, tokenSent: boolean): AuthResult {
    const params: Record<string, string> = tokenSent
      ? { error: 'invalid_token', error_description: description }
      : {}
    const response: LocalResponse = errorResponse(
      401,
      tokenSent ? 'invalid_token' : 'unauthorized',
      description,
      this.#challenge(params),
    )
    return { ok: false, response }
  }

  #badRequest(description: string): AuthResult {
    const params = { error: 'invalid_request', error_description: description }
    const response = errorResponse(400, 'invalid_request', description, this.#challenge(params))
    return { ok: false, response }
  }

  async authenticate(req: AuthRequest): Promise<AuthResult> {
    const verifier = this.#verifier
    let claims: Readonly<Record<string, unknown>> | undefined
    if (verifier) {
      const sent = req.headersDistinct.authorization?.length ?? 0
      if (sent > 1) {
        // RFC 6750 §3.1 invalid_request: the token is sent twice; judging the first one would let
        // whatever sits between client and gateway disagree with us about which one counts.
        req.trace?.event('authentication', {
          policy: this.name,
          result: 'failed',
          check: 'duplicate authorization',
        })
        return this.#badRequest(
          `the request carries ${sent} Authorization headers; send exactly one ("Authorization: Bearer <token>")`,
        )
      }
      const token = bearerToken(req)
      if (token === undefined) {
        req.trace?.event('authentication', {
          policy: this.name,
          result: 'missing',
          check: 'no bearer token',
        })
        if (this.#strict) return this.#unauthorized('a bearer token is required', false)
      } else {
        const result = await verifier.verify(token)
        if (!result.ok) {
          req.trace?.event('authentication', {
            policy: this.name,
            result: 'failed',
            check: result.check,
            reason: result.description,
          })
          this.#log.debug({ policy: this.name, check: result.check }, 'bearer token refused')
          return this.#unauthorized(result.description, true)
        }
        claims = result.claims
        req.trace?.event('authentication', {
          policy: this.name,
          result: 'ok',
          issuer: result.issuer,
          subject: typeof claims.sub === 'string' ? claims.sub : null,
          // The verified claims (never the token) for later stages and for whoever debugs them.
          claims,
        })
      }
    }
    if (this.#rules) {
      // Without claims (Optional mode, no token) the rules see an empty claim set. Rules depend on
      // the claims only, and the verifier hands out one claims object per cached token, so the
      // outcome is remembered per claims object for as long as the token is cached.
      let results = claims ? this.#decisions.get(claims) : undefined
      if (!results) {
        results = this.#rules.evaluate(claims ?? {})
        if (claims) this.#decisions.set(claims, results)
      }
      const allowed = results.every((r) => r.matched)
      req.trace?.event('authorization', { policy: this.name, allowed, rules: results })
      if (!allowed) {
        this.#ctx.logging.logger('proxy::auth::authz').debug(
          {
            policy: this.name,
            rules: results.map((r) => ({ expression: r.expression, matched: r.matched })),
          },
          'request denied by rules',
        )
        const scopes = this.#policy.traffic.jwtAuthentication?.mcp?.requiredScopes
        const params: Record<string, string> = { error: 'insufficient_scope' }
        if (scopes?.length) params.scope = scopes.join(' ')
        return {
          ok: false,
          response: errorResponse(
            403,
            'insufficient_scope',
            'the token is valid but does not satisfy the authorization rules of this route',
            this.#challenge(params),
          ),
        }
      }
    }
    if (!claims) return { ok: true }
    if (this.#setHeaders.length === 0 && this.#removeHeaders.length === 0)
      return { ok: true, claims }
    const set: Record<string, string> = {}
    for (const h of this.#setHeaders) {
      const value = h.evaluate(claims)
      if (value !== undefined) set[h.name] = value
    }
    return { ok: true, claims, requestHeaders: { set, remove: this.#removeHeaders } }
  }

  dump(): Record<string, unknown> {
    const jwt = this.#policy.traffic.jwtAuthentication
    return {
      name: this.name,
      mode: jwt ? (this.#strict ? 'Strict' : 'Optional') : null,
      providers: (jwt?.providers ?? []).map((p, i) => ({
        issuer: p.issuer,
        audiences: p.audiences,
        clockSkew: p.clockSkew,
        keys: this.#keySets[i]?.dump(),
      })),
      mcp: jwt?.mcp
        ? {
            provider: jwt.mcp.provider ?? null,
            clientId: jwt.mcp.clientId ?? null,
            resource: jwt.mcp.resourceMetadata.resource,
            issuerMode: jwt.mcp.issuerMode,
            discovery: this.#discovery?.dump() ?? null,
          }
        : null,
      rules: this.#rules?.expressions ?? [],
    }
  }
}

/**
 * The bearer token of a request (RFC 6750 §2.1, the Authorization header). Query-string tokens
 * (§2.3) are not accepted: MCP authorization forbids them, as URLs end up in logs.
 */
function bearerToken(req: AuthRequest): string | undefined {
  const header = req.headers.authorization
  if (typeof header !== 'string') return undefined
  const m = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header)
  return m?.[1] ?? ''
}
