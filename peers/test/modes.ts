/**
 * The demo's auth policy put in one mode or the other, for tests that compare what a client does
 * in each (docs/auth.md, "Pass-through or broker").
 */
import type { GatehouseConfigInput } from '@gatehouse/proxy'

/** The demo's `mcp-auth` policy's `jwtAuthentication.mcp` block. */
function demoMcp(config: GatehouseConfigInput): Record<string, unknown> {
  const policies = config.policies as Record<string, { traffic?: Record<string, unknown> }>
  const jwt = policies['mcp-auth']?.traffic?.jwtAuthentication as
    | { mcp?: Record<string, unknown> }
    | undefined
  if (!jwt?.mcp) throw new Error('the demo configuration has no mcp-auth policy with an mcp block')
  return jwt.mcp
}

/**
 * The seed's pass-through mode (no broker), with the metadata's `issuer` as `issuerMode` says:
 * `Provider` (the IdP's, the seed's default) or `Gateway`.
 */
export function passThrough(issuerMode: 'Provider' | 'Gateway') {
  return (config: GatehouseConfigInput): void => {
    const mcp = demoMcp(config)
    delete mcp.broker
    mcp.issuerMode = issuerMode
  }
}

/**
 * Broker mode: the gateway is the authorization server its MCP clients see (docs/design/broker.md). The demo's
 * own `mcp.broker` block when it has one, else the defaults (`broker: {}`: the gateway's client at
 * the IdP is the demo's `mcp.clientId`).
 */
export function broker(config: GatehouseConfigInput): void {
  const mcp = demoMcp(config)
  mcp.broker ??= {}
  delete mcp.issuerMode
}
