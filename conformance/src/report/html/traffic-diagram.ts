/**
 * A client-mode scenario's recorded traffic (client/traffic.ts) as a {@link SequenceDiagram}:
 * every exchange a step, redacted before it is cut to fit (a cut token would no longer look like
 * one), the failures' evidence steps marked, the client's exit as the end.
 */
import { redactText, redactUrl } from '@gatehouse/redact'
import type { ClientRun } from '../../client/execute.js'
import type { Recorded } from '../../client/traffic.js'
import type { ReportRow } from '../../types.js'
import type { DiagramEnd, DiagramStep, SequenceDiagram, StepMark } from './sequence.js'

/** What a diagram is drawn from: one scenario's run, its judgement and its recording. */
export interface ScenarioTraffic {
  scenario: string
  run: Pick<ClientRun, 'exitCode' | 'signal' | 'timedOut' | 'durationMs'>
  /** Why the scenario was not run, when it was not. */
  error?: string
  results: readonly ReportRow[]
  traffic: readonly Recorded[]
  /** Requirement ID → `seq` of the exchange its failure's evidence shows. */
  failingSteps: Readonly<Record<string, number>>
}

/** The JSON-RPC method(s) of an MCP POST body, if it is JSON-RPC. */
function rpcMethod(body: string): string | undefined {
  try {
    const v = JSON.parse(body) as unknown
    const one = (m: unknown) =>
      m && typeof m === 'object' && typeof (m as { method?: unknown }).method === 'string'
        ? (m as { method: string }).method
        : undefined
    if (Array.isArray(v)) return `batch: ${v.map((m) => one(m) ?? 'response').join(', ')}`
    return one(v) ?? (v && typeof v === 'object' && 'result' in v ? 'response' : undefined)
  } catch {
    return undefined
  }
}

/** A short, credential-free account of what a request is. */
function detailOf(e: Recorded): string | undefined {
  const parts: string[] = []
  const type = e.requestHeaders['content-type'] ?? ''
  if (e.method === 'POST' && type.includes('json')) {
    const m = rpcMethod(e.requestBody)
    if (m) parts.push(m)
  }
  if (e.method === 'POST' && type.includes('x-www-form-urlencoded')) {
    const grant = new URLSearchParams(e.requestBody).get('grant_type')
    if (grant) parts.push(`grant_type=${grant}`)
  }
  const auth = e.requestHeaders.authorization
  if (auth !== undefined) {
    // RFC 9110 §11.6.2: credentials = auth-scheme [ 1*SP ( token68 / #auth-param ) ]; only the
    // scheme is shown, never what follows it.
    const scheme = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]{0,19}) /.exec(auth)?.[1]
    parts.push(scheme ? `auth: ${scheme}` : 'auth: malformed')
  }
  return parts.length ? redactText(parts.join(' · ')) : undefined
}

/** The path and query of a recorded URL, redacted. */
function pathOf(url: URL): string {
  const redacted = redactUrl(url.href)
  return URL.canParse(redacted)
    ? `${new URL(redacted).pathname}${new URL(redacted).search}`
    : redacted
}

function marksOf(ids: readonly string[], rows: ReadonlyMap<string, ReportRow>): StepMark[] {
  return ids.flatMap((id) => {
    const row = rows.get(id)
    if (!row) return []
    return [
      { id, level: row.level, ...(row.baseline === 'expected-failure' ? { expected: true } : {}) },
    ]
  })
}

/** How the run ended, in words. */
export function endOf(t: Pick<ScenarioTraffic, 'run' | 'error'>): string {
  if (t.error) return `not run: ${t.error}`
  const took = `${(t.run.durationMs / 1000).toFixed(1)} s`
  if (t.run.timedOut) return `timed out after ${took}`
  if (t.run.exitCode !== null) return `exit ${t.run.exitCode} after ${took}`
  return `ended by ${t.run.signal ?? 'a signal'} after ${took}`
}

/** The diagram of a scenario. */
export function trafficDiagram(t: ScenarioTraffic): SequenceDiagram {
  const failed = new Map(t.results.filter((r) => r.status === 'failed').map((r) => [r.id, r]))
  const bySeq = new Map<number, string[]>()
  for (const [id, seq] of Object.entries(t.failingSteps)) {
    if (failed.has(id)) bySeq.set(seq, [...(bySeq.get(seq) ?? []), id])
  }
  const onAStep = new Set([...bySeq.values()].flat())
  const origin = (side: Recorded['side']) => t.traffic.find((e) => e.side === side)?.url.origin
  const steps: DiagramStep[] = t.traffic.map((e) => {
    const detail = detailOf(e)
    // A request to another host of the same party (the Google-shaped IdP's token host) shows
    // that host: its path alone would read as the lane's.
    const host = e.url.origin === origin(e.side) ? '' : e.url.origin
    return {
      seq: e.seq,
      to: e.side,
      method: e.method,
      path: `${host}${pathOf(e.url)}`,
      ...(detail ? { detail } : {}),
      status: e.status,
      ...(e.reshaped ? { note: redactText(e.reshaped) } : {}),
      marks: marksOf(bySeq.get(e.seq) ?? [], failed),
    }
  })
  // Failures no single request shows (the exit code, a request that never came) mark the end.
  const end: DiagramEnd = {
    text: redactText(endOf(t)),
    marks: marksOf(
      [...failed.keys()].filter((id) => !onAStep.has(id)),
      failed,
    ),
  }
  const gateway = origin('gateway')
  const idp = origin('idp')
  return {
    title: `Sequence of the requests in scenario ${t.scenario}`,
    origins: { ...(gateway ? { gateway } : {}), ...(idp ? { idp } : {}) },
    steps,
    end,
  }
}
