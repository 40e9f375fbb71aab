/**
 * The recorders' reshaping, one function per real-world shape the reference proxy deliberately
 * does not produce (see recorder.ts). Each returns a fresh {@link Shaper}, so state such as "the
 * first authorization response" starts anew with every client run.
 */
import { decodeJwt } from 'jose'
import type { Shaper, Synthetic } from './recorder.js'
import type { StackHandles } from './scenarios.js'
import { bearerOf, type Recorded } from './traffic.js'

const PRM_PATH = '/.well-known/oauth-protected-resource'

const notFound = (note: string): Synthetic => ({
  status: 404,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ error: 'not_found', error_description: 'no metadata here' }),
  note,
})

/** A token-bearing request to the MCP endpoint. */
const isMcpWithToken = (e: Recorded) =>
  e.url.pathname === '/mcp' && e.method === 'POST' && bearerOf(e) !== undefined

/**
 * PRM only at the root form (`/.well-known/oauth-protected-resource`); the path form answers 404.
 * With `named`, every challenge's `resource_metadata` names the root form (RFC 9728 §5.1);
 * without, challenges carry no `resource_metadata` at all, so the client must find the metadata
 * by the well-known URIs (MCP 2025-11-25, Protected Resource Metadata Discovery).
 */
function prmRootOnly(named: boolean): Shaper {
  return {
    request: (e) =>
      e.url.pathname.startsWith(`${PRM_PATH}/`)
        ? notFound('PRM is served only at the root form in this scenario')
        : undefined,
    response(e, headers) {
      const challenge = headers['www-authenticate']
      if (!challenge) return undefined
      const root = `${e.url.origin}${PRM_PATH}`
      const changed = named
        ? challenge.replace(/resource_metadata="[^"]*"/, `resource_metadata="${root}"`)
        : challenge
            .replace(/,?\s*resource_metadata="[^"]*"/, '')
            .replace(/^Bearer\s*,\s*/i, 'Bearer ')
            .trim()
      if (changed === challenge) return undefined
      headers['www-authenticate'] = changed
      return named ? 'resource_metadata names the root form' : 'resource_metadata removed'
    },
  }
}

/**
 * After `limit` token-bearing MCP requests, answers 410 `test_complete` (as the official suite's
 * retry-limit scenario does), so a client that never stops ends instead of looping until killed.
 */
function stopAfterTokenRequests(limit: number): Shaper {
  let seen = 0
  return {
    request(e) {
      if (!isMcpWithToken(e) || ++seen <= limit) return undefined
      return {
        status: 410,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          error: 'test_complete',
          error_description: `the client went on after ${limit} refused requests`,
        }),
        note: `answered 410: more than ${limit} token-bearing requests`,
      }
    },
  }
}

/**
 * Holds an MCP request whose bearer token expires within 2 s until it has expired, so the
 * gateway (clock skew 0 s) refuses it with 401 `invalid_token`: the access token expired between
 * two calls, deterministically.
 */
function holdUntilExpired(): Shaper {
  return {
    async request(e) {
      const token = bearerOf(e)
      if (!token || e.url.pathname !== '/mcp') return undefined
      let exp: number | undefined
      try {
        exp = decodeJwt(token).exp
      } catch {
        return undefined
      }
      if (exp === undefined || exp * 1000 - Date.now() > 2000) return undefined
      const wait = (exp + 1) * 1000 - Date.now()
      if (wait > 0) await new Promise((r) => setTimeout(r, wait))
      e.reshaped = 'held until its access token had expired'
      return undefined
    },
  }
}

/**
 * After the first MCP request a token got through with, rotates the IdP's signing key (the old one
 * dropped) and restarts the gateway, which fetches the new key set; requests wait meanwhile. The
 * session's token is then refused (401 `invalid_token`, unknown `kid`).
 */
function rotateAfterFirstSuccess(h: StackHandles): Shaper {
  let rotation: Promise<void> | undefined
  return {
    async request() {
      if (rotation) await rotation
      return undefined
    },
    answered(e) {
      if (rotation || !isMcpWithToken(e) || e.status < 200 || e.status >= 300) return
      rotation = (async () => {
        await h.rotateKeys()
        await h.restartGateway()
      })()
      e.reshaped =
        'after this answer the IdP rotated its key (old one dropped), the gateway restarted'
    },
  }
}

/**
 * Changes `param` (`state` or `iss`) in the first authorization response that carries a code —
 * the redirect back to the client — as an attacker's forged or mixed-up response would.
 */
function forgeFirstRedirect(authorizePath: string, param: 'state' | 'iss'): Shaper {
  let done = false
  return {
    response(e, headers) {
      if (done || e.url.pathname !== authorizePath || !headers.location) return undefined
      const location = new URL(headers.location, e.url)
      if (!location.searchParams.has('code')) return undefined
      done = true
      const forged =
        param === 'state'
          ? `forged-${crypto.randomUUID()}`
          : 'https://attacker.example/oauth2/default'
      location.searchParams.set(param, forged)
      headers.location = location.href
      return `${param} replaced with "${forged}"`
    },
  }
}

/**
 * Rewrites the RFC 9207 `iss` of the IdP's authorization responses from the IdP's issuer to the
 * bridging gateway's (`issuerMode: Gateway`, which names itself the issuer in the AS metadata it
 * serves). The gateway is not on the redirect's path, so without this a client that checks `iss`
 * (RFC 9207 §2.4, MUST for clients that support it) would rightly refuse every bridged response:
 * the recorder plays the part a bridging gateway that names itself would have to play.
 */
function issAsGateway(authorizePath: string, idpIssuer: string, gatewayIssuer: string): Shaper {
  return {
    response(e, headers) {
      if (e.url.pathname !== authorizePath || !headers.location) return undefined
      const location = new URL(headers.location, e.url)
      if (location.searchParams.get('iss') !== idpIssuer) return undefined
      location.searchParams.set('iss', gatewayIssuer)
      headers.location = location.href
      return `iss as the bridging gateway's issuer ${gatewayIssuer}`
    },
  }
}

/**
 * A challenge at runtime (MCP 2025-11-25, Runtime Insufficient Scope Errors): `initialize` and
 * `tools/list` pass, but a `tools/call` whose token lacks `scope` is answered 403
 * `insufficient_scope` naming it — as a server whose tools need more than its session does.
 */
function stepUpOnToolsCall(scope: string): Shaper {
  return {
    request(e) {
      const token = bearerOf(e)
      if (!token || e.url.pathname !== '/mcp' || !/"tools\/call"/.test(e.requestBody))
        return undefined
      let granted: string[] = []
      try {
        const scp = decodeJwt(token).scp
        granted = Array.isArray(scp) ? scp.map(String) : []
      } catch {}
      if (granted.includes(scope)) return undefined
      const prm = `${e.url.origin}/.well-known/oauth-protected-resource/mcp`
      return {
        status: 403,
        headers: {
          'content-type': 'application/json',
          'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${prm}"`,
        },
        body: JSON.stringify({
          error: 'insufficient_scope',
          error_description: `tools/call needs ${scope}`,
        }),
        note: `403 insufficient_scope: tools/call needs ${scope}`,
      }
    },
  }
}

/** Several shapers as one: in order; the first synthetic answer wins; notes joined. */
export function composeShapers(...shapers: Array<Shaper | undefined>): Shaper | undefined {
  const all = shapers.filter((s): s is Shaper => s !== undefined)
  if (all.length <= 1) return all[0]
  return {
    async request(e) {
      for (const s of all) {
        const synthetic = await s.request?.(e)
        if (synthetic) return synthetic
      }
      return undefined
    },
    response(e, headers) {
      const notes = all.flatMap((s) => s.response?.(e, headers) ?? [])
      return notes.length ? notes.join('; ') : undefined
    },
    async answered(e) {
      for (const s of all) await s.answered?.(e)
    },
  }
}

/** The reshaping functions, by shape. */
export const reshapers = {
  issAsGateway,
  stepUpOnToolsCall,
  prmRootOnly,
  stopAfterTokenRequests,
  holdUntilExpired,
  rotateAfterFirstSuccess,
  forgeFirstRedirect,
}
