/**
 * Cross-reference checks of a configuration that passed the schema: names that must point at
 * something that exists, and the path prefixes an MCP route must carry.
 */
import { isIP } from 'node:net'
import type { ConfigIssue } from '../errors.js'
import type { GatehouseConfig, PolicyConfig } from './schema.js'

/** The three path prefixes a route carrying an `mcp` policy must have (seed, Endpoints). */
export const MCP_PATH_PREFIXES = [
  '/mcp',
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/oauth-authorization-server/mcp',
] as const

/** Cross-reference checks the schema alone cannot express. */
export function checkReferences(config: GatehouseConfig): ConfigIssue[] {
  return [
    ...checkGateways(config),
    ...checkRoutes(config),
    ...checkAuthenticated(config),
    ...Object.entries(config.policies).flatMap(([name, policy]) => [
      ...checkPolicyTargets(config, name, policy),
      ...checkProviderKeys(config, name, policy),
      ...checkOpaqueTokenBackend(config, name, policy),
    ]),
    ...checkOriginValidation(config),
    ...checkAdminPort(config),
    ...checkUi(config),
  ]
}

/** At least one gateway, each on its own address and port. */
function checkGateways(config: GatehouseConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  if (Object.keys(config.gateways).length === 0) {
    issues.push({ path: 'gateways', message: 'at least one gateway is required' })
  }
  const ports = new Map<string, string>()
  for (const [name, gw] of Object.entries(config.gateways)) {
    const key = `${gw.address}:${gw.port}`
    const other = ports.get(key)
    if (other) {
      issues.push({
        path: `gateways.${name}.port`,
        message: `${key} is already used by gateway "${other}"; give each gateway its own port`,
      })
    }
    ports.set(key, name)
  }
  return issues
}

/** A route's gateways (required when there are several) and backends exist. */
function checkRoutes(config: GatehouseConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  const gatewayNames = Object.keys(config.gateways)
  for (const [routeName, route] of Object.entries(config.routes)) {
    if (!route.parentRefs && gatewayNames.length > 1) {
      issues.push({
        path: `routes.${routeName}.parentRefs`,
        message: `required when there is more than one gateway (have: ${gatewayNames.join(', ')})`,
      })
    }
    route.parentRefs?.forEach((ref, i) => {
      if (!config.gateways[ref.name]) {
        issues.push({
          path: `routes.${routeName}.parentRefs[${i}].name`,
          message: `no gateway named "${ref.name}" (have: ${gatewayNames.join(', ') || 'none'})`,
        })
      }
    })
    route.rules.forEach((rule, r) => {
      rule.backendRefs.forEach((ref, b) => {
        if (!config.backends[ref.name]) {
          issues.push({
            path: `routes.${routeName}.rules[${r}].backendRefs[${b}].name`,
            message: `no backend named "${ref.name}" (have: ${Object.keys(config.backends).join(', ') || 'none'})`,
          })
        }
      })
    })
  }
  return issues
}

/**
 * The routes no authentication covers: no policy with `traffic.jwtAuthentication` targets them,
 * and neither they nor every gateway they attach to say `allowUnauthenticated: true`. Shared by
 * the load-time check and the admin dump (gwctl reports such a route).
 */
export function unauthenticatedRoutes(config: GatehouseConfig): string[] {
  const covered = new Set(
    Object.values(config.policies)
      .filter((p) => p.traffic.jwtAuthentication !== undefined)
      .flatMap((p) => p.targetRefs.map((ref) => ref.name)),
  )
  return Object.entries(config.routes)
    .filter(([name, route]) => {
      if (covered.has(name) || route.allowUnauthenticated === true) return false
      const gateways = route.parentRefs
        ? route.parentRefs.map((ref) => config.gateways[ref.name])
        : Object.values(config.gateways)
      return !(gateways.length > 0 && gateways.every((g) => g?.allowUnauthenticated === true))
    })
    .map(([name]) => name)
}

/**
 * Fail closed: a route that no authentication policy covers is refused unless it says it is
 * public. A misspelled, deleted or detached policy would otherwise leave an MCP backend open, and
 * a reload would report success (docs/reliability.md, "Fail-open configuration").
 */
function checkAuthenticated(config: GatehouseConfig): ConfigIssue[] {
  return unauthenticatedRoutes(config).map((name) => ({
    path: `routes.${name}`,
    reason: 'Unauthenticated',
    message: `no policy with traffic.jwtAuthentication targets this route, so it would serve without authentication; attach one (policies.<name>.targetRefs: [{ name: ${name} }]), or, if the route is meant to be public, set allowUnauthenticated: true on it (or on its gateway, for all of the gateway's routes; Kubernetes: the annotation <api-group>/allow-unauthenticated: "true")`,
  }))
}

/**
 * A policy's routes exist, and a route under a policy that serves MCP OAuth discovery carries the
 * three path prefixes it needs (seed, Endpoints).
 */
function checkPolicyTargets(
  config: GatehouseConfig,
  policyName: string,
  policy: PolicyConfig,
): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  policy.targetRefs.forEach((ref, i) => {
    const route = config.routes[ref.name]
    if (!route) {
      issues.push({
        path: `policies.${policyName}.targetRefs[${i}].name`,
        message: `no route named "${ref.name}" (have: ${Object.keys(config.routes).join(', ') || 'none'})`,
      })
      return
    }
    if (!policy.traffic.jwtAuthentication?.mcp) return
    const prefixes = new Set(
      route.rules.flatMap((rule) =>
        rule.matches.filter((m) => m.path.type === 'PathPrefix').map((m) => m.path.value),
      ),
    )
    const missing = MCP_PATH_PREFIXES.filter((p) => !prefixes.has(p))
    if (missing.length > 0) {
      issues.push({
        path: `routes.${ref.name}.rules`,
        message: `policy "${policyName}" serves MCP OAuth discovery, so the route needs PathPrefix matches for all of ${MCP_PATH_PREFIXES.join(', ')}; missing: ${missing.join(', ')}`,
      })
    }
  })
  return issues
}

/** A provider's remote key set names a declared backend, and not the path the IdP does not use. */
function checkProviderKeys(
  config: GatehouseConfig,
  policyName: string,
  policy: PolicyConfig,
): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  policy.traffic.jwtAuthentication?.providers.forEach((p, i) => {
    const ref = p.jwks?.remote?.backendRef
    if (ref && !config.backends[ref.name]) {
      issues.push({
        path: `policies.${policyName}.traffic.jwtAuthentication.providers[${i}].jwks.remote.backendRef.name`,
        message: `no backend named "${ref.name}"; declare the JWKS backend (the org domain, port 443) under backends`,
      })
    }
    const path = p.jwks?.remote?.jwksPath
    // The seed's rule is about the okta preset's IdP; other IdPs do serve keys there (Auth0).
    const okta = (p.preset ?? 'okta') === 'okta'
    if (okta && (path === '/.well-known/jwks.json' || path?.endsWith('/.well-known/jwks.json'))) {
      issues.push({
        path: `policies.${policyName}.traffic.jwtAuthentication.providers[${i}].jwks.remote.jwksPath`,
        message:
          'the bridged IdP does not publish keys at /.well-known/jwks.json; it serves them at /oauth2/<auth_server_id>/v1/keys',
      })
    }
  })
  return issues
}

/** The introspection or UserInfo endpoint of `opaqueTokens` names a declared backend. */
function checkOpaqueTokenBackend(
  config: GatehouseConfig,
  policyName: string,
  policy: PolicyConfig,
): ConfigIssue[] {
  const opaque = policy.traffic.jwtAuthentication?.opaqueTokens
  const [key, endpoint] = opaque?.introspection
    ? (['introspection', opaque.introspection] as const)
    : (['userinfo', opaque?.userinfo] as const)
  if (!endpoint || config.backends[endpoint.backendRef.name]) return []
  return [
    {
      path: `policies.${policyName}.traffic.jwtAuthentication.opaqueTokens.${key}.backendRef.name`,
      message: `no backend named "${endpoint.backendRef.name}"; declare the IdP's backend (its host, port 443 with tls) under backends`,
    },
  ]
}

/** The UI's gateway exists. */
function checkUi(config: GatehouseConfig): ConfigIssue[] {
  if (!config.ui?.gateway || config.gateways[config.ui.gateway]) return []
  return [{ path: 'ui.gateway', message: `no gateway named "${config.ui.gateway}"` }]
}

/**
 * A route takes its origin validation from one place: one policy's `traffic.originValidation`, or
 * the older `jwtAuthentication.mcp.originValidation` — two would leave it unclear which applies.
 */
function checkOriginValidation(config: GatehouseConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  const firstOf = new Map<string, string>()
  for (const [policyName, policy] of Object.entries(config.policies)) {
    const places = [
      ...(policy.traffic.originValidation
        ? [`policies.${policyName}.traffic.originValidation`]
        : []),
      ...(policy.traffic.jwtAuthentication?.mcp?.originValidation
        ? [`policies.${policyName}.traffic.jwtAuthentication.mcp.originValidation`]
        : []),
    ]
    for (const place of places) {
      for (const ref of new Set(policy.targetRefs.map((r) => r.name))) {
        const first = firstOf.get(ref)
        if (first === undefined) {
          firstOf.set(ref, place)
          continue
        }
        const [a, b] = place.endsWith('traffic.originValidation') ? [place, first] : [first, place]
        issues.push({
          path: a,
          message: `route "${ref}" also takes origin validation from ${b}; configure it in one place (traffic.originValidation is the route-level setting)`,
        })
      }
    }
  }
  return issues
}

/** Addresses a bind on any of which covers every other (all interfaces). */
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]'])

function isLoopbackName(host: string): boolean {
  return host === 'localhost' || (isIP(host) === 4 ? host.startsWith('127.') : host === '::1')
}

/** Whether binds on `a` and `b` (same port) can collide: equal, all interfaces, or localhost. */
function addressesOverlap(a: string, b: string): boolean {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()]
  if (WILDCARDS.has(x) || WILDCARDS.has(y) || x === y) return true
  return (x === 'localhost' && isLoopbackName(y)) || (y === 'localhost' && isLoopbackName(x))
}

/**
 * The admin interface may not listen where a gateway does: start would fail with EADDRINUSE
 * after `--validate` said the configuration is valid (docs/design/hardening.md).
 */
function checkAdminPort(config: GatehouseConfig): ConfigIssue[] {
  const addr = config.config.adminAddr
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s]+)):(\d+)$/.exec(addr)
  const port = Number(m?.[3])
  if (!m || port === 0) return []
  const host = (m[1] ?? m[2]) as string
  const issues: ConfigIssue[] = []
  for (const [name, gw] of Object.entries(config.gateways)) {
    if (gw.port !== port || !addressesOverlap(host, gw.address)) continue
    issues.push({
      path: 'config.adminAddr',
      message: `"${addr}" is also where gateway "${name}" listens (${gw.address}:${gw.port}), so start would fail with EADDRINUSE; give the admin interface a port of its own (default localhost:15000)`,
    })
  }
  return issues
}
