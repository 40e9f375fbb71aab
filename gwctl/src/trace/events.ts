/**
 * Trace events as gwctl receives them from `/debug/trace` (the proxy's `TraceEvent`, see
 * proxy/src/telemetry/trace-bus.ts), read tolerantly, plus the redaction gwctl applies before
 * showing anything: the proxy already redacts credentials, and gwctl redacts again so that a
 * token never reaches a terminal or a JSON Lines file even from an older proxy.
 */

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
    data: redact(raw.data ?? {}) as Record<string, unknown>,
  }
}

const SECRET_KEYS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'token',
  'access_token',
  'id_token',
  'refresh_token',
  'client_secret',
  'password',
])

// A compact JWS (RFC 7515 §7.1): three base64url parts, the header starting with '{"' → eyJ.
const JWT = /eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g

/**
 * Replaces credentials in a value: fields named like a credential keep only an auth scheme
 * (`Bearer [redacted]`), and anything shaped like a JWT anywhere becomes `[redacted]`.
 */
export function redact(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(JWT, '[redacted]')
  if (Array.isArray(value)) return value.map(redact)
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      out[k] = SECRET_KEYS.has(k.toLowerCase()) ? redactSecret(v) : redact(v)
    }
    return out
  }
  return value
}

function redactSecret(v: unknown): string {
  if (typeof v !== 'string') return '[redacted]'
  if (v.endsWith('[redacted]')) return v
  const scheme = /^(Bearer|Basic|DPoP)\s/i.exec(v)?.[1]
  return scheme ? `${scheme} [redacted]` : '[redacted]'
}
