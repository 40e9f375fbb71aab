/**
 * The MCP session binding stage of the pipeline (session-binding.ts has the store and the
 * rules): before a request is forwarded, a session it names must be bound to its principal;
 * when the backend answers, a session it issued is bound and one a `DELETE` ended is forgotten.
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { Logger } from 'pino'
import { RequestError } from '../errors.js'
import { fromRequestError, type LocalResponse } from '../http/local-response.js'
import type { RequestTrace } from '../telemetry/trace-bus.js'
import {
  isBindableSessionId,
  MAX_SESSION_ID_LENGTH,
  principalOf,
  type SessionBindings,
} from './session-binding.js'

/** What {@link sessionGate} needs of one request. */
export interface SessionGateInput {
  sessions: SessionBindings
  /** The backend's name: session ids are the backend's, so the same id from two is two sessions. */
  backend: string
  method: string
  headers: IncomingHttpHeaders
  /** The verified claims; `undefined` on a route without authentication. */
  claims: Readonly<Record<string, unknown>> | undefined
  trace: RequestTrace | undefined
  log: Logger
}

/**
 * Forward, and report the backend's answer head to `onResponseHead` (which rejects with a
 * `RequestError` when the session the backend issued cannot be bound); or refuse with `response`.
 */
export type SessionGateResult =
  | {
      ok: true
      onResponseHead(
        status: number,
        headers: Record<string, string | string[] | undefined>,
      ): Promise<void>
    }
  | { ok: false; response: LocalResponse }

/**
 * MCP Security Best Practices, "Session Hijacking": a session is served only to the principal it
 * is bound to. A session bound to another principal is answered as a session this server does
 * not hold: 404 (MCP 2025-06-18 Transports, "Session Management"), so the client starts a new
 * session and a stranger learns nothing about whether the id exists.
 *
 * An id the gateway holds no binding for (issued before this process started, through another
 * replica, or forgotten) is forwarded: the backend answers 404 for a session it does not hold,
 * and the first principal it serves in a session it does hold is bound to it from then on. A
 * restart or a second replica thus keeps its clients' sessions (the SDK clients do not start a
 * new session on a 404), and a session once bound is never served to anyone else.
 */
export async function sessionGate(input: SessionGateInput): Promise<SessionGateResult> {
  const { sessions, trace, log } = input
  const principal = principalOf(input.claims)
  const key = (session: string) => `${input.backend}\n${session}`
  const raw = input.headers['mcp-session-id']
  // Repeated headers joined: never a known id.
  const sent = Array.isArray(raw) ? raw.join(', ') : raw
  /** The backend is asked about an id nobody holds here; a 2xx binds it to this principal. */
  let adopt = false
  if (sent !== undefined) {
    const owner = await sessions.owner(key(sent))
    if (owner === undefined && isBindableSessionId(sent)) {
      adopt = true
      trace?.event('mcp_session', { session: 'unknown', allowed: true })
    } else if (owner !== principal) {
      // An id that could never be bound (not 1-1024 visible ASCII) is refused: fail closed.
      const reason = owner === undefined ? 'unbindable' : 'bound to another principal'
      trace?.event('mcp_session', { session: reason, allowed: false })
      // The session id is a credential of sorts: it is never logged.
      log.info({ reason }, 'MCP session refused')
      const description =
        'this MCP session is not known to the gateway for this user: start a new session (send initialize without Mcp-Session-Id)'
      const error = new RequestError('GW_ERR_SESSION_NOT_FOUND', description)
      return { ok: false, response: fromRequestError(error) }
    } else {
      trace?.event('mcp_session', { session: 'bound', allowed: true })
    }
  }
  return {
    ok: true,
    async onResponseHead(status, headers) {
      if (status < 200 || status >= 300) return
      if (sent !== undefined && input.method === 'DELETE') {
        await sessions.forget(key(sent))
        return
      }
      if (adopt && sent !== undefined) {
        // bind() never moves a binding: of two principals racing for the id, the first keeps it.
        if ((await sessions.bind(key(sent), principal)) === undefined) throw sessionsFull()
        trace?.event('mcp_session', { session: 'adopted', allowed: true })
      }
      const issued = headers['mcp-session-id']
      if (typeof issued !== 'string' || issued === '' || issued === sent) return
      if (!isBindableSessionId(issued)) {
        // Not bound, so every request naming it is refused: the client cannot use this session.
        log.warn(
          { backend: input.backend, length: issued.length },
          `backend issued an Mcp-Session-Id that is not 1-${MAX_SESSION_ID_LENGTH} visible ASCII characters (MCP Transports); the gateway refuses requests in that session`,
        )
        return
      }
      // A session that cannot be bound is not handed out: the answer becomes a 503.
      if ((await sessions.bind(key(issued), principal)) === undefined) {
        log.warn({ backend: input.backend }, 'MCP session bindings are full; new session refused')
        throw sessionsFull()
      }
      trace?.event('mcp_session', { session: 'issued', allowed: true })
    },
  }
}

/** The bindings are full: the backend's answer is replaced by a 503 (forward.ts). */
function sessionsFull(): RequestError {
  return new RequestError(
    'GW_ERR_SESSIONS_FULL',
    'the gateway holds as many MCP sessions as it may; try again later',
    { headers: { 'retry-after': '60' } },
  )
}
