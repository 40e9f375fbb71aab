/**
 * Translation of the validated configuration into the runtime snapshot the dataplane reads:
 * routers per gateway, upstream pools, compiled CORS filters and compiled auth policies.
 * Configuration → snapshot → request pipeline; nothing flows back.
 */
import type { AuthContext, AuthPolicy, CompileAuthPolicy } from './auth/types.js'
import type { GatehouseConfig } from './config/schema.js'
import { compileCors } from './dataplane/cors.js'
import { compileOriginCheck, type OriginCheck } from './dataplane/origin.js'
import { createRouter, type RouteEntry } from './dataplane/router.js'
import type { CompiledRule, GatewayRuntime } from './dataplane/runtime.js'
import { ConfigError, type ConfigIssue } from './errors.js'
import { createUpstream, type Upstream } from './http/upstream.js'
import type { McpRoutePolicy } from './mcp/route-policy.js'
import type { Logging } from './telemetry/logging.js'
import type { TaskRegistry } from './telemetry/tasks.js'

/** The compiled runtime. */
export interface Snapshot {
  config: Readonly<GatehouseConfig>
  upstreams: Map<string, Upstream>
  policies: Map<string, AuthPolicy>
  gateways: Map<string, GatewayRuntime>
  /** Route names per gateway. */
  routesOf: Map<string, string[]>
}

/** Loads the auth layer's static checks and compiler (kept out of start-up when unused). */
async function authLayer(): Promise<{
  compileAuthPolicy: CompileAuthPolicy
  checkAuthPolicy: (name: string, policy: GatehouseConfig['policies'][string]) => ConfigIssue[]
}> {
  return import('./auth/policy.js')
}

/**
 * Checks that need the compilers (CEL expressions, inline key sets), beyond the schema.
 * Used by start-up and by `gatehouse --validate`.
 */
export async function checkCompilable(
  config: Readonly<GatehouseConfig>,
  file?: string,
): Promise<void> {
  const issues: ConfigIssue[] = []
  const policies = Object.entries(config.policies)
  if (policies.length > 0) {
    const { checkAuthPolicy } = await authLayer()
    const { checkMcpPolicy } = await import('./mcp/policy-config.js')
    for (const [name, policy] of policies) {
      issues.push(...checkAuthPolicy(name, policy), ...checkMcpPolicy(name, policy))
    }
  }
  for (const [name, backend] of Object.entries(config.backends)) {
    try {
      createUpstream(backend).close()
    } catch (err) {
      issues.push({ path: `backends.${name}.tls.caCertificates`, message: (err as Error).message })
    }
  }
  if (issues.length > 0) throw new ConfigError('GW_ERR_CONFIG_INVALID', issues, file)
}

/** Routes attached to a gateway: those naming it, or every route when there is one gateway. */
function routesFor(config: Readonly<GatehouseConfig>, gateway: string): string[] {
  return Object.entries(config.routes)
    .filter(([, r]) => (r.parentRefs ? r.parentRefs.some((p) => p.name === gateway) : true))
    .map(([name]) => name)
}

/**
 * The Origin/Host check of a route carrying an MCP policy (`jwtAuthentication.mcp`), with the
 * rule's CORS origins as the default accepted origins; `undefined` for other routes.
 */
function originCheckFor(
  config: Readonly<GatehouseConfig>,
  route: string,
  corsOrigins: readonly string[] | undefined,
): OriginCheck | undefined {
  for (const policy of Object.values(config.policies)) {
    const mcp = policy.traffic.jwtAuthentication?.mcp
    if (!mcp || !policy.targetRefs.some((ref) => ref.name === route)) continue
    return compileOriginCheck({
      resource: mcp.resourceMetadata.resource,
      allowedOrigins: mcp.originValidation?.allowedOrigins,
      allowedHosts: mcp.originValidation?.allowedHosts,
      corsOrigins,
    })
  }
  return undefined
}

/** Builds the snapshot. Policies are compiled but not started. */
export async function compileSnapshot(
  config: Readonly<GatehouseConfig>,
  services: { logging: Logging; tasks: TaskRegistry },
): Promise<Snapshot> {
  const upstreams = new Map<string, Upstream>()
  for (const [name, backend] of Object.entries(config.backends))
    upstreams.set(name, createUpstream(backend))

  const policies = new Map<string, AuthPolicy>()
  const policiesOfRoute = new Map<string, AuthPolicy[]>()
  if (Object.keys(config.policies).length > 0) {
    const { compileAuthPolicy } = await authLayer()
    const ctx: AuthContext = { config, upstreams, ...services }
    // Broker mode (issue #22), loaded only when a policy asks for it, like the auth layer.
    if (Object.values(config.policies).some((p) => p.traffic.jwtAuthentication?.mcp?.broker)) {
      ctx.createBroker = (await import('./broker/broker.js')).createBroker
    }
    for (const [name, policy] of Object.entries(config.policies)) {
      const compiled = compileAuthPolicy(name, policy, ctx)
      policies.set(name, compiled)
      for (const ref of policy.targetRefs) {
        const list = policiesOfRoute.get(ref.name) ?? []
        list.push(compiled)
        policiesOfRoute.set(ref.name, list)
      }
    }
  }

  // One MCP-aware stage per route, shared by its rules and gateways (one set of rate-limit buckets).
  const mcpOfRoute = new Map<string, McpRoutePolicy | undefined>()
  const mcpAware = Object.values(config.policies).some(
    (p) => p.traffic.mcpAuthorization !== undefined || p.traffic.localRateLimit !== undefined,
  )
  // Loaded only when a policy asks for it, like the auth layer.
  const { compileMcpRoutePolicy } = mcpAware
    ? await import('./mcp/route-policy.js')
    : { compileMcpRoutePolicy: () => undefined }
  for (const routeName of mcpAware ? Object.keys(config.routes) : []) {
    const attached = Object.entries(config.policies)
      .filter(([, p]) => p.targetRefs.some((ref) => ref.name === routeName))
      .map(([name, policy]) => ({ name, policy }))
    mcpOfRoute.set(routeName, compileMcpRoutePolicy(attached))
  }

  const gateways = new Map<string, GatewayRuntime>()
  const routesOf = new Map<string, string[]>()
  for (const gwName of Object.keys(config.gateways)) {
    const entries: RouteEntry<CompiledRule>[] = []
    const names = routesFor(config, gwName)
    routesOf.set(gwName, names)
    for (const routeName of names) {
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
          origin: originCheckFor(config, routeName, corsFilter?.cors.allowOrigins),
          policies: policiesOfRoute.get(routeName) ?? [],
          mcp: mcpOfRoute.get(routeName),
        }
        for (const m of rule.matches)
          entries.push({ type: m.path.type, value: m.path.value, target })
      })
    }
    gateways.set(gwName, { name: gwName, router: createRouter(entries) })
  }
  return { config, upstreams, policies, gateways, routesOf }
}
