/**
 * The embedded stack's shared parts: mock-idp and mcp-backend, in this process. Every run starts
 * them: the embedded reference proxy and a `--target` are pointed at them, and each client-mode
 * scenario starts its own (client/scenario-stack.ts).
 */
import { type MockIdp, startMockIdp } from '@gatehouse/mock-idp'
import { type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'

/** The mock IdP's opaque-token authorization server (OPQ-*, catalogue/opaque-tokens.ts). */
export const OPAQUE_SERVER = {
  id: 'opaque',
  audience: 'api://opaque',
  opaqueAccessTokens: 'introspection' as const,
  accessTokenTtlSeconds: 4,
}

/** The shared parts: IdP and MCP backend. */
export interface Fixtures {
  idp: MockIdp
  backend: McpBackend
  stop(): Promise<void>
}

/**
 * Starts mock-idp and mcp-backend in this process, on free loopback ports or the ones given (a
 * target configured beforehand: `--idp-port`, `--backend-port`).
 */
export async function startFixtures(
  ports: { idp?: number; backend?: number } = {},
): Promise<Fixtures> {
  const idp = await startMockIdp({
    ...(ports.idp ? { port: ports.idp } : {}),
    // A second authorization server issuing opaque tokens, introspected by the opaque route
    // (OPQ-*); short-lived, so OPQ-002 sees one expire.
    authServers: [{ id: 'default', audience: 'api://default' }, OPAQUE_SERVER],
  })
  const backend = await startMcpBackend(ports.backend ? { port: ports.backend } : {})
  return {
    idp,
    backend,
    async stop() {
      await backend.stop()
      await idp.stop()
    },
  }
}
