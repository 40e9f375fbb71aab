/**
 * The mock-idp's request routing: the control API, org-level registration, the optional RFC 8414
 * path form, then one authorization server by its `/oauth2/<id>` prefix — its key set (only at
 * `/v1/keys`), its sign-in pages, the authorize endpoint's audience rule and headless sign-in, and
 * everything else handed to that server's oidc-provider.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { sendJson } from '@gatehouse/support'
import type Provider from 'oidc-provider'
import { AUTO_SIGN_IN_HEADER, autoSignIn } from './auto-sign-in.js'
import { type ControlContext, handleControl } from './control.js'
import type { FaultInjector } from './faults.js'
import { readBody } from './http.js'
import { handleInteraction, type InteractionContext } from './interaction.js'
import type { MockUser } from './options.js'
import type { ProvidedServer } from './provider.js'
import { handleRegistration, type RegistrationContext } from './registration.js'
import type { Handler } from './server.js'
import type { PublicRoute, ShapeInputs } from './shapes.js'

/** An authorization server with its provider (replaced on key rotation). */
export interface AuthServer extends ProvidedServer {
  provider: Provider
}

/** A request seen by the IdP, as the control API lists it. */
export interface RecordedRequest {
  method: string
  path: string
  query: string
  at: string
}

/** What the router needs. */
export interface RouterContext {
  /** The org URL clients use (`--public-url`); endpoint URLs are built from it. */
  orgUrl: string
  /** This process's own address, for headless sign-in's internal hop. */
  internalUrl: string
  testMode: boolean
  servers: ReadonlyMap<string, AuthServer>
  users: ReadonlyMap<string, MockUser>
  requests: RecordedRequest[]
  faults: FaultInjector
  control: ControlContext
  registration: RegistrationContext
  interaction: InteractionContext
  /** Serve `/.well-known/oauth-authorization-server/oauth2/<id>` (RFC 8414 §3.1). */
  rfc8414PathForm: boolean
  /** Headless sign-in: the user signed in at once, and the secret marking its internal hop. */
  autoSignIn?: { user: string; hopSecret: string; caCertPem?: string } | undefined
  /** The URLs of a shape's layout (shapes.ts). */
  shapeInputs?: ShapeInputs | undefined
}

/** Marks entra's v1 discovery request for the provider's discovery rewrite (set only here). */
const ENTRA_V1_HEADER = 'x-mock-entra-v1'

const NOT_FOUND = { errorCode: 'E0000022', errorSummary: 'The endpoint does not exist.' }
const REQUESTS_KEPT = 1000

/**
 * Builds the request handler of one listener: `main` (the org URL: everything), or one of a
 * shape's other hosts (google's token and keys hosts), which serves only the shape's routes on
 * that host — a request for another endpoint there is a 404, as at the real IdP's other hosts.
 */
export function createRouter(ctx: RouterContext, listener: PublicRoute['host'] = 'main'): Handler {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://mock-idp')
    const path = url.pathname
    ctx.requests.push({
      method: req.method ?? 'GET',
      path,
      query: url.search,
      at: new Date().toISOString(),
    })
    if (ctx.requests.length > REQUESTS_KEPT) ctx.requests.shift()
    delete req.headers[ENTRA_V1_HEADER]
    if (listener !== 'main') {
      for (const server of ctx.servers.values()) {
        if (await serveShapePath(ctx, server, path, url, req, res, listener)) return
      }
      return sendJson(res, 404, { ...NOT_FOUND, errorLink: 'E0000022' })
    }

    if (path.startsWith('/__control')) {
      if (!ctx.testMode)
        return sendJson(res, 404, { errorCode: 'E0000022', errorSummary: 'Not found' })
      return handleControl(ctx.control, req, res, path, readBody)
    }
    if (path === '/oauth2/v1/clients') {
      if (await ctx.faults.apply('registration', res)) return
      return handleRegistration(ctx.registration, req, res)
    }
    // RFC 8414 §3.1 path insertion, when the IdP has it: the server's discovery document.
    const pathForm = /^\/\.well-known\/oauth-authorization-server\/oauth2\/([^/]+)$/.exec(path)
    const formServer = pathForm?.[1] ? ctx.servers.get(pathForm[1]) : undefined
    if (ctx.rfc8414PathForm && formServer) {
      if (await ctx.faults.apply('discovery', res)) return
      return toProvider(
        ctx,
        formServer,
        req,
        res,
        `${formServer.path}/.well-known/openid-configuration`,
        '/.well-known/openid-configuration',
      )
    }
    for (const server of ctx.servers.values()) {
      if (server.layout) {
        const served = await serveShapePath(ctx, server, path, url, req, res, 'main')
        if (served) return
      }
    }
    const m = /^\/oauth2\/([^/]+)(\/.*)?$/.exec(path)
    const s = m?.[1] ? ctx.servers.get(m[1]) : undefined
    if (!s) return sendJson(res, 404, { ...NOT_FOUND, errorLink: 'E0000022' })
    return serveAuthServer(ctx, s, m?.[2] ?? '/', url, req, res)
  }
}

/**
 * A shape's public path on `listener` (shapes.ts), mapped onto its internal mount; the authorize
 * endpoint's shape rules first. Returns false when the path is not one of the shape's there.
 */
async function serveShapePath(
  ctx: RouterContext,
  s: AuthServer,
  path: string,
  url: URL,
  req: IncomingMessage,
  res: ServerResponse,
  listener: PublicRoute['host'],
): Promise<boolean> {
  const layout = s.layout
  if (!layout) return false
  let internal: string | undefined
  if (listener === 'main' && path === layout.discoveryPath)
    internal = '/.well-known/openid-configuration'
  else if (listener === 'main' && layout.entra && path === layout.entra.v1DiscoveryPath) {
    internal = '/.well-known/openid-configuration'
    req.headers[ENTRA_V1_HEADER] = '1'
  } else internal = layout.routes.find((r) => r.path === path && r.host === listener)?.internal
  if (!internal) return false
  const inner = new URL(`${s.path}${internal}${url.search}`, 'http://mock-idp')
  if (internal === '/v1/authorize' && req.method === 'GET') {
    const q = inner.searchParams
    if (layout.audienceParameter === 'refuse' && q.has('audience')) {
      await refuseAuthorization(s, inner, res, {
        error: 'invalid_request',
        error_description: 'Parameter not allowed for this message type: audience',
      })
      return true
    }
    if (layout.accessTypeOffline) {
      const scopes = (q.get('scope') ?? '').split(' ').filter(Boolean)
      if (scopes.includes('offline_access')) {
        await refuseAuthorization(s, inner, res, {
          error: 'invalid_scope',
          error_description: 'Some requested scopes were invalid: {invalid=[offline_access]}',
        })
        return true
      }
      // A refresh token comes with access_type=offline (and the consent prompt).
      if (q.get('access_type') === 'offline')
        q.set('scope', [...scopes, 'offline_access'].join(' '))
    }
  }
  req.url = `${inner.pathname}${inner.search}`
  await serveAuthServer(ctx, s, internal, inner, req, res)
  return true
}

/** A request under one authorization server's `/oauth2/<id>`; `rest` is the path below it. */
/** The scope an authorization request without one is processed with (RFC 6749 §3.3). */
const DEFAULT_SCOPE = 'openid'

async function serveAuthServer(
  ctx: RouterContext,
  s: AuthServer,
  rest: string,
  url: URL,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  // The seed: keys only at /oauth2/<id>/v1/keys, never at the well-known JWKS path.
  if (rest === '/.well-known/jwks.json') return sendJson(res, 404, NOT_FOUND)
  if (rest === '/v1/keys') {
    if (await ctx.faults.apply('jwks', res)) return
    return sendJson(res, 200, s.keys.publicJwks(), { 'cache-control': 'max-age=300' })
  }
  if (
    rest === '/.well-known/openid-configuration' ||
    rest === '/.well-known/oauth-authorization-server'
  ) {
    if (await ctx.faults.apply('discovery', res)) return
  }
  if (rest === '/v1/token') {
    if (await ctx.faults.apply('token', res)) return
  }
  if (rest === '/v1/introspect') {
    if (await ctx.faults.apply('introspection', res)) return
  }
  if (rest === '/v1/userinfo') {
    if (await ctx.faults.apply('userinfo', res)) return
  }
  if (rest.startsWith('/interaction/'))
    return handleInteraction(ctx.interaction, s.provider, s.issuer, req, res)
  if (rest === '/v1/authorize') {
    // No RFC 8707; the audience parameter must name this server's audience.
    const audience = url.searchParams.get('audience')
    const checked = !s.layout || s.layout.audienceParameter === 'check'
    if (checked && audience !== null && audience !== s.audience) {
      return refuseAuthorization(s, url, res, {
        error: 'access_denied',
        error_description: `Policy evaluation failed for this request: the audience "${audience}" is not the audience of authorization server ${s.id} ("${s.audience}").`,
      })
    }
    // RFC 6749 §3.3: a request without scope is processed with a pre-defined default (openid),
    // not refused (oidc-provider alone answers access_denied when no scope was granted).
    if (req.method === 'GET' && !url.searchParams.get('scope')) {
      url.searchParams.set('scope', DEFAULT_SCOPE)
      req.url = `${url.pathname}${url.search}`
    }
    const auto = ctx.autoSignIn
    if (auto && req.method === 'GET' && req.headers[AUTO_SIGN_IN_HEADER] !== auto.hopSecret) {
      const signIn = {
        hopSecret: auto.hopSecret,
        orgUrl: ctx.orgUrl,
        internalUrl: ctx.internalUrl,
        user: auto.user,
        users: ctx.users,
        ...(auto.caCertPem ? { caCertPem: auto.caCertPem } : {}),
      }
      return autoSignIn(signIn, `${url.pathname}${url.search}`, res)
    }
  }
  return toProvider(ctx, s, req, res, req.url ?? url.pathname, `${rest}${url.search}`)
}

/** Hands a request to a server's oidc-provider, mounted at its issuer path. */
function toProvider(
  ctx: RouterContext,
  s: AuthServer,
  req: IncomingMessage,
  res: ServerResponse,
  originalUrl: string,
  mountedUrl: string,
): void {
  // Like Express mounting: oidc-provider derives its mount path from originalUrl minus url.
  ;(req as IncomingMessage & { originalUrl?: string }).originalUrl = originalUrl
  req.url = mountedUrl
  // oidc-provider builds endpoint URLs from the request's host and protocol. Pin them to the
  // org URL (the provider trusts these two headers, and only as set here), so that discovery
  // names the URLs clients use, whichever address the request came to (e.g. mock-idp:9000
  // inside docker compose, localhost:9000 from the host's browser).
  const org = new URL(ctx.orgUrl)
  req.headers['x-forwarded-host'] = org.host
  req.headers['x-forwarded-proto'] = org.protocol.slice(0, -1)
  s.provider.callback()(req, res)
}

/**
 * Refuses an authorization request the way an authorization server does (RFC 6749 §4.1.2.1):
 * back to the client's redirect URI with `error`, `error_description`, `state` and `iss`
 * (RFC 9207) when the client is known and the redirect URI is registered for it; otherwise an
 * error page, since an unverified redirect URI must not be followed.
 */
async function refuseAuthorization(
  s: AuthServer,
  url: URL,
  res: ServerResponse,
  error: { error: string; error_description: string },
): Promise<void> {
  const clientId = url.searchParams.get('client_id')
  const redirectUri = url.searchParams.get('redirect_uri')
  const client = clientId ? await s.provider.Client.find(clientId) : undefined
  if (!client || !redirectUri || !client.redirectUriAllowed(redirectUri)) {
    return sendJson(res, 400, error)
  }
  const target = new URL(redirectUri)
  target.searchParams.set('error', error.error)
  target.searchParams.set('error_description', error.error_description)
  const state = url.searchParams.get('state')
  if (state !== null) target.searchParams.set('state', state)
  target.searchParams.set('iss', s.issuer)
  res.writeHead(303, { location: target.toString() })
  res.end()
}
