// Over 300 lines but one job (a configuration into the runtime snapshot: compiled, built, retired): kept whole.
/**
 * Translation of the validated configuration into the runtime snapshot the dataplane reads:
 * routers per gateway, upstream pools, compiled CORS filters and compiled auth policies.
 * Configuration → snapshot → request pipeline; nothing flows back.
 */
import { isDeepStrictEqual } from 'node:util'
import { policyProblems } from '../auth/readiness.js'
import type { AuthContext, AuthPolicy, CompileAuthPolicy } from '../auth/types.js'
import type { CelCompiler } from '../config/cel.js'
import type { GatehouseConfig } from '../config/schema.js'
import { ServerCertificates } from '../dataplane/certificates.js'
import { compileCors } from '../dataplane/cors.js'
import { compileOriginCheck, type OriginCheck } from '../dataplane/origin.js'
import { RouterBuilder } from '../dataplane/router.js'
import type { CompiledRule, GatewayRuntime } from '../dataplane/runtime.js'
import { ConfigError, type ConfigIssue } from '../errors.js'
import { createUpstream, readCaBundles, type Upstream } from '../http/upstream.js'
import type { SharedBuckets } from '../mcp/local-rate-limit.js'
import type { McpRoutePolicy } from '../mcp/route-policy.js'
import type { Logging } from '../telemetry/logging.js'
import type { TaskRegistry } from '../telemetry/tasks.js'

/** The compiled runtime. */
export interface Snapshot {
  config: Readonly<GatehouseConfig>
  upstreams: Map<string, Upstream>
  policies: Map<string, AuthPolicy>
  gateways: Map<string, GatewayRuntime>
  /** Route names per gateway. */
  routesOf: Map<string, string[]>
  /** The MCP-aware stage of each route and the policies it was compiled from (kept on reload). */
  mcpOfRoute: Map<string, { stage: McpRoutePolicy | undefined; from: unknown }>
  /** The certificates of each HTTPS gateway, as read by this compilation. */
  certificates: ReadonlyMap<string, ServerCertificates>
}

/** Loads the auth layer's static checks and compiler (kept out of start-up when unused). */
async function authLayer(): Promise<{
  compileAuthPolicy: CompileAuthPolicy
  checkAuthPolicy: (
    name: string,
    policy: GatehouseConfig['policies'][string],
    cel: CelCompiler,
  ) => ConfigIssue[]
}> {
  return import('../auth/policy.js')
}

/**
 * A configuration that passed every check {@link compile} makes, with what those checks read
 * (the backends' CA bundles, the HTTPS gateways' certificates) and compiled (the CEL programs). The only input of {@link buildSnapshot}: a snapshot is never built
 * from a configuration that was not compiled.
 */
export interface CompiledConfig {
  readonly config: Readonly<GatehouseConfig>
  /** The CA bundles of each backend's `tls.caCertificates`, read once (absent: none named). */
  readonly caBundles: ReadonlyMap<string, string[] | undefined>
  /** The certificates of each HTTPS gateway (`gateways.<name>.tls`), read and checked. */
  readonly certificates: ReadonlyMap<string, ServerCertificates>
  /**
   * The compiler that checked every CEL expression, holding their programs: the policies of the
   * snapshot are compiled with it and find them there. Its own, not shared with another
   * compilation (a reload compiles its own; these go with the snapshots built from them).
   * `undefined` when the configuration has no policy: there is nothing to compile, and the CEL
   * library is not loaded.
   */
  readonly cel: CelCompiler | undefined
}

/** What {@link compile} returns: the compiled configuration, or every problem found. */
export type CompileResult =
  | { ok: true; compiled: CompiledConfig }
  | { ok: false; issues: ConfigIssue[] }

/**
 * Compiles a validated configuration: every check that needs a compiler or a file beyond the
 * schema (CEL parsed and type-checked, inline and file key sets, CA bundles read), each issue
 * naming its path. Opens no pool, socket or timer, so `gatehouse --validate` calls it as it is;
 * start-up and reload then build the runtime from its result ({@link buildSnapshot}).
 */
export async function compile(config: Readonly<GatehouseConfig>): Promise<CompileResult> {
  const { issues, cel } = await checkPolicies(config)
  const caBundles = new Map<string, string[] | undefined>()
  for (const [name, backend] of Object.entries(config.backends)) {
    try {
      caBundles.set(name, readCaBundles(backend))
    } catch (err) {
      issues.push({ path: `backends.${name}.tls.caCertificates`, message: (err as Error).message })
    }
  }
  const certificates = new Map<string, ServerCertificates>()
  for (const [name, gateway] of Object.entries(config.gateways)) {
    if (!gateway.tls) continue
    try {
      certificates.set(name, ServerCertificates.load(gateway.tls))
    } catch (err) {
      issues.push({ path: `gateways.${name}.tls`, message: (err as Error).message })
    }
  }
  return issues.length > 0
    ? { ok: false, issues }
    : { ok: true, compiled: { config, caBundles, certificates, cel } }
}

/**
 * {@link compile}, throwing a {@link ConfigError} that lists every issue (each passed through
 * `locate`, which adds where it was written: a line, a Kubernetes resource).
 */
export async function compileOrThrow(
  config: Readonly<GatehouseConfig>,
  file?: string,
  locate: (issue: ConfigIssue) => ConfigIssue = (issue) => issue,
): Promise<CompiledConfig> {
  const result = await compile(config)
  if (!result.ok) throw new ConfigError('GW_ERR_CONFIG_INVALID', result.issues.map(locate), file)
  return result.compiled
}

/**
 * The policies' checks that need the CEL compiler and the key-set loader, and the compiler that
 * made them (a new one: its programs belong to this compilation only).
 */
async function checkPolicies(
  config: Readonly<GatehouseConfig>,
): Promise<{ issues: ConfigIssue[]; cel: CelCompiler | undefined }> {
  const policies = Object.entries(config.policies)
  if (policies.length === 0) return { issues: [], cel: undefined }
  const { checkAuthPolicy } = await authLayer()
  const { checkMcpPolicy } = await import('../mcp/policy-config.js')
  const cel = new (await import('../config/cel.js')).CelCompiler()
  const issues: ConfigIssue[] = []
  const pause = pacer()
  for (const [name, policy] of policies) {
    await pause()
    issues.push(...checkAuthPolicy(name, policy, cel), ...checkMcpPolicy(name, policy, cel))
  }
  return { issues, cel }
}

/**
 * Routes attached to a gateway: those naming it, or every route when there is one gateway. Paced
 * like the rest of the compile (a filter of 10,000 routes in one go was one more stall).
 */
async function routesFor(config: Readonly<GatehouseConfig>, gateway: string): Promise<string[]> {
  const names: string[] = []
  const pause = pacer()
  for (const [name, r] of Object.entries(config.routes)) {
    await pause()
    if (r.parentRefs ? r.parentRefs.some((p) => p.name === gateway) : true) names.push(name)
  }
  return names
}

/** A policy attached to a route, by name. */
interface AttachedPolicy {
  name: string
  policy: GatehouseConfig['policies'][string]
}

/**
 * The policies attached to each route, in configuration order: made once per snapshot, as a
 * scan of every policy for each route costs routes x target references (10,000 routes under one
 * policy: 10^8 comparisons, seconds of a stalled event loop; docs/reliability.md).
 */
async function attachedPolicies(
  config: Readonly<GatehouseConfig>,
): Promise<Map<string, AttachedPolicy[]>> {
  const out = new Map<string, AttachedPolicy[]>()
  const pause = pacer()
  for (const [name, policy] of Object.entries(config.policies)) {
    const seen = new Set<string>()
    for (const ref of policy.targetRefs) {
      // One policy may target every route: a turn every so many references, not per policy.
      await pause()
      if (seen.has(ref.name)) continue
      seen.add(ref.name)
      const list = out.get(ref.name) ?? []
      list.push({ name, policy })
      out.set(ref.name, list)
    }
  }
  return out
}

/**
 * Gives the event loop a turn every `every` calls, so that compiling thousands of routes or
 * policies leaves requests answered in between (docs/reliability.md, "Large configurations").
 */
function pacer(every = 250): () => Promise<void> {
  let calls = 0
  return () =>
    ++calls % every === 0 ? new Promise((resolve) => setImmediate(resolve)) : Promise.resolve()
}

/**
 * The Origin/Host check of a route (DNS rebinding protection, on by default on every route): its
 * settings come from an attached policy's `traffic.originValidation`, or else from the older
 * `jwtAuthentication.mcp.originValidation` (cross-references.ts refuses a route with both); the
 * resource of an attached MCP policy and the rule's CORS origins are the defaults it accepts.
 * `undefined` when a policy says `mode: Disabled`.
 */
function originCheckFor(
  attached: readonly AttachedPolicy[],
  corsOrigins: readonly string[] | undefined,
): OriginCheck | undefined {
  const mcp = attached.find(({ policy: p }) => p.traffic.jwtAuthentication?.mcp)?.policy.traffic
    .jwtAuthentication?.mcp
  const settings =
    attached.find(({ policy: p }) => p.traffic.originValidation)?.policy.traffic.originValidation ??
    mcp?.originValidation
  if (settings && 'mode' in settings && settings.mode === 'Disabled') return undefined
  return compileOriginCheck({
    resource: mcp?.resourceMetadata.resource,
    allowedOrigins: settings?.allowedOrigins,
    allowedHosts: settings?.allowedHosts,
    corsOrigins,
  })
}

/** What building a snapshot needs besides the compiled configuration. */
export interface SnapshotServices {
  logging: Logging
  tasks: TaskRegistry
  /**
   * Rate-limit buckets held by the cluster primary (`config.workers` above 1), so that the
   * workers' limits admit their configured number in total. Absent: each route keeps its own.
   */
  sharedBuckets?: SharedBuckets | undefined
  /** Where brokers without a `store` block keep their SQLite file (`StartOptions.stateDir`). */
  stateDir?: string | undefined
}

/**
 * Builds the runtime snapshot of a compiled configuration. Policies are compiled but not started.
 * With `previous` (a reload), what did not change is taken over instead of rebuilt: an upstream
 * whose backend is the same (its pooled connections), a policy whose configuration and JWKS
 * backends are the same (its key sets and discovery document: nothing is fetched again), a
 * route's MCP stage whose policies are the same (its rate-limit buckets). {@link retireSnapshot}
 * then ends what was not taken over.
 */
export async function buildSnapshot(
  compiled: CompiledConfig,
  services: SnapshotServices,
  previous?: Snapshot,
): Promise<Snapshot> {
  const { config, cel } = compiled
  const upstreams = buildUpstreams(compiled, previous)
  const { policies, policiesOfRoute } = await buildPolicies(
    config,
    cel,
    upstreams,
    services,
    previous,
  )
  const attached = await attachedPolicies(config)
  const mcpOfRoute = await buildMcpStages(config, attached, cel, services, previous)
  const { gateways, routesOf } = await buildGateways(
    config,
    attached,
    upstreams,
    policiesOfRoute,
    mcpOfRoute,
  )
  const { certificates } = compiled
  return { config, upstreams, policies, gateways, routesOf, mcpOfRoute, certificates }
}

/** One upstream (two pools) per backend; `previous`'s when the backend did not change. */
function buildUpstreams(compiled: CompiledConfig, previous?: Snapshot): Map<string, Upstream> {
  const upstreams = new Map<string, Upstream>()
  for (const [name, backend] of Object.entries(compiled.config.backends)) {
    const same = previous && isDeepStrictEqual(previous.config.backends[name], backend)
    const kept = same ? previous.upstreams.get(name) : undefined
    upstreams.set(name, kept ?? createUpstream(backend, compiled.caBundles.get(name)))
  }
  return upstreams
}

/** The compiled auth policies, and those attached to each route. */
async function buildPolicies(
  config: Readonly<GatehouseConfig>,
  cel: CelCompiler | undefined,
  upstreams: Map<string, Upstream>,
  services: SnapshotServices,
  previous?: Snapshot,
): Promise<{ policies: Map<string, AuthPolicy>; policiesOfRoute: Map<string, AuthPolicy[]> }> {
  const policies = new Map<string, AuthPolicy>()
  const policiesOfRoute = new Map<string, AuthPolicy[]>()
  if (Object.keys(config.policies).length === 0) return { policies, policiesOfRoute }
  const { compileAuthPolicy } = await authLayer()
  // Broker mode (docs/design/broker.md) is loaded only when a policy uses it; broker/ builds on auth/, so
  // it is wired here rather than imported by the auth layer.
  const brokered = Object.values(config.policies).some(
    (p) => p.traffic.jwtAuthentication?.mcp?.broker !== undefined,
  )
  const createBroker = brokered ? (await import('../broker/create.js')).createBroker : undefined
  const ctx: AuthContext = { config, upstreams, ...services, createBroker, cel }
  const pause = pacer()
  for (const [name, policy] of Object.entries(config.policies)) {
    await pause()
    const compiled =
      (previous && (await reusablePolicy(previous, name, policy, upstreams, pause))) ||
      compileAuthPolicy(name, policy, ctx)
    policies.set(name, compiled)
    for (const ref of policy.targetRefs) {
      await pause()
      const list = policiesOfRoute.get(ref.name) ?? []
      list.push(compiled)
      policiesOfRoute.set(ref.name, list)
    }
  }
  return { policies, policiesOfRoute }
}

/**
 * One MCP-aware stage per route, shared by its rules and gateways (one set of rate-limit
 * buckets); `previous`'s when the route's policies did not change.
 */
async function buildMcpStages(
  config: Readonly<GatehouseConfig>,
  attachedOf: ReadonlyMap<string, AttachedPolicy[]>,
  cel: CelCompiler | undefined,
  services: SnapshotServices,
  previous?: Snapshot,
): Promise<Snapshot['mcpOfRoute']> {
  const mcpOfRoute: Snapshot['mcpOfRoute'] = new Map()
  const mcpAware = Object.values(config.policies).some(
    (p) => p.traffic.mcpAuthorization !== undefined || p.traffic.localRateLimit !== undefined,
  )
  if (!mcpAware) return mcpOfRoute
  // Loaded only when a policy asks for it, like the auth layer.
  const { compileMcpRoutePolicy } = await import('../mcp/route-policy.js')
  const pause = pacer()
  // Whether a policy is as it was: once per policy, not once per route it targets.
  const unchanged = new Map<string, boolean>()
  if (previous) {
    for (const [name, policy] of Object.entries(config.policies)) {
      unchanged.set(name, await samePolicy(previous.config.policies[name], policy, pause))
    }
  }
  const same = (p: AttachedPolicy) => unchanged.get(p.name) ?? false
  for (const routeName of Object.keys(config.routes)) {
    await pause()
    const attached = attachedOf.get(routeName) ?? []
    const before = previous?.mcpOfRoute.get(routeName)
    const from = before?.from as readonly AttachedPolicy[] | undefined
    const stage =
      from &&
      from.length === attached.length &&
      attached.every((p, i) => from[i]?.name === p.name && same(p))
        ? before?.stage
        : compileMcpRoutePolicy(
            attached,
            services.sharedBuckets
              ? { buckets: services.sharedBuckets, scope: routeName }
              : undefined,
            cel,
          )
    mcpOfRoute.set(routeName, { stage, from: attached })
  }
  return mcpOfRoute
}

/** Each gateway's router over the rules of its routes, and the route names per gateway. */
async function buildGateways(
  config: Readonly<GatehouseConfig>,
  attachedOf: ReadonlyMap<string, AttachedPolicy[]>,
  upstreams: ReadonlyMap<string, Upstream>,
  policiesOfRoute: ReadonlyMap<string, AuthPolicy[]>,
  mcpOfRoute: Snapshot['mcpOfRoute'],
): Promise<{ gateways: Map<string, GatewayRuntime>; routesOf: Map<string, string[]> }> {
  const gateways = new Map<string, GatewayRuntime>()
  const routesOf = new Map<string, string[]>()
  // A turn every 50 routes here, not 250: each route's rules are compiled in this walk (CORS,
  // Origin check), and 250 of them were the longest busy run left on the event loop during a
  // 10,000-route reload (some 60 ms under load; bench/RESULTS.md, "the YAML fast path").
  const pause = pacer(50)
  for (const gwName of Object.keys(config.gateways)) {
    // Entries go into the route table as the walk reaches them (its turns included): the table
    // built in one call at the end was one of a large reload's longest stalls.
    const router = new RouterBuilder<CompiledRule>()
    const gwPolicies = new Set<AuthPolicy>()
    const names = await routesFor(config, gwName)
    routesOf.set(gwName, names)
    for (const routeName of names) {
      await pause()
      const route = config.routes[routeName]
      if (!route) continue
      route.rules.forEach((rule, i) => {
        const backendRef = rule.backendRefs[0]
        const upstream = backendRef && upstreams.get(backendRef.name)
        if (!backendRef || !upstream) return
        const corsFilter = rule.filters.find((f) => f.type === 'CORS')
        const target: CompiledRule = {
          route: routeName,
          rule: i,
          backend: backendRef.name,
          upstream,
          cors: corsFilter ? compileCors(corsFilter.cors) : undefined,
          origin: originCheckFor(attachedOf.get(routeName) ?? [], corsFilter?.cors.allowOrigins),
          policies: policiesOfRoute.get(routeName) ?? [],
          mcp: mcpOfRoute.get(routeName)?.stage,
        }
        for (const p of target.policies) gwPolicies.add(p)
        for (const m of rule.matches) router.add({ type: m.path.type, value: m.path.value, target })
      })
    }
    const probePath = config.gateways[gwName]?.probePath
    gateways.set(gwName, {
      name: gwName,
      router: router.build(),
      ...(probePath
        ? { probe: { path: probePath, ready: () => policyProblems(gwPolicies).length === 0 } }
        : {}),
    })
  }
  return { gateways, routesOf }
}

/** A compiled policy of `previous` that can serve `policy` as it is: same config, same JWKS upstreams. */
async function reusablePolicy(
  previous: Snapshot,
  name: string,
  policy: GatehouseConfig['policies'][string],
  upstreams: ReadonlyMap<string, Upstream>,
  pause: () => Promise<void>,
): Promise<AuthPolicy | undefined> {
  const compiled = previous.policies.get(name)
  if (!compiled || !(await samePolicy(previous.config.policies[name], policy, pause)))
    return undefined
  const backends = (policy.traffic.jwtAuthentication?.providers ?? []).flatMap((p) =>
    p.jwks?.remote ? [p.jwks.remote.backendRef.name] : [],
  )
  const same = backends.every((b) => upstreams.get(b) === previous.upstreams.get(b))
  return same ? compiled : undefined
}

/**
 * `isDeepStrictEqual(before, policy)`, with the policy's `targetRefs` (one policy may name every
 * route: 10,000 references) compared an item at a time through `pause`, so that a reload gives
 * the event loop its turns there too instead of comparing the whole list in one call
 * (docs/reliability.md, "Large configurations").
 */
async function samePolicy(
  before: GatehouseConfig['policies'][string] | undefined,
  policy: GatehouseConfig['policies'][string],
  pause: () => Promise<void>,
): Promise<boolean> {
  if (!before) return false
  const { targetRefs: a, ...restBefore } = before
  const { targetRefs: b, ...rest } = policy
  if (!isDeepStrictEqual(restBefore, rest)) return false
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) {
    return isDeepStrictEqual(a, b)
  }
  for (let i = 0; i < a.length; i++) {
    await pause()
    if (!isDeepStrictEqual(a[i], b[i])) return false
  }
  return true
}

/**
 * Ends what `previous` held and `next` did not take over: stops the policies' refresh timers and
 * closes the upstreams once their in-flight requests are done (requests that started on
 * `previous` finish on it).
 */
export async function retireSnapshot(
  previous: Snapshot,
  next: Snapshot | undefined,
): Promise<void> {
  const keptPolicies = new Set(next?.policies.values() ?? [])
  for (const p of previous.policies.values()) if (!keptPolicies.has(p)) p.stop()
  const keptUpstreams = new Set(next?.upstreams.values() ?? [])
  await Promise.allSettled(
    [...previous.upstreams.values()].filter((u) => !keptUpstreams.has(u)).map((u) => u.close()),
  )
}
