/**
 * The recorders' reshaping for the 2026-07-28 scenarios (scenarios-2026.ts): an authorization
 * response without `iss`, AS metadata that does not advertise `iss`, and an authorization server
 * that changes under the client (MCP 2026-07-28, Authorization Server Binding). Each returns a
 * fresh {@link Shaper}, so its state starts anew with every client run.
 */
import { decodeJwt } from 'jose'
import type { Shaper } from './recorder.js'
import type { StackHandles } from './shapers.js'
import { composeShapers, forward, isAsMetadata, isMcpWithToken, PRM_PATH } from './shapers.js'
import { bearerOf } from './traffic.js'

/** The note a response gets when {@link dropFirstIss} removed its `iss` (refusal.ts reads it). */
export const ISS_REMOVED = 'iss removed from the authorization response'

/** The note a PRM answer gets once the authorization server changed (checks/binding.ts reads it). */
export const MIGRATED = 'PRM names the second authorization server'

/**
 * Removes `iss` from the first authorization response that carries a code, although the AS
 * advertises `authorization_response_iss_parameter_supported` (MCP 2026-07-28, Authorization
 * Response Validation: "Reject the response").
 */
function dropFirstIss(authorizePath: string): Shaper {
  let done = false
  return {
    response(e, headers) {
      if (done || e.url.pathname !== authorizePath || !headers.location) return undefined
      const location = new URL(headers.location, e.url)
      if (!location.searchParams.has('code') || !location.searchParams.has('iss')) return undefined
      done = true
      location.searchParams.delete('iss')
      headers.location = location.href
      return ISS_REMOVED
    },
  }
}

/**
 * The IdP's authorization-server metadata, wherever it is asked for, with `rewrite` applied
 * (`note` says what it changed), in front of `inner`, the scenario's other reshaping.
 */
function withMetadata(
  h: StackHandles,
  inner: Shaper,
  rewrite: (metadata: Record<string, unknown>) => void,
  note: string,
): Shaper {
  const metadata: Shaper = {
    request: (e) =>
      e.method === 'GET' && isAsMetadata(e.url.pathname)
        ? forward(e, `${h.idpUpstream}${e.url.pathname}${e.url.search}`, note, rewrite)
        : undefined,
  }
  return composeShapers(metadata, inner) ?? metadata
}

/**
 * The authorization-server migration (the official suite's `auth/authorization-server-migration`,
 * SEP-2352): PRM names the IdP's first authorization server until an MCP request with a token
 * was answered 2xx; from then on it names the second one, and a token of the first is refused
 * with 401 `invalid_token`, so the client re-discovers and meets the new issuer.
 */
function migrateAuthServer(h: StackHandles): Shaper {
  const second = h.secondIssuer
  if (!second) throw new Error('migrateAuthServer needs a second authorization server')
  let migrated = false
  return {
    request(e) {
      if (e.method === 'GET' && e.url.pathname.startsWith(PRM_PATH)) {
        const now = migrated
        return forward(
          e,
          `${h.gatewayUpstream}${e.url.pathname}${e.url.search}`,
          now ? `${MIGRATED}, ${second}` : `PRM names ${h.idpIssuer}`,
          (m) => {
            m.authorization_servers = [now ? second : h.idpIssuer]
          },
        )
      }
      const token = bearerOf(e)
      if (!migrated || !token || e.url.pathname !== '/mcp') return undefined
      let iss: string | undefined
      try {
        iss = decodeJwt(token).iss
      } catch {
        return undefined
      }
      if (iss === second) return undefined
      const prm = `${e.url.origin}${PRM_PATH}/mcp`
      return {
        status: 401,
        headers: {
          'content-type': 'application/json',
          'www-authenticate': `Bearer error="invalid_token", error_description="the authorization server has changed", resource_metadata="${prm}"`,
        },
        body: JSON.stringify({
          error: 'invalid_token',
          error_description: 'the authorization server has changed',
        }),
        note: `401: a token of ${iss} after the migration to ${second}`,
      }
    },
    answered(e) {
      if (migrated || !isMcpWithToken(e) || e.status < 200 || e.status >= 300) return
      migrated = true
      e.reshaped = `after this answer the authorization server changed to ${second}`
    },
  }
}

/** The 2026-07-28 reshaping functions, by shape. */
export const currentReshapers = { dropFirstIss, withMetadata, migrateAuthServer }
