/**
 * 2026-07-28 requests built by hand (without an SDK client), so tests, the demo and the
 * conformance suite send the same thing: the per-request `_meta` envelope (MCP 2026-07-28
 * Basic, "_meta") and the request metadata headers that mirror it (MCP 2026-07-28 Streamable
 * HTTP, "Request Metadata": `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`).
 */

/** The protocol revision these requests speak. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28'

/** Methods whose `Mcp-Name` header mirrors a body field, and which (MCP 2026-07-28, SEP-2663). */
const NAME_SOURCE: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
}

/** Options of {@link modernRequest}. */
export interface ModernRequestOptions {
  /** `params` without `_meta` (added). */
  params?: Record<string, unknown>
  /** JSON-RPC id; default 1. Ignored for notifications (`notification: true`). */
  id?: number | string
  /** Send a notification (no id). */
  notification?: boolean
  /** More `_meta` members (e.g. `progressToken`). */
  meta?: Record<string, unknown>
  /** Client capabilities declared in `_meta`; default `{}`. */
  capabilities?: Record<string, unknown>
  /** Sent as `Authorization: Bearer <token>` when given. */
  bearer?: string | undefined
  /** More headers; they win over the computed ones. A `null` value drops that header. */
  headers?: Record<string, string | null>
  /** `clientInfo.name`; default `gatehouse-test`. */
  clientName?: string
}

/** The JSON body of a 2026-07-28 request: `params._meta` carries version, client and capabilities. */
export function modernBody(method: string, options: ModernRequestOptions = {}): string {
  const params = {
    ...options.params,
    _meta: {
      ...options.meta,
      'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
      'io.modelcontextprotocol/clientInfo': {
        name: options.clientName ?? 'gatehouse-test',
        version: '0',
      },
      'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? {},
    },
  }
  return JSON.stringify({
    jsonrpc: '2.0',
    ...(options.notification ? {} : { id: options.id ?? 1 }),
    method,
    params,
  })
}

/**
 * `fetch` options for a 2026-07-28 POST: the body of {@link modernBody}, both response types
 * accepted, and `MCP-Protocol-Version`, `Mcp-Method` and (where the method has one) `Mcp-Name`.
 * `Mcp-Param-*` headers are the caller's (`headers`), as they depend on the tool's schema.
 */
export function modernRequest(method: string, options: ModernRequestOptions = {}): RequestInit {
  const field = NAME_SOURCE[method]
  const name = field === undefined ? undefined : options.params?.[field]
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN_PROTOCOL_VERSION,
    'mcp-method': method,
    ...(typeof name === 'string' ? { 'mcp-name': headerValue(name) } : {}),
    ...(options.bearer !== undefined ? { authorization: `Bearer ${options.bearer}` } : {}),
  }
  for (const [k, v] of Object.entries(options.headers ?? {})) {
    if (v === null) delete headers[k.toLowerCase()]
    else headers[k.toLowerCase()] = v
  }
  return { method: 'POST', headers, body: modernBody(method, options) }
}

/**
 * A value as an `Mcp-Name`/`Mcp-Param-*` header carries it (MCP 2026-07-28 Streamable HTTP,
 * "Value Encoding"): as is when it is plain visible ASCII without leading or trailing space and
 * does not look like the sentinel, else `=?base64?<UTF-8 as Base64>?=`.
 */
export function headerValue(value: string): string {
  const plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value)
  const sentinel = value.startsWith('=?base64?') && value.endsWith('?=')
  return plain && !sentinel ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`
}
