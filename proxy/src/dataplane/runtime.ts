/**
 * The compiled snapshot the data plane reads (built by `compile.ts` from the configuration): per
 * gateway a router whose matches are compiled rules, each with its backend, CORS, Origin check
 * and policies.
 */
import type { AuthPolicy } from '../auth/types.js'
import type { Upstream } from '../http/upstream.js'
import type { McpRoutePolicy } from '../mcp/route-policy.js'
import type { Cors } from './cors.js'
import type { OriginCheck } from './origin.js'
import type { Router } from './router.js'

/** One compiled route rule: what a match selects. */
export interface CompiledRule {
  route: string
  rule: number
  backend: string
  upstream: Upstream
  cors: Cors | undefined
  /** Origin/Host validation (DNS rebinding protection); on every route unless a policy disables it. */
  origin: OriginCheck | undefined
  policies: readonly AuthPolicy[]
  /** The MCP-aware stage (docs/observability.md), on routes whose policies have mcpAuthorization or localRateLimit. */
  mcp?: McpRoutePolicy | undefined
}

/** The compiled snapshot of one gateway. */
export interface GatewayRuntime {
  name: string
  router: Router<CompiledRule>
  /**
   * `gateways.<name>.probePath`: the path a load balancer probes, answered by the gateway itself
   * (200 or 503, no detail); `ready` says whether the policies on its routes have their keys.
   */
  probe?: { path: string; ready(): boolean } | undefined
}
