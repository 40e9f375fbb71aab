/**
 * Trace events as gwctl receives them from `/debug/trace` (the proxy's `TraceEvent`, see
 * proxy/src/telemetry/trace-bus.ts), read tolerantly, plus the redaction gwctl applies before
 * showing anything: the proxy already redacts credentials, and gwctl redacts again with the same
 * module (`@gatehouse/redact`) so that a token never reaches a terminal or a JSON Lines file even
 * from an older proxy.
 */
import { redactValue } from '@gatehouse/redact'

/** One event of a traced request. */
export interface TraceEvent {
  requestId: string
  seq: number
  /** `request_started`, `route_selected`, …, `request_finished`. */
  type: string
  /** ISO time. */
  at: string
  /** Milliseconds since the request started. */
  elapsedMs: number
  data: Record<string, unknown>
}

/** The type of the last event of a request; the stream ends after it. */
export const FINAL_EVENT = 'request_finished'

/** Parses one `data:` payload; the SSE `event:` name is the fallback for a missing type. */
export function parseTraceEvent(eventName: string, json: string): TraceEvent {
  const raw = JSON.parse(json) as Partial<TraceEvent>
  return {
    requestId: String(raw.requestId ?? ''),
    seq: typeof raw.seq === 'number' ? raw.seq : 0,
    type: String(raw.type ?? eventName),
    at: String(raw.at ?? ''),
    elapsedMs: typeof raw.elapsedMs === 'number' ? raw.elapsedMs : 0,
    data: redactValue(raw.data ?? {}) as Record<string, unknown>,
  }
}
