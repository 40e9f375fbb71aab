/**
 * Configuration that is valid but will not do what its author most likely wants, or asks for what
 * this build does not do. Reported by
 * `gatehouse --validate` and logged at start; never a reason to refuse the file.
 */
import type { ConfigIssue } from '../errors.js'
import type { GatehouseConfig } from './schema.js'

/**
 * Request headers a browser MCP client sends on `/mcp` beyond the CORS-safelisted ones and those
 * the seed's reference filter allows (`Origin`, `Authorization`, `Content-Type`): the session id
 * after `initialize` and the protocol version (MCP 2025-06-18, Transports: Session Management,
 * Protocol Version Header), and the request metadata headers of every 2026-07-28 POST (MCP
 * 2026-07-28 Streamable HTTP §Standard Request Headers: `Mcp-Method`, `Mcp-Name`). A preflight
 * that does not allow them makes the browser refuse those requests. `Mcp-Param-<Name>` depends on
 * the backend's tools, so it is not named here (docs/auth.md, Browser MCP clients).
 */
export const MCP_TRANSPORT_REQUEST_HEADERS = [
  'Mcp-Session-Id',
  'MCP-Protocol-Version',
  'Mcp-Method',
  'Mcp-Name',
] as const

/** Warnings about a configuration that passed validation. */
export function configWarnings(config: GatehouseConfig): ConfigIssue[] {
  const warnings: ConfigIssue[] = []
  const mcpRoutes = new Set<string>()
  for (const policy of Object.values(config.policies)) {
    if (!policy.traffic.jwtAuthentication?.mcp) continue
    for (const ref of policy.targetRefs) mcpRoutes.add(ref.name)
  }
  for (const [routeName, route] of Object.entries(config.routes)) {
    if (!mcpRoutes.has(routeName)) continue
    route.rules.forEach((rule, r) => {
      rule.filters.forEach((filter, f) => {
        if (filter.type !== 'CORS') return
        const allowed = new Set(filter.cors.allowHeaders.map((h) => h.toLowerCase()))
        if (allowed.has('*')) return
        const missing = MCP_TRANSPORT_REQUEST_HEADERS.filter((h) => !allowed.has(h.toLowerCase()))
        if (missing.length === 0) return
        warnings.push({
          path: `routes.${routeName}.rules[${r}].filters[${f}].cors.allowHeaders`,
          message: `lacks ${missing.join(', ')}: browser MCP clients send them (2025-11-25: after initialize; 2026-07-28: Mcp-Method and Mcp-Name on every request), so their preflight is refused and their requests fail; add them (the seed's reference values omit them)`,
        })
      })
    })
  }
  warnings.push(...ignoredPorts(config))
  return warnings
}

/**
 * `port` on a backend reference (a route's `backendRefs[]`, a provider's `jwks.remote.backendRef`)
 * is accepted so that the seed's manifests translate one to one, but gatehouse connects to the
 * backend's own `static.port`. A reference naming another port would silently not mean what it
 * says: warn about it.
 */
function ignoredPorts(config: GatehouseConfig): ConfigIssue[] {
  const out: ConfigIssue[] = []
  const check = (path: string, ref: { name: string; port?: number | undefined }) => {
    const backend = config.backends[ref.name]
    if (ref.port === undefined || !backend || backend.static.port === ref.port) return
    out.push({
      path: `${path}.port`,
      message: `is ignored: gatehouse connects to backends.${ref.name}.static.port (${backend.static.port}), not ${ref.port}; remove it or make the two agree`,
    })
  }
  for (const [routeName, route] of Object.entries(config.routes)) {
    route.rules.forEach((rule, r) => {
      rule.backendRefs.forEach((ref, b) => {
        check(`routes.${routeName}.rules[${r}].backendRefs[${b}]`, ref)
      })
    })
  }
  for (const [policyName, policy] of Object.entries(config.policies)) {
    policy.traffic.jwtAuthentication?.providers.forEach((p, i) => {
      const ref = p.jwks?.remote?.backendRef
      if (ref) {
        check(
          `policies.${policyName}.traffic.jwtAuthentication.providers[${i}].jwks.remote.backendRef`,
          ref,
        )
      }
    })
  }
  return out
}
