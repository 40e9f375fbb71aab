/**
 * The access log line (module `proxy::access`, level info), built from chosen fields that are safe
 * to show: names from the configuration (gateway, route, backend, limits), numbers, the explicit
 * outcome, the client address and the method (Node's parser admits only registered methods).
 * The few strings a client chooses — the path, the token's subject, MCP ids, tool, prompt and
 * resource names, a body error — go through the shared redaction one by one, so the line needs no
 * generic redaction pass (docs/design/performance.md: that pass was most of the log's cost). It never holds a token.
 */
import { redactText } from '@gatehouse/redact'
import type { McpSummary, RequestOutcome } from './trace-events.js'

export type { McpSummary, PolicyOutcome } from './trace-events.js'

/** Client-chosen strings up to this length are remembered when they need no redaction. */
const MEMO_MAX_CHARS = 256
/** Remembered strings at most; the memo starts over when full. */
const MEMO_MAX_ENTRIES = 1024

/**
 * {@link redactText} with a bounded memo of strings it left unchanged: the same few paths and tool
 * names come back on every request, and their redaction is a handful of regular expressions each
 * time. A string that held a secret is not remembered (nor kept in memory), only redacted again.
 */
export class ShownText {
  readonly #safe = new Set<string>()

  /** `text` as the log may show it. */
  of(text: string): string {
    if (this.#safe.has(text)) return text
    const shown = redactText(text)
    if (shown === text && text.length <= MEMO_MAX_CHARS) {
      if (this.#safe.size >= MEMO_MAX_ENTRIES) this.#safe.clear()
      this.#safe.add(text)
    }
    return shown
  }
}

/** What one access line reports: facts the request observation collected. */
export interface AccessFacts {
  gateway: string
  route: string
  method: string
  /** The request path as received (client-chosen: redacted here). */
  path: string
  status: number
  seconds: number
  outcome: RequestOutcome
  client: string | undefined
  backend?: string | undefined
  upstreamMs?: number | undefined
  subject?: string | undefined
  mcp?: readonly McpSummary[] | undefined
  mcpError?: string | undefined
  /** Denied targets as `kind:name`. */
  denied?: Iterable<string> | undefined
  rateLimited?: readonly string[] | undefined
  hidden?: ReadonlyMap<string, number> | undefined
  traceId?: string | undefined
}

/** The access line of one request: only safe fields, client-chosen strings redacted. */
export function accessLine(f: AccessFacts, shown: ShownText): Record<string, unknown> {
  const line: Record<string, unknown> = {
    gateway: f.gateway,
    route: f.route || null,
    method: f.method,
    path: shown.of(f.path),
    status: f.status,
    durationMs: Math.round(f.seconds * 1e6) / 1e3,
    outcome: f.outcome.policy,
    client: f.client ?? null,
  }
  if (f.backend) line.backend = f.backend
  if (f.upstreamMs !== undefined) line.upstreamMs = Math.round(f.upstreamMs * 1e3) / 1e3
  if (f.subject) line.subject = shown.of(f.subject)
  if ('authFailure' in f.outcome) line.authFailure = f.outcome.authFailure
  if (f.mcp) {
    const [first] = f.mcp
    line.mcp =
      f.mcp.length === 1 && first
        ? compact(first, shown)
        : { batch: f.mcp.length, messages: f.mcp.map((m) => compact(m, shown)) }
  }
  if (f.mcpError) line.mcpError = shown.of(f.mcpError)
  if (f.denied) line.denied = [...f.denied].map((d) => shown.of(d))
  if (f.rateLimited) line.rateLimited = f.rateLimited
  if (f.hidden) line.hidden = Object.fromEntries(f.hidden)
  if (f.traceId) line.traceId = f.traceId
  return line
}

/** The access log's view of one MCP message: method, id and what it names. */
function compact(m: McpSummary, shown: ShownText): Record<string, unknown> {
  const out: Record<string, unknown> = { method: shown.of(m.method) }
  if (typeof m.id === 'number') out.id = m.id
  else if (typeof m.id === 'string') out.id = shown.of(m.id)
  else if (m.id !== null && m.id !== undefined) out.id = shown.of(JSON.stringify(m.id) ?? '')
  if (m.tool) out.tool = shown.of(m.tool)
  if (m.prompt) out.prompt = shown.of(m.prompt)
  if (m.resource) out.resource = shown.of(m.resource)
  return out
}
