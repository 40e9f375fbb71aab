/**
 * The building blocks of the gatehouse configurations the harness runs: the embedded stack's
 * (stack.ts) and each client scenario's (client/scenario-stack.ts). One MCP route and one
 * JWT-authentication policy shape, so the two stacks cannot drift apart.
 */

/** The seed's CORS filter, with the MCP transport headers added (CORS-006). */
export const CORS = {
  type: 'CORS',
  cors: {
    allowCredentials: true,
    // The seed's values plus the MCP transport's headers, without which browser sessions break
    // after initialize (CORS-006; docs/auth.md "Browser MCP clients").
    allowHeaders: [
      'Origin',
      'Authorization',
      'Content-Type',
      'Mcp-Session-Id',
      'MCP-Protocol-Version',
    ],
    allowMethods: ['*'],
    allowOrigins: ['*'],
    exposeHeaders: ['Origin', 'Mcp-Session-Id'],
    maxAge: 86400,
  },
}

/**
 * The three path prefixes an MCP route must match (seed: Endpoints), and the root form of the
 * protected-resource metadata, which MCP 2025-11-25 clients fall back to when the path form fails
 * (PRM-005).
 */
export const MCP_MATCHES = [
  ...[
    '/mcp',
    '/.well-known/oauth-protected-resource/mcp',
    '/.well-known/oauth-authorization-server/mcp',
  ].map((value) => ({ path: { type: 'PathPrefix', value } })),
  { path: { type: 'Exact', value: '/.well-known/oauth-protected-resource' } },
]

/**
 * An MCP route on the gateway (listener) `gateway`: `matches` (default the seed's three
 * prefixes), the {@link CORS} filter, to the backend `mcp-backend`.
 */
export function mcpRoute(
  gateway: string,
  matches: readonly unknown[] = MCP_MATCHES,
): Record<string, unknown> {
  return {
    parentRefs: [{ name: gateway }],
    rules: [{ matches, filters: [CORS], backendRefs: [{ name: 'mcp-backend' }] }],
  }
}

/**
 * A policy on the HTTPRoute `route`: `Strict` JWT authentication (seed: Authentication) with
 * `jwt`'s providers (and `mcp` settings, if any), then `authorization`, if given.
 */
export function jwtPolicy(
  route: string,
  jwt: {
    providers: readonly unknown[]
    mcp?: Record<string, unknown>
    opaqueTokens?: Record<string, unknown>
  },
  authorization?: Record<string, unknown>,
): Record<string, unknown> {
  return {
    targetRefs: [{ kind: 'HTTPRoute', name: route }],
    traffic: {
      jwtAuthentication: { mode: 'Strict', ...jwt },
      ...(authorization ? { authorization } : {}),
    },
  }
}
