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

/** Forward, and report the backend's answer head to `onResponseHead`; or refuse with `response`. */
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
 * was issued to. Anything else is answered as a session this server does not hold: 404 (MCP
 * 2025-06-18 Transports, "Session Management"), so the client starts a new session and a
 * stranger learns nothing about whether the id exists.
 */
export async function sessionGate(input: SessionGateInput): Promise<SessionGateResult> {
  const { sessions, trace, log } = input
  const principal = principalOf(input.claims)
  const key = (session: string) => `${input.backend}\n${session}`
  const raw = input.headers['mcp-session-id']
  // Repeated headers joined: never a known id.
  const sent = Array.isArray(raw) ? raw.join(', ') : raw
  if (sent !== undefined) {
    const owner = await sessions.owner(key(sent))
    if (owner !== principal) {
      const reason = owner === undefined ? 'unknown' : 'bound to another principal'
      trace?.event('mcp_session', { session: reason, allowed: false })
      // The session id is a credential of sorts: it is never logged.
      log.info({ reason }, 'MCP session refused')
      const description =
        'this MCP session is not known to the gateway for this user: start a new session (send initialize without Mcp-Session-Id)'
      const error = new RequestError(
        'GW_ERR_SESSION_NOT_FOUND',
        404,
        'session_not_found',
        description,
      )
      return { ok: false, response: fromRequestError(error) }
    }
    trace?.event('mcp_session', { session: 'bound', allowed: true })
  }
  return {
    ok: true,
    async onResponseHead(status, headers) {
      if (status < 200 || status >= 300) return
      if (sent !== undefined && input.method === 'DELETE') {
        await sessions.forget(key(sent))
        return
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
      await sessions.bind(key(issued), principal)
      trace?.event('mcp_session', { session: 'issued', allowed: true })
    },
  }
}
