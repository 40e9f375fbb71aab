/**
 * One-line descriptions of trace events for the timeline: what a reader needs to follow a
 * request (seed, `/debug/trace`: selected route, applied policies, chosen backend, status),
 * plus authentication and one line per authorization rule.
 */
import type { TraceEvent } from './events.js'
import { printable } from './printable.js'

/** How an event reads in the timeline. */
export interface EventDescription {
  /** Short name of the step. */
  label: string
  /** The main line. */
  detail: string
  /** Sub-lines, e.g. one per authorization rule. */
  lines: Array<{ ok: boolean | undefined; text: string }>
  /** True when the step failed or denied; the line is shown in red. */
  failed: boolean
}

const LABELS: Record<string, string> = {
  request_started: 'request',
  route_selected: 'route',
  policies_applied: 'policies',
  cors: 'cors',
  mcp_oauth: 'mcp oauth',
  authentication: 'authentication',
  authorization: 'authorization',
  mcp_request: 'mcp request',
  mcp_authorization: 'mcp authorization',
  rate_limit: 'rate limit',
  mcp_session: 'mcp session',
  mcp_list_filtered: 'list filtered',
  backend_selected: 'backend',
  backend_response: 'backend response',
  response: 'response',
  request_finished: 'finished',
}

/**
 * Describes one event; unknown types and fields fall back to `key=value` pairs. Every text is
 * {@link printable}: the event's fields come from clients and backends.
 */
export function describeEvent(e: TraceEvent): EventDescription {
  const d = describeRaw(e)
  return {
    ...d,
    label: printable(d.label),
    detail: printable(d.detail),
    lines: d.lines.map((l) => ({ ok: l.ok, text: printable(l.text) })),
  }
}

function describeRaw(e: TraceEvent): EventDescription {
  const d = e.data
  const label = LABELS[e.type] ?? e.type
  const base = { label, lines: [] as EventDescription['lines'], failed: false }
  switch (e.type) {
    case 'request_started':
      return {
        ...base,
        detail: `${str(d.method)} ${str(d.path)}${d.gateway ? ` on gateway ${str(d.gateway)}` : ''}`,
      }
    case 'route_selected':
      if (d.matched === false) return { ...base, detail: 'no route matches', failed: true }
      return {
        ...base,
        detail: `${str(d.route)}${d.rule !== undefined ? ` rule ${str(d.rule)}` : ''}${matchText(d.match)}`,
      }
    case 'policies_applied': {
      const names = Array.isArray(d.policies) ? d.policies.map(str) : []
      return {
        ...base,
        detail: `${names.length > 0 ? names.join(', ') : 'none'}${d.cors ? ' (+ CORS)' : ''}`,
      }
    }
    case 'backend_selected':
      return { ...base, detail: `${str(d.backend)}${d.address ? ` at ${str(d.address)}` : ''}` }
    case 'response':
    case 'request_finished':
    case 'backend_response':
    case 'mcp_oauth': {
      const status = typeof d.status === 'number' ? d.status : undefined
      return {
        ...base,
        detail: pairs(d),
        failed: d.error !== undefined || (status !== undefined && status >= 400),
      }
    }
    case 'authorization':
      return describeAuthorization(base, d)
    case 'mcp_request':
    case 'mcp_authorization':
    case 'rate_limit':
    case 'mcp_list_filtered':
      return describeMcp(e.type, base, d)
    case 'authentication':
      return { ...base, detail: pairs(d), failed: isDenied(d) }
    default:
      return { ...base, detail: pairs(d), failed: isDenied(d) }
  }
}

function describeAuthorization(
  base: Pick<EventDescription, 'label' | 'lines' | 'failed'>,
  d: Record<string, unknown>,
): EventDescription {
  const rules = Array.isArray(d.rules) ? d.rules : Array.isArray(d.results) ? d.results : undefined
  const rest = Object.fromEntries(
    Object.entries(d).filter(([k]) => k !== 'rules' && k !== 'results'),
  )
  const lines = (rules ?? []).map((r) => {
    if (typeof r !== 'object' || r === null) return { ok: undefined, text: str(r) }
    const rule = r as Record<string, unknown>
    const ok = firstBoolean(rule, ['result', 'matched', 'allowed', 'ok', 'passed'])
    const expr = rule.expression ?? rule.rule ?? rule.expr
    const others = Object.fromEntries(
      Object.entries(rule).filter(
        ([k]) =>
          !['result', 'matched', 'allowed', 'ok', 'passed', 'expression', 'rule', 'expr'].includes(
            k,
          ),
      ),
    )
    const extra = Object.keys(others).length > 0 ? `  ${pairs(others)}` : ''
    return { ok, text: `${expr === undefined ? '' : str(expr)}${extra}` }
  })
  return {
    ...base,
    detail: pairs(rest),
    lines,
    failed: isDenied(d) || lines.some((l) => l.ok === false),
  }
}

/** The MCP-aware policy's events (docs/auth.md): one sub-line per message, target or limit. */
function describeMcp(
  type: string,
  base: Pick<EventDescription, 'label' | 'lines' | 'failed'>,
  d: Record<string, unknown>,
): EventDescription {
  const list = (v: unknown) => (Array.isArray(v) ? (v as Array<Record<string, unknown>>) : [])
  switch (type) {
    case 'mcp_request': {
      if (d.error !== undefined) return { ...base, detail: str(d.error), failed: true }
      const lines = list(d.messages).map((m) => {
        const target = m.tool ?? m.prompt ?? m.resource
        const id = m.id === null || m.id === undefined ? '' : ` (id ${str(m.id)})`
        return { ok: undefined, text: `${str(m.method)}${target ? ` ${str(target)}` : ''}${id}` }
      })
      return { ...base, detail: d.batch ? `batch of ${lines.length}` : '1 message', lines }
    }
    case 'mcp_authorization': {
      const lines = list(d.decisions).map((x) => ({
        ok: typeof x.allowed === 'boolean' ? x.allowed : undefined,
        text: `${str(x.method)} ${str(x.kind)} ${str(x.name)}`,
      }))
      const denied = lines.filter((l) => l.ok === false).length
      return {
        ...base,
        detail: denied > 0 ? `${denied} denied` : 'allowed',
        lines,
        failed: denied > 0,
      }
    }
    case 'rate_limit': {
      const lines = list(d.limits).map((l) => ({
        ok: l.exceeded !== true,
        text: `${str(l.name)} ${str(l.remaining)}/${str(l.maxTokens)} left`,
      }))
      const admitted = d.admitted !== false
      return {
        ...base,
        detail: admitted ? 'admitted' : `refused, retry after ${str(d.retryAfterSec)} s`,
        lines,
        failed: !admitted,
      }
    }
    default:
      return { ...base, detail: `${str(d.hidden)} ${str(d.kind)} item(s) hidden from a list` }
  }
}

function isDenied(d: Record<string, unknown>): boolean {
  const ok = firstBoolean(d, ['ok', 'allowed', 'authenticated', 'result', 'passed'])
  if (ok === false) return true
  if (typeof d.status === 'number' && d.status >= 400) return true
  return d.error !== undefined
}

function firstBoolean(d: Record<string, unknown>, keys: readonly string[]): boolean | undefined {
  for (const k of keys) if (typeof d[k] === 'boolean') return d[k] as boolean
  return undefined
}

function matchText(match: unknown): string {
  if (typeof match !== 'object' || match === null) return ''
  const m = match as { type?: unknown; value?: unknown }
  return ` (${str(m.type)} ${str(m.value)})`
}

function str(v: unknown): string {
  if (v === undefined || v === null) return '-'
  return typeof v === 'string' ? v : JSON.stringify(v)
}

/** `key=value` pairs; nested objects as compact JSON, long values cut. */
export function pairs(d: Record<string, unknown>): string {
  return Object.entries(d)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => {
      const s = str(v)
      return `${k}=${s.length > 120 ? `${s.slice(0, 117)}...` : s}`
    })
    .join(' ')
}
