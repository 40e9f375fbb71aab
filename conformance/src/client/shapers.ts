/**
 * The recorders' reshaping, one function per real-world shape the reference proxy deliberately
 * does not produce (see recorder.ts). Each returns a fresh {@link Shaper}, so state such as "the
 * first authorization response" starts anew with every client run.
 */
import { decodeJwt } from 'jose'
import type { Shaper, Synthetic } from './recorder.js'
import { bearerOf, type Recorded } from './traffic.js'

/** What a scenario's shapers may do to the stack while the client runs. */
export interface StackHandles {
  /** The IdP's authorization endpoint path. */
  authorizePath: string
  /** The IdP as the recorders reach it, `http://127.0.0.1:<port>` (not recorded). */
  idpUpstream: string
  /** The IdP's issuer as the client sees it (the IdP recorder's origin, `/oauth2/default`). */
  idpIssuer: string
  /** The IdP's registration endpoint path (RFC 7591; open in the scenarios that use it). */
  registrationPath: string
  /** The gateway as the recorders reach it, `http://127.0.0.1:<port>` (not recorded). */
  gatewayUpstream: string
  /** The second authorization server's issuer (`secondAuthServer` scenarios), as the client sees it. */
  secondIssuer?: string
  /** Rotates the IdP's signing key, dropping the old one. */
  rotateKeys(): Promise<void>
  /** Restarts gatehouse (same configuration, same port): it fetches the key set anew. */
  restartGateway(): Promise<void>
}

/** Client authentication at the token endpoint (RFC 7591 §2, `token_endpoint_auth_method`). */
export type TokenAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none'

/** The path of the 2025-03-26 authorization server's endpoints in a `ClientScenario.legacy` scenario. */
export const LEGACY_ENDPOINTS = {
  metadata: { authorize: '/oauth/authorize', token: '/oauth/token', register: '/oauth/register' },
  defaults: { authorize: '/authorize', token: '/token', register: '/register' },
} as const

/** The well-known prefix of protected-resource metadata (RFC 9728 §3). */
export const PRM_PATH = '/.well-known/oauth-protected-resource'

const notFound = (note: string): Synthetic => ({
  status: 404,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ error: 'not_found', error_description: 'no metadata here' }),
  note,
})

/** A token-bearing request to the MCP endpoint. */
export const isMcpWithToken = (e: Recorded) =>
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
 * PRM only at `path`, a URL of the server's own choosing that every challenge's
 * `resource_metadata` names (RFC 9728 §5.1); both well-known forms answer 404. A client that does
 * not keep the URL the challenge named finds no metadata by the well-known URIs (MCP 2025-11-25,
 * Protected Resource Metadata Discovery Requirements).
 */
function prmOnlyAtNamedUrl(h: StackHandles, path: string): Shaper {
  return {
    request(e) {
      if (e.url.pathname === path && e.method === 'GET')
        return forward(
          e,
          `${h.gatewayUpstream}${PRM_PATH}/mcp`,
          `PRM served only here, at the URL the challenge names`,
        )
      return e.url.pathname.startsWith(PRM_PATH)
        ? notFound(`PRM is served only at ${path}, the URL the challenge names`)
        : undefined
    },
    response(e, headers) {
      const challenge = headers['www-authenticate']
      if (!challenge) return undefined
      const named = `${e.url.origin}${path}`
      const changed = challenge.replace(/resource_metadata="[^"]*"/, `resource_metadata="${named}"`)
      if (changed === challenge) return undefined
      headers['www-authenticate'] = changed
      return `resource_metadata names ${path}`
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

/**
 * Protected-resource metadata that names another resource than the MCP server's (RFC 9728 §3.3:
 * a client MUST NOT use it), wherever it is asked for; the authorization server it names is the
 * gateway's, so only the resource is wrong.
 */
function prmOfAnotherResource(resource: string): Shaper {
  return {
    request: (e) =>
      e.url.pathname.startsWith(PRM_PATH)
        ? {
            status: 200,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              resource,
              authorization_servers: [`${e.url.origin}/mcp`],
              scopes_supported: ['openid', 'profile'],
              bearer_methods_supported: ['header'],
            }),
            note: `PRM names the resource ${resource}`,
          }
        : undefined,
  }
}

/** Hop-by-hop and length headers a forwarded answer does not repeat (the recorder sets them). */
const NOT_REPEATED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length'])

/**
 * Sends a recorded request on to `url` (method, body and the headers that matter to an
 * authorization server) and gives its answer back as the recorder's own; `rewrite` may change a
 * JSON answer's members. Redirects are not followed: their `Location` goes back to the client.
 */
export async function forward(
  e: Recorded,
  url: string,
  note: string,
  rewrite?: (json: Record<string, unknown>) => void,
  body: string = e.requestBody,
): Promise<Synthetic> {
  const headers: Record<string, string> = {}
  for (const name of ['authorization', 'content-type', 'accept', 'cookie'])
    if (e.requestHeaders[name]) headers[name] = e.requestHeaders[name] as string
  const res = await fetch(url, {
    method: e.method,
    headers,
    redirect: 'manual',
    ...(e.method === 'GET' || e.method === 'HEAD' ? {} : { body }),
  })
  let text = await res.text()
  const out: Record<string, string> = {}
  res.headers.forEach((v, k) => {
    if (!NOT_REPEATED.has(k)) out[k] = v
  })
  if (rewrite && res.ok) {
    try {
      const json = JSON.parse(text) as Record<string, unknown>
      rewrite(json)
      text = JSON.stringify(json)
    } catch {}
  }
  return { status: res.status, headers: out, body: text, note }
}

/** Whether `path` is an authorization-server metadata URL (RFC 8414 or OpenID discovery). */
export const isAsMetadata = (path: string) =>
  path.includes('/.well-known/oauth-authorization-server') ||
  path.includes('/.well-known/openid-configuration')

/**
 * An authorization server that supports one client authentication method at its token endpoint
 * (the official suite's `auth/token-endpoint-auth-*`): its metadata lists only `method` in
 * `token_endpoint_auth_methods_supported` (RFC 8414 §2), and its registration endpoint gives
 * every client that method whatever it asked for — RFC 7591 §3.2.1 lets a server "reject or
 * replace any of the client's requested metadata values" — with a secret unless it is `none`.
 * The IdP then holds the client to it at the token endpoint. The client's own request is what is
 * recorded.
 */
function onlyTokenAuthMethod(h: StackHandles, method: TokenAuthMethod): Shaper {
  return {
    request(e) {
      const upstream = `${h.idpUpstream}${e.url.pathname}${e.url.search}`
      if (e.method === 'GET' && isAsMetadata(e.url.pathname))
        return forward(e, upstream, `token_endpoint_auth_methods_supported: ["${method}"]`, (m) => {
          m.token_endpoint_auth_methods_supported = [method]
        })
      if (e.method !== 'POST' || e.url.pathname !== h.registrationPath) return undefined
      let asked: Record<string, unknown> = {}
      try {
        asked = JSON.parse(e.requestBody) as Record<string, unknown>
      } catch {
        return undefined // the IdP answers a body that is not JSON itself
      }
      const body = JSON.stringify({ ...asked, token_endpoint_auth_method: method })
      const note =
        asked.token_endpoint_auth_method === method
          ? undefined
          : `registered with token_endpoint_auth_method ${method} (asked: ${String(asked.token_endpoint_auth_method ?? 'none given, RFC 7591 default client_secret_basic')})`
      return forward(e, upstream, note ?? 'registered as asked', undefined, body)
    },
  }
}

/**
 * The 2025-03-26 shape, played by the gateway's recorder (MCP 2025-03-26, Server Metadata
 * Discovery and Fallbacks): no protected-resource metadata (404, and no `resource_metadata` in
 * challenges); the MCP server's origin is the authorization server. With `metadata`, RFC 8414
 * metadata at `<origin>/.well-known/oauth-authorization-server` names endpoints under `/oauth/`;
 * with `defaults`, every metadata URL is 404 and the endpoints are the spec's default paths.
 * Each endpoint is the IdP's, reached through the recorder; the authorization response's `iss`
 * names the origin, the issuer the client knows.
 */
function legacyAuthServer(h: StackHandles, mode: 'metadata' | 'defaults'): Shaper {
  const paths = LEGACY_ENDPOINTS[mode]
  const issuerPath = new URL(h.idpIssuer).pathname
  const noPrm = prmRootOnly(false)
  return {
    request(e) {
      const origin = e.url.origin
      const p = e.url.pathname
      if (p.startsWith(PRM_PATH))
        return notFound('no protected-resource metadata: a 2025-03-26 server')
      if (isAsMetadata(p)) {
        if (mode === 'defaults' || p !== '/.well-known/oauth-authorization-server')
          return notFound('no authorization-server metadata here: a 2025-03-26 server')
        return forward(
          e,
          `${h.idpUpstream}${issuerPath}/.well-known/openid-configuration`,
          "the MCP server's origin as the authorization server (2025-03-26)",
          (m) => {
            m.issuer = origin
            m.authorization_endpoint = `${origin}${paths.authorize}`
            m.token_endpoint = `${origin}${paths.token}`
            m.registration_endpoint = `${origin}${paths.register}`
            for (const k of Object.keys(m))
              if (/^(revocation|introspection|end_session|userinfo)_endpoint$/.test(k)) delete m[k]
          },
        )
      }
      if (p === paths.authorize && e.method === 'GET')
        return forward(
          e,
          `${h.idpUpstream}${h.authorizePath}${e.url.search}`,
          'the IdP authorized',
        ).then((answer) => {
          const location = answer.headers?.location
          if (!location) return answer
          const back = new URL(location, h.idpUpstream)
          // With metadata, the issuer it names (the origin); without, none: no metadata announces
          // RFC 9207 support, and the official fallback server sends none either.
          if (mode === 'defaults') back.searchParams.delete('iss')
          else if (back.searchParams.has('iss')) back.searchParams.set('iss', origin)
          return { ...answer, headers: { ...answer.headers, location: back.href } }
        })
      if (p === paths.token && e.method === 'POST')
        return forward(e, `${h.idpUpstream}${issuerPath}/v1/token`, 'the IdP answered')
      if (p === paths.register && e.method === 'POST')
        return forward(e, `${h.idpUpstream}${h.registrationPath}`, 'the IdP registered')
      return undefined
    },
    response: noPrm.response,
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
  legacyAuthServer,
  onlyTokenAuthMethod,
  prmOfAnotherResource,
  stepUpOnToolsCall,
  prmOnlyAtNamedUrl,
  prmRootOnly,
  stopAfterTokenRequests,
  holdUntilExpired,
  rotateAfterFirstSuccess,
  forgeFirstRedirect,
}
