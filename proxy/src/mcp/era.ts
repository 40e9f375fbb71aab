/**
 * Which MCP era a request belongs to, told per request: one endpoint serves clients of both
 * (MCP 2026-07-28 Versioning §Backward Compatibility with Initialization-Based Versions: "A
 * dual-era server MAY serve both eras concurrently on the same endpoint").
 *
 * - **modern** (2026-07-28 and later): the `MCP-Protocol-Version` header, or the body's
 *   `_meta["io.modelcontextprotocol/protocolVersion"]`, names such a version. No session, no
 *   `initialize`; the request metadata headers are required and validated (headers.ts).
 * - **legacy** (2025-11-25 and before): anything else, an absent header included (2026-07-28
 *   Streamable HTTP §Protocol Version Header: a server that supports clients before 2025-06-18
 *   "MAY treat a request that omits the header as protocol version 2025-03-26"). Served as
 *   before: the 2025-11-25 rules, MCP session binding included.
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { DistinctHeaders } from './header-value.js'
import {
  isModernVersion,
  type McpBody,
  type McpBodyError,
  type McpMessage,
  RPC_ERROR,
  rpcError,
} from './json-rpc.js'

/** The protocol era of one request. */
export type McpEra = 'modern' | 'legacy'

/** The header that names the request's protocol version (MCP 2025-06-18 and later). */
export const PROTOCOL_VERSION_HEADER = 'mcp-protocol-version'

/**
 * The era the `MCP-Protocol-Version` header alone says, for steps that do not read the body
 * (session binding, forwarding). A repeated header (Node joins it) names no version: legacy,
 * whose rules (session binding) are the stricter for those steps.
 */
export function headerEra(headers: IncomingHttpHeaders): McpEra {
  const v = headers[PROTOCOL_VERSION_HEADER]
  return typeof v === 'string' && isModernVersion(v) ? 'modern' : 'legacy'
}

function mismatch(first: McpMessage | undefined, message: string): McpBodyError {
  const id = first && first.type !== 'notification' ? (first.id ?? null) : null
  return { code: RPC_ERROR.headerMismatch, message: `Header mismatch: ${message}`, id }
}

/**
 * The era of a parsed POST body and its headers, or the error to refuse it with: in the modern
 * era the header must be present, sent once, and equal to each request's `_meta` version (MCP
 * 2026-07-28 Streamable HTTP §Protocol Version Header: "The header value MUST match the
 * `io.modelcontextprotocol/protocolVersion` field carried in the request body's `_meta`. If the
 * values do not match, the server MUST reject the request with `400 Bad Request` and a
 * `HeaderMismatch` JSON-RPC error"), and the body one message (§Sending Messages: "MUST be a
 * single JSON-RPC request or notification").
 */
export function bodyEra(headers: DistinctHeaders, body: McpBody): McpEra | McpBodyError {
  const values = headers[PROTOCOL_VERSION_HEADER] ?? []
  const first = body.messages[0]
  const modern = values.some(isModernVersion) || body.messages.some((m) => m.modern === true)
  if (!modern) return 'legacy'
  if (values.length > 1) {
    return mismatch(first, `MCP-Protocol-Version is sent ${values.length} times; send it once`)
  }
  const header = values[0]
  if (header === undefined) {
    return mismatch(
      first,
      `MCP-Protocol-Version header missing; a request of protocol version ${first?.version} carries it`,
    )
  }
  if (body.batch) {
    return {
      code: RPC_ERROR.invalidRequest,
      message: `Invalid Request: a POST of protocol version ${header} carries a single JSON-RPC message, not a batch`,
      id: null,
    }
  }
  for (const m of body.messages) {
    if (m.type === 'request' && m.version !== header) {
      return mismatch(
        m,
        m.version === undefined
          ? `MCP-Protocol-Version header value '${header}' but the body's _meta names no io.modelcontextprotocol/protocolVersion`
          : `MCP-Protocol-Version header value '${header}' does not match body value '${m.version}'`,
      )
    }
  }
  return 'modern'
}

/**
 * The answer to a modern request for a method 2026-07-28 removed (`resources/subscribe`,
 * `initialize`, …), or `undefined`: 404 with `-32601`, as the revision tells a server to answer
 * a method it does not implement (Streamable HTTP §Protocol Version Header: "If the server does
 * not implement the requested RPC method, it MUST respond with `404 Not Found` and a JSON-RPC
 * error with code `-32601`"). The gateway answers it rather than forwarding, so that no backend
 * runs a legacy method (a subscription to a resource the rules deny) under modern metadata.
 */
export function removedMethodError(body: McpBody): ReturnType<typeof rpcError> | undefined {
  const removed = body.messages.find((m) => m.removed === true)
  if (!removed) return undefined
  return rpcError(
    removed.type === 'request' ? removed.id : null,
    RPC_ERROR.methodNotFound,
    `Method not found: ${removed.method} is not part of MCP ${removed.version ?? '2026-07-28'} (removed in 2026-07-28)`,
  )
}
