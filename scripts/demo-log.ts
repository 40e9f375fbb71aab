/**
 * How `npm start` (scripts/demo.ts) shows gatehouse's JSON log lines (docs/observability.md): an access line
 * (module `proxy::access`, docs/observability.md) as one readable line — method, path, status,
 * user, MCP method and tool, milliseconds, and why a request was refused — and any other line as
 * its level, module and message.
 */

/** The fields of a JSON log line the demo shows. */
interface LogEntry {
  level?: string
  module?: string
  msg?: string
  method?: string
  path?: string
  status?: number
  durationMs?: number
  outcome?: string
  subject?: string
  authFailure?: string
  mcp?: { method?: string; tool?: string; prompt?: string; resource?: string; batch?: number }
  mcpError?: string
  denied?: string[]
  rateLimited?: string[]
}

/** Outcomes that need no word: the request went through, or was not the policies' business. */
const QUIET_OUTCOMES = new Set(['allowed', 'no_policy', 'oauth_endpoint', 'preflight'])

function mcpPart(mcp: LogEntry['mcp']): string | undefined {
  if (!mcp) return undefined
  if (mcp.batch !== undefined) return `batch of ${mcp.batch}`
  const target = mcp.tool ?? mcp.prompt ?? mcp.resource
  return [mcp.method, target].filter(Boolean).join(' ') || undefined
}

/** Why a request was refused, when it was: `unauthenticated: expired`, `mcp_denied: tool:fetch`. */
function refusal(entry: LogEntry): string | undefined {
  if (!entry.outcome || QUIET_OUTCOMES.has(entry.outcome)) return undefined
  const why = entry.authFailure ?? entry.mcpError ?? entry.denied?.join(', ')
  const spent = entry.rateLimited?.join(', ')
  const detail = why ?? spent
  return detail ? `${entry.outcome}: ${detail}` : entry.outcome
}

/** An access log entry as `POST /mcp 200 alice tools/call echo 3.2 ms`. */
export function accessLine(entry: LogEntry): string {
  const why = refusal(entry)
  return [
    entry.method,
    entry.path,
    entry.status,
    why ? `(${why})` : undefined,
    entry.subject ?? '-',
    mcpPart(entry.mcp),
    entry.durationMs === undefined ? undefined : `${entry.durationMs.toFixed(1)} ms`,
  ]
    .filter((part) => part !== undefined)
    .join(' ')
}

/** One line of gatehouse's stdout as the demo prints it, prefixed `[gatehouse]`. */
export function demoLogLine(line: string): string {
  let entry: LogEntry
  try {
    entry = JSON.parse(line) as LogEntry
  } catch {
    return `[gatehouse] ${line}`
  }
  if (typeof entry !== 'object' || entry === null) return `[gatehouse] ${line}`
  if (entry.module === 'proxy::access' && entry.method !== undefined) {
    return `[gatehouse] ${accessLine(entry)}`
  }
  return `[gatehouse] ${entry.level ?? ''} ${entry.module ?? ''} ${entry.msg ?? line}`
}
