/**
 * What happened to a request, as typed values (docs/design/layering.md): the events of a traced request
 * (a discriminated union on `type`, one data shape per event), and the explicit outcome the
 * pipeline returns, which the metrics, the access log and the trace (`request_finished`) all read.
 * Nothing here is derived from a status code or parsed from a message.
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { ErrorCode } from '../errors.js'

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

/** The bearer-token check that refused a token (auth/verify.ts). */
export type TokenCheck =
  | 'malformed'
  | 'issuer'
  | 'audience'
  | 'expired'
  | 'not_yet_valid'
  | 'signature'
  | 'algorithm'
  | 'no_keys'
  | 'claims'
  | 'critical_extension'
  // Opaque tokens (auth/opaque-token.ts): the IdP said the token is not active, or did not answer.
  | 'inactive'
  | 'validation_unavailable'

/** Why authentication refused a request: the `reason` label of `gatehouse_auth_failures_total`. */
export type AuthenticationFailure = TokenCheck | 'missing_token' | 'duplicate_authorization'

/** Why a request was refused by authentication (401/400) or route authorization (403). */
export type AuthFailure = AuthenticationFailure | 'rules'

/** How the pipeline ended a request: the one value telemetry reads. */
export type RequestOutcome =
  | { policy: 'unauthenticated'; authFailure: AuthenticationFailure }
  | { policy: 'forbidden'; authFailure: 'rules' }
  | { policy: Exclude<PolicyOutcome, 'unauthenticated' | 'forbidden'> }

/** An MCP message as the trace and the access log name it. */
export interface McpSummary {
  type: string
  method: string
  id: unknown
  tool?: string
  prompt?: string
  resource?: string
}

/** One rule of an authorization decision. */
export interface RuleOutcome {
  expression: string
  matched: boolean
  error?: string
}

/** One tool, prompt or resource judged by `mcpAuthorization`. */
export interface McpDecision {
  method: string
  kind: string
  name: string
  allowed: boolean
  /** Rule by rule, for a denial only. */
  rules?: readonly unknown[]
}

/** One local rate limit consulted for a request. */
export interface LimitSummary {
  name: string
  exceeded: boolean
}

/** What authentication made of a request's bearer token (the `authentication` event). */
export type AuthenticationVerdict =
  | {
      result: 'ok'
      issuer: string
      subject: string | null
      /** The verified claims, never the token. */
      claims: Readonly<Record<string, unknown>>
    }
  | { result: 'missing'; check: string }
  | { result: 'failed'; check: string; reason?: string; code?: ErrorCode }

/** The data of each trace event, by type, in the order a request produces them. */
export interface TraceEventMap {
  request_started: { method: string; path: string; gateway: string; headers: IncomingHttpHeaders }
  route_selected:
    | { matched: false }
    | { route: string; rule: number; match: { type: string; value: string } }
  policies_applied: { policies: string[]; cors: boolean }
  cors:
    | { preflight: true; origin: string | undefined; allowed: boolean }
    | { origin: string | undefined; host: string | undefined; allowed: false }
  mcp_oauth: { policy: string; status: number }
  authentication: { policy: string } & AuthenticationVerdict
  authorization: { policy: string; allowed: boolean; rules: readonly RuleOutcome[] }
  mcp_request:
    | {
        batch: boolean
        /** The protocol era (mcp/era.ts): `modern` is 2026-07-28 and later. */
        era?: 'modern' | 'legacy' | 'invalid'
        messages: McpSummary[]
      }
    | { error: string; code?: number | string; limit?: number }
  mcp_authorization: { decisions: McpDecision[] }
  rate_limit: { admitted: boolean; retryAfterSec: number; limits: readonly LimitSummary[] }
  mcp_session: { session: string; allowed: boolean }
  backend_selected: { backend: string; address: string }
  backend_response: {
    status?: number
    contentType?: string
    durationMs: number
    error?: string
  }
  mcp_list_filtered: { kind: string; hidden: number }
  response: { status: number }
  request_finished: {
    status: number
    durationMs: number
    outcome: PolicyOutcome
    authFailure?: AuthFailure
  }
}

/** A request as the pipeline ends it: the status it answered and its explicit outcome. */
export interface FinishedRequest {
  status: number
  /** Milliseconds from the request to its end. */
  durationMs: number
  outcome: RequestOutcome
}

/** The kinds of trace event, in the order a request produces them. */
export type TraceEventType = keyof TraceEventMap

/** The kinds of trace event, in the order a request produces them. */
export const TRACE_EVENT_TYPES = [
  'request_started',
  'route_selected',
  'policies_applied',
  'cors',
  'mcp_oauth',
  'authentication',
  'authorization',
  'mcp_request',
  'mcp_authorization',
  'rate_limit',
  'mcp_session',
  'backend_selected',
  'backend_response',
  'mcp_list_filtered',
  'response',
  'request_finished',
] as const satisfies readonly TraceEventType[]

/** One event of a traced request, as a `/debug/trace` watcher receives it (data redacted). */
export type TraceEvent = {
  [K in TraceEventType]: {
    /** Id of the traced request. */
    requestId: string
    /** 0-based order within the request. */
    seq: number
    type: K
    /** ISO time. */
    at: string
    /** Milliseconds since the request started. */
    elapsedMs: number
    data: TraceEventMap[K]
  }
}[TraceEventType]
