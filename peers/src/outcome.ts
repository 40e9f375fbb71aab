/**
 * What a peer's run showed, the same shape for every client, so tests assert alike: whether it
 * got an MCP session through the gateway, which tools it listed, what `echo` answered, and where
 * it stopped otherwise.
 */

/** One HTTP exchange of the client with the gateway's MCP endpoint. */
export interface McpExchange {
  method: string
  status: number
}

/** The outcome of one run of a peer against a gateway. */
export interface PeerOutcome {
  /** Names from `tools/list`; empty when the client never got that far. */
  tools: string[]
  /** The text `echo` answered, when the client called it. */
  echo?: string
  /** Why the client stopped short (its own error message), when it did. */
  error?: string
  /** HTTP statuses the gateway's MCP endpoint answered, in order (where the driver sees them). */
  mcpStatuses: number[]
  /** Authorization flows the client started (each one a sign-in in the browser). */
  authorizations: number
}

/** The text a tool result carries, joined. */
export function resultText(result: unknown): string {
  const content = (result as { content?: Array<{ type?: string; text?: string }> })?.content ?? []
  return content
    .filter((c) => c.type === 'text')
    .map((c) => c.text ?? '')
    .join('')
}

/**
 * A fetch that records the status of every answer from `mcpUrl` itself (not discovery or the
 * authorization server) into `into`.
 */
export function recordingFetch(mcpUrl: string, into: number[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init)
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    if (url === mcpUrl) into.push(res.status)
    return res
  }
}
