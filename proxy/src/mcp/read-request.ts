/**
 * Reading one `POST /mcp` for the MCP stage (route-policy.ts): the body (bounded), its JSON-RPC
 * messages, the protocol era it belongs to (era.ts), and the request metadata headers checked
 * against it (headers.ts). Every refusal is a JSON-RPC answer of its own status: 413 for a body
 * above {@link MCP_MAX_BODY_BYTES}, 400 for one that is not JSON-RPC or whose headers do not mirror
 * it (`HeaderMismatch`, -32020, MCP 2026-07-28 Streamable HTTP §Server Validation), 404 with
 * -32601 for a method 2026-07-28 removed, asked for under that revision.
 */
import { ERRORS, type RequestErrorCode } from '../errors.js'
import type { LocalRequest, LocalResponse } from '../http/local-response.js'
import type { RequestTrace } from '../telemetry/trace-bus.js'
import { bodyEra, type McpEra, PROTOCOL_VERSION_HEADER, removedMethodError } from './era.js'
import { checkMirroredHeaders } from './headers.js'
import {
  isMcpBodyError,
  isModernVersion,
  MCP_MAX_BODY_BYTES,
  type McpBodyError,
  type McpMessage,
  parseMcpBody,
  RPC_ERROR,
  rpcError,
} from './json-rpc.js'
import type { ParamHeaderSpecs } from './param-headers.js'

/** A JSON-RPC answer of the gateway: the status of `code` (errors.ts), which is kept for logs only. */
export function jsonRpcAnswer(
  code: RequestErrorCode,
  body: unknown,
  headers: Record<string, string> = {},
): LocalResponse {
  return {
    status: ERRORS[code].status,
    code,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
    body,
  }
}

/** The refusal of a body: 400 with its JSON-RPC error (HeaderMismatch has a code of its own). */
function refusal(err: McpBodyError): LocalResponse {
  const code =
    err.code === RPC_ERROR.headerMismatch
      ? 'GW_ERR_MCP_HEADER_MISMATCH'
      : 'GW_ERR_MCP_INVALID_MESSAGE'
  return jsonRpcAnswer(code, rpcError(err.id, err.code, err.message))
}

/** What {@link readMessages} reads of the request. */
export type McpReadRequest = Pick<LocalRequest, 'headersDistinct' | 'body'> & {
  trace?: RequestTrace | undefined
}

/** A body read and accepted. */
export interface ReadMessages {
  body: Buffer
  messages: readonly McpMessage[]
  batch: boolean
  era: McpEra
}

/**
 * Reads and parses a POST body: its JSON-RPC messages and era, or the refusal of a body above
 * {@link MCP_MAX_BODY_BYTES}, one that is not JSON-RPC, one whose request metadata headers do not
 * mirror it, or (modern era) one asking for a removed method.
 * @param params - the `x-mcp-header` annotations known for each tool.
 */
export async function readMessages(
  req: McpReadRequest,
  params?: ParamHeaderSpecs,
): Promise<ReadMessages | { response: LocalResponse }> {
  const trace = req.trace
  let body: Buffer
  try {
    body = await req.body(MCP_MAX_BODY_BYTES)
  } catch (err) {
    if ((err as { code?: string }).code !== 'GW_ERR_BODY_TOO_LARGE') throw err
    trace?.event('mcp_request', { error: 'body too large', limit: MCP_MAX_BODY_BYTES })
    return {
      response: jsonRpcAnswer(
        'GW_ERR_BODY_TOO_LARGE',
        rpcError(
          null,
          RPC_ERROR.invalidRequest,
          `Request body above ${MCP_MAX_BODY_BYTES} bytes: the gateway reads MCP requests to apply its policy`,
        ),
      ),
    }
  }
  const headers = req.headersDistinct
  const modernHeader = (headers[PROTOCOL_VERSION_HEADER] ?? []).some(isModernVersion)
  const parsed = parseMcpBody(body, { modern: modernHeader })
  if (isMcpBodyError(parsed)) {
    trace?.event('mcp_request', { error: parsed.message, code: parsed.code })
    return { response: refusal(parsed) }
  }
  const messages = parsed.messages
  const era = bodyEra(headers, parsed)
  trace?.event('mcp_request', {
    batch: parsed.batch,
    era: typeof era === 'string' ? era : 'invalid',
    messages: messages.map((m) => ({
      type: m.type,
      method: m.method,
      id: m.id ?? null,
      ...(m.target ? { [m.target.kind]: m.target.name } : {}),
    })),
  })
  const invalid =
    typeof era === 'string'
      ? checkMirroredHeaders(headers, parsed, {
          modern: era === 'modern',
          ...(params ? { params } : {}),
        })
      : era
  if (invalid) {
    trace?.event('mcp_request', { error: invalid.message, code: invalid.code })
    return { response: refusal(invalid) }
  }
  const removed = era === 'modern' ? removedMethodError(parsed) : undefined
  if (removed) {
    trace?.event('mcp_request', { error: removed.error.message, code: removed.error.code })
    return { response: jsonRpcAnswer('GW_ERR_MCP_METHOD_REMOVED', removed) }
  }
  return { body, messages, batch: parsed.batch, era: era as McpEra }
}
