// Over 300 lines but one job (composing one compiled policy from its stages): kept whole.
/**
 * A compiled `GatewayPolicy.spec.traffic` (seed: GatewayPolicy; Authentication 1–3; Errors): the
 * MCP OAuth endpoints, then three stages per request, one module each —
 * authentication (`./authentication.ts`, 401), authorization (`./authorization.ts`, 403) and
 * transformation (`./transformation.ts`, request headers from the claims). The refusals are built
 * in `./challenge.ts`. This module composes them and reports the policy's status.
 */
import type { CelCompiler } from '../config/cel.js'
import { discoveryUrlOf, statedDiscoveryOf, upstreamSettings } from '../config/idp-presets.js'
import type { JwtProviderConfig, PolicyConfig } from '../config/schema.js'
import type { ConfigIssue } from '../errors.js'
import { JwtAuthentication } from './authentication.js'
import { RuleAuthorization } from './authorization.js'
import { Challenge } from './challenge.js'
import { DiscoveryCache } from './discovery.js'
import { loadStaticJwks } from './jwks.js'
import { OAuthEndpoints } from './oauth-endpoints/endpoints.js'
import { OriginPools } from './origin-pools.js'
import { HeaderTransformation } from './transformation.js'
import type {
  AuthContext,
  AuthPolicy,
  AuthResult,
  AuthStageRequest,
  BrokerExtension,
  CompileAuthPolicy,
  PolicyStatus,
} from './types.js'

/**
 * Static checks of a policy beyond the schema: CEL (parsed and type-checked against the declared
 * variables, `config/cel.ts`), inline/file key sets. Used at start-up and by `gatehouse --validate`;
 * the programs stay in `cel` (the compilation's compiler, `CompiledConfig.cel`), so compiling the
 * policy with it afterwards does not compile them again.
 */
export function checkAuthPolicy(
  name: string,
  policy: PolicyConfig,
  cel: CelCompiler,
): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  const base = `policies.${name}.traffic`
  // Each expression checked as compileRules and compileHeaders compile it, so the issue names its
  // own path and compiling the policy afterwards with the same `cel` finds its program there.
  const check = (expression: string, result: 'bool' | 'any', path: string) => {
    try {
      cel.compile(expression, 'claims', result)
    } catch (err) {
      issues.push({ path, message: (err as Error).message })
    }
  }
  policy.traffic.authorization?.policy.matchExpressions.forEach((expression, i) => {
    check(expression, 'bool', `${base}.authorization.policy.matchExpressions[${i}]`)
  })
  policy.traffic.transformations?.request.set.forEach((entry, i) => {
    check(entry.value, 'any', `${base}.transformations.request.set[${i}].value`)
  })
  // A UserInfo answer names no audience (docs/idp/opaque-tokens.md): without rules, any account
  // of the IdP (every Google user) would pass, so the policy must say whom it accepts.
  const opaque = policy.traffic.jwtAuthentication?.opaqueTokens
  if (opaque?.userinfo && !policy.traffic.authorization) {
    issues.push({
      path: `${base}.jwtAuthentication.opaqueTokens.userinfo`,
      message:
        'needs authorization rules on the policy: a UserInfo answer names no audience, so without rules every account of the IdP is accepted (e.g. matchExpressions: [\'jwt.hd == "example.com"\'])',
    })
  }
  policy.traffic.jwtAuthentication?.providers.forEach((p, i) => {
    if (!p.jwks || p.jwks.remote) return
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

/** Compiles one policy. Throws only for problems {@link checkAuthPolicy} reports. */
export const compileAuthPolicy: CompileAuthPolicy = (name, policy, ctx) =>
  new CompiledPolicy(name, policy, ctx)

class CompiledPolicy implements AuthPolicy {
  readonly name: string
  readonly #policy: PolicyConfig
  readonly #authentication: JwtAuthentication | undefined
  readonly #authorization: RuleAuthorization | undefined
  readonly #transformation: HeaderTransformation | undefined
  readonly #oauth: OAuthEndpoints | undefined
  readonly #discovery: DiscoveryCache | undefined
  /** Discovery documents by provider index: the first one's for `mcp`, and every keyless one's. */
  readonly #discoveries = new Map<number, DiscoveryCache>()
  readonly #pools = new OriginPools()
  readonly #broker: BrokerExtension | undefined
  readonly #log
  #wasProgrammed: boolean | undefined

  constructor(name: string, policy: PolicyConfig, ctx: AuthContext) {
    this.name = name
    this.#policy = policy
    this.#log = ctx.logging.logger('proxy::auth::jwt')
    const { jwtAuthentication: jwt, authorization, transformations } = policy.traffic
    const first = jwt?.providers[0]
    const discoveryOf = (i: number): DiscoveryCache => {
      let d = this.#discoveries.get(i)
      const p = jwt?.providers[i] as JwtProviderConfig
      if (!d) {
        d = new DiscoveryCache(
          p.issuer,
          p.jwks?.remote ? ctx.upstreams.get(p.jwks.remote.backendRef.name) : undefined,
          ctx.logging.logger('proxy::auth::mcp'),
          ctx.tasks,
          {
            url: discoveryUrlOf(p),
            requireJwksUri: !p.jwks,
            // Endpoints stated in the configuration stand for a document never fetched.
            ...(p.endpoints ? { stated: statedDiscoveryOf(p) } : {}),
          },
        )
        this.#discoveries.set(i, d)
      }
      return d
    }
    if (jwt?.mcp && first) {
      const orgUpstream = first.jwks?.remote
        ? ctx.upstreams.get(first.jwks.remote.backendRef.name)
        : undefined
      this.#discovery = discoveryOf(0)
      const settings = upstreamSettings(first, jwt.mcp)
      if (jwt.mcp.broker) {
        if (!ctx.createBroker) {
          throw new Error(`policy ${name}: broker mode needs the broker layer (compile.ts)`)
        }
        this.#broker = ctx.createBroker({
          mcp: jwt.mcp,
          idpIssuer: first.issuer,
          audience: first.audiences[0],
          discovery: this.#discovery,
          orgUpstream,
          pools: this.#pools,
          settings,
          log: ctx.logging.logger('proxy::auth::mcp'),
          stateDir: ctx.stateDir,
        })
      }
      this.#oauth = new OAuthEndpoints({
        mcp: jwt.mcp,
        issuer: first.issuer,
        audience: first.audiences[0],
        settings,
        discovery: this.#discovery,
        orgUpstream,
        broker: this.#broker,
      })
    }
    const challenge = new Challenge(
      this.#oauth?.resourceMetadataUrl,
      jwt?.mcp?.requiredScopes,
      jwt?.mcp?.resourceMetadata.scopesSupported,
    )
    if (jwt) {
      this.#authentication = new JwtAuthentication(name, jwt, ctx, challenge, (i) => ({
        discovery: discoveryOf(i),
        pools: this.#pools,
      }))
      for (const k of this.#authentication.keySets) k.onChange(() => this.#noteProgrammed())
    }
    if (authorization) {
      this.#authorization = new RuleAuthorization(
        name,
        authorization.policy.matchExpressions,
        ctx.logging,
        challenge,
        ctx.cel,
      )
    }
    if (transformations) {
      this.#transformation = new HeaderTransformation(transformations.request, ctx.cel)
    }
  }

  get #keySets() {
    return this.#authentication?.keySets ?? []
  }

  status(): PolicyStatus {
    const wrong = [...this.#discoveries.values()].filter((d) => d.problem !== undefined)
    if (wrong.length > 0) {
      // A wrong discovery (issuer mismatch, 404, no jwks_uri) is a configuration problem the
      // operator must see, not only the user at sign-in. Asked again (within its backoff) so the
      // status recovers once the IdP or the configuration is fixed.
      for (const d of wrong) void d.get()
      return {
        accepted: true,
        programmed: false,
        reason: 'DiscoveryUnavailable',
        message: wrong
          .map((d) => `OIDC discovery document is not usable at ${d.url}: ${d.problem}`)
          .join('; '),
      }
    }
    const missing = this.#keySets.filter((k) => !k.available)
    if (missing.length > 0) {
      return {
        accepted: true,
        programmed: false,
        reason: 'JwksUnavailable',
        message: missing
          .map(
            (k) => `JWKS keyset is not available at ${k.url}: ${k.lastError ?? 'not fetched yet'}`,
          )
          .join('; '),
      }
    }
    const failing = this.#keySets.filter((k) => k.lastError !== undefined)
    return {
      accepted: true,
      programmed: true,
      reason: 'Programmed',
      message: 'enforced on the data plane',
      ...(failing.length > 0
        ? {
            refreshError: failing
              .map((k) => `JWKS refresh failed at ${k.url}: ${k.lastError}`)
              .join('; '),
          }
        : {}),
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
      // Warm the discovery caches; a wrong document makes the policy not programmed (status).
      ...[...this.#discoveries.values()].map((d) =>
        Promise.race([d.get(), new Promise((r) => setTimeout(r, 2000).unref())]),
      ),
    ])
    const status = this.status()
    this.#wasProgrammed = status.programmed
    if (!this.#wasProgrammed) {
      const discovery = status.reason === 'DiscoveryUnavailable'
      this.#log.error(
        {
          policy: this.name,
          code: discovery ? 'GW_ERR_DISCOVERY_UNAVAILABLE' : 'GW_ERR_JWKS_UNAVAILABLE',
          reason: status.reason,
          message: status.message,
        },
        discovery
          ? `policy ${this.name} is accepted but not programmed: ${status.message}`
          : `policy ${this.name} is accepted but not programmed: JWKS keyset is not available; its routes answer 401`,
      )
    }
  }

  stop(): void {
    for (const k of this.#keySets) k.stop()
    for (const d of this.#discoveries.values()) void d.close()
    void this.#pools.close()
    // Closing releases the Redis connection; a failure to close is nothing to act on.
    this.#broker?.close().catch(() => {})
  }

  serveOAuth: AuthPolicy['serveOAuth'] = async (req) => this.#oauth?.serve(req)

  get sessions(): AuthPolicy['sessions'] {
    return this.#broker?.sessions
  }

  async authenticate(req: AuthStageRequest): Promise<AuthResult> {
    let claims: Readonly<Record<string, unknown>> | undefined
    if (this.#authentication) {
      const authenticated = await this.#authentication.authenticate(req)
      if (!authenticated.ok) return authenticated
      claims = authenticated.claims
    }
    const denied = this.#authorization?.authorize(claims, req)
    if (denied) return { ok: false, response: denied, reason: 'rules' }
    if (!claims) return { ok: true }
    if (!this.#transformation) return { ok: true, claims }
    return { ok: true, claims, requestHeaders: this.#transformation.apply(claims) }
  }

  dump(): Record<string, unknown> {
    const jwt = this.#policy.traffic.jwtAuthentication
    return {
      name: this.name,
      mode: this.#authentication?.mode ?? null,
      providers: (jwt?.providers ?? []).map((p, i) => ({
        issuer: p.issuer,
        audiences: p.audiences,
        preset: p.preset ?? 'okta',
        clockSkew: p.clockSkew.text,
        keys: this.#keySets[i]?.dump(),
      })),
      mcp: jwt?.mcp
        ? {
            provider: jwt.mcp.provider ?? null,
            clientId: jwt.mcp.clientId ?? null,
            resource: jwt.mcp.resourceMetadata.resource,
            issuerMode: jwt.mcp.issuerMode,
            discovery: this.#discovery?.dump() ?? null,
            ...(this.#broker ? { broker: this.#broker.dump() } : {}),
          }
        : null,
      rules: this.#authorization?.expressions ?? [],
      ...(this.#authentication?.opaque ? { opaqueTokens: this.#authentication.opaque.dump() } : {}),
    }
  }
}
