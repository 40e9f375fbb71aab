/**
 * Diagnostics channels (`node:diagnostics_channel`) through which deep parts of the proxy report
 * to telemetry without being wired to it, as undici and fastify do: publishing costs nothing while
 * nobody subscribes, and a module such as the key set needs no metrics object passed down to it.
 */
import { channel } from 'node:diagnostics_channel'

/** A JWKS fetch ended (`start`, `interval` or `unknown kid`). */
export interface JwksRefreshMessage {
  issuer: string
  reason: string
  ok: boolean
}

/** Published by the key set after every remote fetch. */
export const jwksRefreshChannel = channel('gatehouse:jwks:refresh')

/** Tool names known to be real: named by a policy, or listed by a backend in a tools/list result. */
export interface ToolsKnownMessage {
  names: readonly string[]
}

/** Published by the MCP stage; the metrics keep these names as labels of their own. */
export const toolsKnownChannel = channel('gatehouse:mcp:tools')

/** An HTTPS listener's certificates changed on disk and now serve (leaf SHA-256 fingerprints). */
export interface TlsReloadMessage {
  gateway: string
  fingerprints: readonly string[]
}

/** Published by an HTTPS listener after it installed certificates read again from disk. */
export const tlsReloadChannel = channel('gatehouse:tls:reload')
