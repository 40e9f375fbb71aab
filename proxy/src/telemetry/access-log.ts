/**
 * The vocabulary of the access log line (module `proxy::access`): how a request ended as far as
 * policies go, and how an MCP message is named in it.
 */

/** How a request ended, as far as policies go (the `outcome` label and log field). */
export type PolicyOutcome =
  | 'no_route'
  | 'preflight'
  | 'origin_denied'
  | 'oauth_endpoint'
  | 'unauthenticated'
  | 'forbidden'
  | 'mcp_invalid'
  | 'mcp_denied'
  | 'rate_limited'
  | 'allowed'
  | 'no_policy'

/** An MCP message as the access log names it. */
export interface McpSummary {
  method: string
  type: string
  id: unknown
  tool?: string
  prompt?: string
  resource?: string
}

/** The access log's view of one MCP message: method, id and what it names. */
export function compact(m: McpSummary): Record<string, unknown> {
  const out: Record<string, unknown> = { method: m.method }
  if (m.id !== null && m.id !== undefined) out.id = m.id
  if (m.tool) out.tool = m.tool
  if (m.prompt) out.prompt = m.prompt
  if (m.resource) out.resource = m.resource
  return out
}
