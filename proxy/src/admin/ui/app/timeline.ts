/**
 * The traffic timeline's model: trace events (`/debug/trace?follow=1`, already redacted by the
 * proxy) folded into one row per request — request → route → auth decision with the rule that
 * decided → MCP method and tool → backend → status and durations — and the filters the page
 * offers (path, status, user `sub`, tool). No DOM here, so it is tested on its own.
 */
import type { TraceEvent } from '../../../telemetry/trace-events.js'

/** One request as the timeline shows it. */
export interface TimelineRow {
  requestId: string
  at: string
  method: string
  path: string
  gateway: string
  route?: string
  /** `allowed`, `unauthenticated`, `forbidden`, ... (the request's policy outcome). */
  outcome?: string
  /** The auth decision in words: who, and which check or rule decided. */
  auth?: string
  /** The rule (CEL) that decided an authorization, when one did. */
  rule?: string
  user?: string
  mcp?: string
  tool?: string
  backend?: string
  upstreamMs?: number
  status?: number
  durationMs?: number
  done: boolean
}

/** What the filters ask; an empty field matches everything. */
export interface TimelineFilter {
  path?: string
  /** A status (`403`) or class (`4xx`). */
  status?: string
  user?: string
  tool?: string
}

/** Keeps the rows of the last `limit` requests, newest first. */
export class Timeline {
  readonly #rows = new Map<string, TimelineRow>()
  constructor(readonly limit = 200) {}

  /** Folds one event into its request's row; returns the row. */
  add(e: TraceEvent): TimelineRow {
    let row = this.#rows.get(e.requestId)
    if (!row) {
      row = { requestId: e.requestId, at: e.at, method: '', path: '', gateway: '', done: false }
      this.#rows.set(e.requestId, row)
      while (this.#rows.size > this.limit) {
        const oldest = this.#rows.keys().next().value as string
        this.#rows.delete(oldest)
      }
    }
    apply(row, e)
    return row
  }

  /** The rows that pass `filter`, newest first. */
  rows(filter: TimelineFilter = {}): TimelineRow[] {
    return [...this.#rows.values()].reverse().filter((r) => matches(r, filter))
  }
}

/** Updates a row with one event. */
function apply(row: TimelineRow, e: TraceEvent): void {
  switch (e.type) {
    case 'request_started':
      row.method = e.data.method
      row.path = e.data.path
      row.gateway = e.data.gateway
      break
    case 'route_selected':
      row.route = 'route' in e.data ? `${e.data.route}[${e.data.rule}]` : '(no route)'
      break
    case 'authentication':
      if (e.data.result === 'ok') {
        row.user = e.data.subject ?? undefined
        row.auth = `token of ${e.data.subject ?? '(no sub)'} verified (${e.data.policy})`
      } else if (e.data.result === 'missing') {
        row.auth = `no token: ${e.data.check} (${e.data.policy})`
      } else {
        row.auth = `token refused: ${e.data.check}${e.data.reason ? ` — ${e.data.reason}` : ''} (${e.data.policy})`
      }
      break
    case 'authorization': {
      const deciding = e.data.allowed
        ? e.data.rules.find((r) => r.matched)
        : (e.data.rules.find((r) => !r.matched) ?? e.data.rules[0])
      row.rule = deciding?.expression
      const who = row.user ? `${row.user}: ` : ''
      row.auth = `${who}${e.data.allowed ? 'allowed' : 'denied'} by ${e.data.policy}${deciding ? ` rule ${deciding.expression}` : ''}`
      break
    }
    case 'mcp_request':
      if ('messages' in e.data) {
        row.mcp = e.data.messages.map((m) => m.method).join(', ')
        row.tool = e.data.messages.find((m) => m.tool)?.tool
      } else row.mcp = `invalid: ${e.data.error}`
      break
    case 'mcp_authorization': {
      const denied = e.data.decisions.filter((d) => !d.allowed)
      if (denied.length > 0)
        row.auth = `${row.auth ?? ''}; ${denied.map((d) => `${d.kind} ${d.name} denied`).join(', ')}`
      break
    }
    case 'backend_selected':
      row.backend = e.data.backend
      break
    case 'backend_response':
      row.upstreamMs = e.data.durationMs
      break
    case 'request_finished':
      row.status = e.data.status
      row.durationMs = e.data.durationMs
      row.outcome = e.data.outcome
      row.done = true
      if (!row.auth && e.data.outcome === 'no_policy') row.auth = 'no policy on this route'
      break
  }
}

/** Whether a row passes a filter (case-insensitive substring; status by value or class). */
export function matches(row: TimelineRow, filter: TimelineFilter): boolean {
  const has = (value: string | undefined, wanted: string | undefined) =>
    !wanted || (value ?? '').toLowerCase().includes(wanted.trim().toLowerCase())
  if (!has(row.path, filter.path) || !has(row.user, filter.user) || !has(row.tool, filter.tool))
    return false
  const s = filter.status?.trim().toLowerCase()
  if (!s) return true
  if (row.status === undefined) return false
  if (/^\dxx$/.test(s)) return Math.floor(row.status / 100) === Number(s[0])
  return String(row.status) === s
}
