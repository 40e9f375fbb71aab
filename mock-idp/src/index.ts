/**
 * mock-idp: a real OpenID provider (oidc-provider, OpenID Certified) shaped like the bridged IdP
 * of the seed (`shared/spec/seed-gateway-mcp-auth.md`), including every gap the proxy bridges:
 *
 * - authorization servers under `/oauth2/<id>`; discovery at
 *   `/oauth2/<id>/.well-known/openid-configuration`; keys only at `/oauth2/<id>/v1/keys`
 *   (`/.well-known/jwks.json` → 404);
 * - no RFC 8414 path-form metadata (`/.well-known/oauth-authorization-server/oauth2/<id>` → 404);
 * - no RFC 8707: a `resource` parameter has no effect on `aud`, which is always the server's
 *   audience; a mismatching `audience` parameter is refused;
 * - Dynamic Client Registration only at the org level (`/oauth2/v1/clients`), needing an
 *   `Authorization: SSWS <api token>` and sending no CORS headers.
 *
 * In test mode it also offers a headless login (`login_hint` of a known user) and a control API
 * under `/__control` (mint tokens, rotate keys, inject faults, list registrations and requests).
 */
import { randomBytes, randomUUID } from 'node:crypto'
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import Provider, { type ClientMetadata } from 'oidc-provider'
import { createTestCertificates } from './certs.js'
import { type ControlContext, handleControl } from './control.js'
import { KeyRing } from './keys.js'
import { Store } from './store.js'

export { controlClient, type TokenRequest } from './control-client.js'
export { authorizeHeadless } from './headless.js'

/** A user of the directory. */
export interface MockUser {
  login: string
  name?: string
  groups: string[]
}

/** An authorization server (`/oauth2/<id>`). */
export interface AuthServerOptions {
  id: string
  audience: string
  scopes?: string[]
}

/** Options of {@link startMockIdp}. */
export interface MockIdpOptions {
  /** Port; default 0 (any free port). The bin defaults to 9000. */
  port?: number
  /** Bind address; default 127.0.0.1. */
  host?: string
  /** The org URL as clients see it (e.g. in docker compose); default the listening URL. */
  publicUrl?: string
  /** Serve HTTPS with a generated test CA (returned as `caCertPath` / `caCertPem`). */
  https?: boolean
  /** Enables `/__control` and the headless login. Default true in-process. */
  testMode?: boolean
  /** The org API token DCR needs (`Authorization: SSWS <token>`). Default `test-api-token`. */
  apiToken?: string
  authServers?: AuthServerOptions[]
  users?: MockUser[]
  /** Extra public clients (PKCE, loopback redirect URIs). */
  clients?: Array<{ clientId: string; redirectUris?: string[] }>
  accessTokenTtlSeconds?: number
  /**
   * Web origins allowed to call the authorization servers' token, userinfo, revocation and
   * introspection endpoints from a browser, like the provider's "Trusted Origins" of type CORS.
   * Exact origins such as `http://localhost:6274`. Default none: no CORS there, as on a fresh
   * org. Org-level client registration never gets CORS, whatever this says.
   */
  trustedOrigins?: string[]
}

/** A running mock-idp. */
export interface MockIdp {
  orgUrl: string
  issuer: string
  issuerFor(id: string): string
  audience: string
  jwksUri: string
  discoveryUrl: string
  registrationUrl: string
  controlUrl: string
  apiToken: string
  publicClientId: string
  serviceClient: { clientId: string; clientSecret: string }
  caCertPath?: string
  caCertPem?: string
  port: number
  stop(): Promise<void>
}

/** The endpoints a fault can hit. */
export type FaultEndpoint = 'jwks' | 'discovery' | 'registration'
/** How an endpoint misbehaves. */
export interface Fault {
  mode: 'error' | 'hang' | 'slow'
  status?: number
  delayMs?: number
}

const DEFAULT_USERS: MockUser[] = [
  { login: 'alice', name: 'Alice Example', groups: ['AI-Users', 'Everyone'] },
  { login: 'bob', name: 'Bob Example', groups: ['Everyone'] },
]
const PUBLIC_CLIENT_ID = 'gatehouse-demo-client'
const SCOPES = ['openid', 'profile', 'email', 'offline_access']

interface AuthServer {
  id: string
  audience: string
  scopes: string[]
  issuer: string
  path: string
  keys: KeyRing
  provider: Provider
}

/** Whether a URL is `http://127.0.0.1|localhost:<any port>/<any path>`. */
function isLoopbackHttp(value: string): boolean {
  try {
    const u = new URL(value)
    return (
      u.protocol === 'http:' &&
      (u.hostname === '127.0.0.1' || u.hostname === 'localhost' || u.hostname === '[::1]')
    )
  } catch {
    return false
  }
}

function html(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
  res.end(body)
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  })
  res.end(text)
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

async function readBody(req: IncomingMessage, limit = 64 * 1024): Promise<string> {
  let body = ''
  for await (const chunk of req) {
    body += chunk
    if (body.length > limit) throw new RangeError('body too large')
  }
  return body
}

/**
 * Starts a mock-idp.
 * @example
 * const idp = await startMockIdp()
 * const { access_token } = await controlClient(idp.controlUrl).token({ sub: 'alice' })
 */
export async function startMockIdp(options: MockIdpOptions = {}): Promise<MockIdp> {
  const host = options.host ?? '127.0.0.1'
  const testMode = options.testMode ?? true
  const trustedOrigins = new Set(options.trustedOrigins ?? [])
  const apiToken = options.apiToken ?? 'test-api-token'
  const ttl = options.accessTokenTtlSeconds ?? 3600
  const users = new Map((options.users ?? DEFAULT_USERS).map((u) => [u.login, u]))
  const store = new Store()
  const cookieKeys = [randomBytes(32).toString('base64url')]
  const serviceClient = {
    clientId: 'gatehouse-service',
    clientSecret: randomBytes(24).toString('base64url'),
  }
  const loopbackClients = new Set([
    PUBLIC_CLIENT_ID,
    ...(options.clients ?? []).map((c) => c.clientId),
  ])
  const faults = new Map<FaultEndpoint, Fault>()
  const hanging = new Set<ServerResponse>()
  const requests: Array<{ method: string; path: string; query: string; at: string }> = []
  const registrations: Array<{
    at: string
    headers: Record<string, string>
    body: unknown
    status: number
  }> = []

  const certs = options.https ? await createTestCertificates(host) : undefined
  const server: Server = certs
    ? createHttpsServer({ key: certs.keyPem, cert: certs.certPem })
    : createHttpServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  const orgUrl = (options.publicUrl ?? `${certs ? 'https' : 'http'}://${host}:${port}`).replace(
    /\/$/,
    '',
  )

  const buildProvider = (s: Omit<AuthServer, 'provider'>): Provider => {
    const clients: ClientMetadata[] = [
      {
        client_id: PUBLIC_CLIENT_ID,
        application_type: 'native' as const,
        token_endpoint_auth_method: 'none' as const,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'] as const,
        redirect_uris: ['http://127.0.0.1/callback', 'http://localhost/callback'],
      },
      ...(options.clients ?? []).map((c) => ({
        client_id: c.clientId,
        application_type: 'native' as const,
        token_endpoint_auth_method: 'none' as const,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'] as const,
        redirect_uris: c.redirectUris ?? ['http://127.0.0.1/callback'],
      })),
      {
        client_id: serviceClient.clientId,
        client_secret: serviceClient.clientSecret,
        grant_types: ['client_credentials'],
        response_types: [] as const,
        redirect_uris: [],
      },
    ]
    const provider = new Provider(s.issuer, {
      adapter: store.adapterClass(),
      clients,
      jwks: s.keys.privateJwks(),
      cookies: { keys: cookieKeys },
      scopes: SCOPES,
      claims: { openid: ['sub'], profile: ['name', 'groups'], email: ['email'] },
      pkce: { required: () => true },
      routes: {
        authorization: '/v1/authorize',
        token: '/v1/token',
        jwks: '/v1/keys',
        userinfo: '/v1/userinfo',
        revocation: '/v1/revoke',
        introspection: '/v1/introspect',
        end_session: '/v1/logout',
      },
      discovery: { registration_endpoint: `${orgUrl}/oauth2/v1/clients` },
      // CORS only for the configured trusted origins (not oidc-provider's redirect-URI default).
      clientBasedCORS: (_ctx, origin) => trustedOrigins.has(origin),
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        introspection: { enabled: true },
        revocation: { enabled: true },
        // Used to issue JWT access tokens whose audience is the server's, whatever `resource`
        // the client sends: the IdP has no RFC 8707.
        resourceIndicators: {
          enabled: true,
          defaultResource: async () => s.audience,
          useGrantedResource: async () => true,
          getResourceServerInfo: async () => ({
            scope: s.scopes.join(' '),
            audience: s.audience,
            accessTokenTTL: ttl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          }),
        },
      },
      findAccount: async (_ctx, sub) => {
        const user = users.get(sub)
        if (!user) return undefined
        return {
          accountId: sub,
          claims: async () => ({
            sub,
            name: user.name ?? sub,
            groups: user.groups,
            email: `${sub}@example.com`,
          }),
        }
      },
      extraTokenClaims: async (_ctx, token) => {
        const t = token as unknown as { accountId?: string; clientId?: string; scope?: string }
        const scp = (t.scope ?? '').split(' ').filter(Boolean)
        const user = t.accountId ? users.get(t.accountId) : undefined
        return {
          cid: t.clientId,
          scp,
          ...(user ? { uid: `00u-${user.login}`, groups: user.groups } : {}),
        }
      },
      interactions: { url: (_ctx, interaction) => `${s.path}/interaction/${interaction.uid}` },
      ttl: {
        AccessToken: ttl,
        AuthorizationCode: 120,
        IdToken: ttl,
        RefreshToken: 24 * 3600,
        ClientCredentials: ttl,
        Interaction: 600,
        Session: 3600,
        Grant: 3600,
      },
      renderError: async (ctx, out) => {
        ctx.type = 'html'
        ctx.body = `<!doctype html><title>Error</title><h1>${escapeHtml(String(out.error))}</h1><p>${escapeHtml(String(out.error_description ?? ''))}</p>`
      },
    })
    // Loopback redirect URIs on any port and path for the public clients (RFC 8252 §7.3).
    const proto = provider.Client.prototype as unknown as {
      redirectUriAllowed(this: { clientId: string }, value: string): boolean
    }
    const original = proto.redirectUriAllowed
    proto.redirectUriAllowed = function (value: string) {
      if (loopbackClients.has(this.clientId) && isLoopbackHttp(value)) return true
      return original.call(this, value)
    }
    return provider
  }

  const servers = new Map<string, AuthServer>()
  for (const o of options.authServers ?? [{ id: 'default', audience: 'api://default' }]) {
    const path = `/oauth2/${o.id}`
    const base = {
      id: o.id,
      audience: o.audience,
      scopes: o.scopes ?? SCOPES,
      issuer: `${orgUrl}${path}`,
      path,
      keys: await KeyRing.create(),
    }
    servers.set(o.id, { ...base, provider: buildProvider(base) })
  }
  const defaultServer = servers.values().next().value as AuthServer

  /** Applies an endpoint fault; returns true when the request was handled by it. */
  const applyFault = async (endpoint: FaultEndpoint, res: ServerResponse): Promise<boolean> => {
    const fault = faults.get(endpoint)
    if (!fault) return false
    if (fault.mode === 'hang') {
      hanging.add(res)
      res.once('close', () => hanging.delete(res))
      return true
    }
    if (fault.mode === 'slow') {
      await new Promise((r) => setTimeout(r, fault.delayMs ?? 2000))
      return false
    }
    json(res, fault.status ?? 500, {
      errorCode: 'E0000009',
      errorSummary: 'Internal Server Error (injected fault)',
    })
    return true
  }

  const controlCtx: ControlContext = {
    servers,
    users,
    faults,
    hanging,
    requests,
    registrations,
    store,
    publicClientId: PUBLIC_CLIENT_ID,
    serviceClient,
    rotate: async (id, keepOld) => {
      const server = servers.get(id)
      if (!server) throw new Error(`no authorization server "${id}"`)
      const key = await server.keys.rotate(keepOld)
      // oidc-provider reads its keys at construction: a new instance over the same storage.
      server.provider = buildProvider(server)
      return key.kid
    },
  }

  const handleRegistration = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // No CORS headers here, preflight included: the gap the gateway bridges.
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { allow: 'POST' })
      res.end()
      return
    }
    if (req.method !== 'POST')
      return json(
        res,
        405,
        { errorCode: 'E0000022', errorSummary: 'Method not allowed' },
        { allow: 'POST' },
      )
    let raw = ''
    try {
      raw = await readBody(req)
    } catch {
      return json(res, 413, { errorCode: 'E0000001', errorSummary: 'Request too large' })
    }
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v !== 'string') continue
      headers[k] = k === 'authorization' ? v.replace(/^(SSWS|Bearer)\s+.+$/i, '$1 <redacted>') : v
    }
    let body: unknown = raw
    try {
      body = raw ? JSON.parse(raw) : undefined
    } catch {}
    const record = (status: number) =>
      registrations.push({ at: new Date().toISOString(), headers, body, status })
    if (req.headers.authorization !== `SSWS ${apiToken}`) {
      record(401)
      return json(res, 401, {
        errorCode: 'E0000011',
        errorSummary: 'Invalid token provided',
        errorLink: 'E0000011',
        errorId: `oae${randomUUID().replace(/-/g, '').slice(0, 20)}`,
        errorCauses: [],
      })
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      record(400)
      return json(res, 400, {
        error: 'invalid_client_metadata',
        error_description: 'the body must be a JSON object',
      })
    }
    const m = body as Record<string, unknown>
    const authMethod =
      typeof m.token_endpoint_auth_method === 'string'
        ? m.token_endpoint_auth_method
        : 'client_secret_basic'
    const metadata: Record<string, unknown> = {
      application_type: 'native' as const,
      grant_types: ['authorization_code'],
      response_types: ['code'] as const,
      ...m,
      token_endpoint_auth_method: authMethod,
      client_id: `0oa${randomUUID().replace(/-/g, '').slice(0, 17)}`,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      ...(authMethod === 'none' ? {} : { client_secret: randomBytes(32).toString('base64url') }),
    }
    try {
      const Client = defaultServer.provider.Client as unknown as {
        validate(m: unknown): Promise<unknown>
      }
      await Client.validate(metadata)
    } catch (err) {
      record(400)
      return json(res, 400, {
        error: 'invalid_client_metadata',
        error_description: (err as Error).message,
      })
    }
    await new (store.adapterClass())('Client').upsert(String(metadata.client_id), metadata)
    loopbackClients.add(String(metadata.client_id))
    record(201)
    json(res, 201, metadata)
  }

  const handleInteraction = async (
    s: AuthServer,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> => {
    const provider = s.provider
    let details: Awaited<ReturnType<Provider['interactionDetails']>>
    try {
      details = await provider.interactionDetails(req, res)
    } catch (err) {
      return html(
        res,
        400,
        `<!doctype html><title>Sign-in expired</title><p>${escapeHtml((err as Error).message)}. Start again from your application.</p>`,
      )
    }
    const prompt = details.prompt.name
    if (prompt === 'consent') {
      // First-party demo: consent is granted without a page.
      const d = details.prompt.details as {
        missingOIDCScope?: string[]
        missingOIDCClaims?: string[]
        missingResourceScopes?: Record<string, string[]>
      }
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({
            accountId: details.session?.accountId,
            clientId: String(details.params.client_id),
          })
      if (!grant) return html(res, 400, '<p>grant not found</p>')
      if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(' '))
      if (d.missingOIDCClaims) grant.addOIDCClaims(d.missingOIDCClaims)
      for (const [indicator, scope] of Object.entries(d.missingResourceScopes ?? {})) {
        grant.addResourceScope(indicator, scope.join(' '))
      }
      const grantId = await grant.save()
      return provider.interactionFinished(
        req,
        res,
        { consent: { grantId } },
        { mergeWithLastSubmission: true },
      )
    }
    // Login.
    let login: string | undefined
    if (req.method === 'POST') {
      login = new URLSearchParams(await readBody(req)).get('login') ?? undefined
    } else if (
      testMode &&
      typeof details.params.login_hint === 'string' &&
      users.has(details.params.login_hint)
    ) {
      login = details.params.login_hint
    }
    if (login && users.has(login)) {
      return provider.interactionFinished(
        req,
        res,
        { login: { accountId: login } },
        { mergeWithLastSubmission: false },
      )
    }
    const options = [...users.values()]
      .map(
        (u) =>
          `<option value="${escapeHtml(u.login)}">${escapeHtml(u.name ?? u.login)} (${escapeHtml(u.login)}; groups: ${escapeHtml(u.groups.join(', ') || 'none')})</option>`,
      )
      .join('')
    return html(
      res,
      200,
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in — mock-idp</title>
<style>body{font:16px system-ui;max-width:28rem;margin:4rem auto}select,button{font:inherit;padding:.4rem;width:100%;margin:.5rem 0}</style></head>
<body><h1>Sign in</h1><p>Client <code>${escapeHtml(String(details.params.client_id))}</code> asks to sign you in to <code>${escapeHtml(s.issuer)}</code>.</p>
<form method="post"><label>User<select name="login" autofocus>${options}</select></label><button type="submit">Sign in and approve</button></form>
<p><small>mock-idp: a test identity provider. No password is asked.</small></p></body></html>`,
    )
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://mock-idp')
    const path = url.pathname
    requests.push({
      method: req.method ?? 'GET',
      path,
      query: url.search,
      at: new Date().toISOString(),
    })
    if (requests.length > 1000) requests.shift()

    if (path.startsWith('/__control')) {
      if (!testMode) return json(res, 404, { errorCode: 'E0000022', errorSummary: 'Not found' })
      return handleControl(controlCtx, req, res, path, readBody)
    }
    if (path === '/oauth2/v1/clients') {
      if (await applyFault('registration', res)) return
      return handleRegistration(req, res)
    }
    const m = /^\/oauth2\/([^/]+)(\/.*)?$/.exec(path)
    const s = m?.[1] ? servers.get(m[1]) : undefined
    if (!s) {
      return json(res, 404, {
        errorCode: 'E0000022',
        errorSummary: 'The endpoint does not exist.',
        errorLink: 'E0000022',
      })
    }
    const rest = m?.[2] ?? '/'
    if (rest === '/.well-known/jwks.json') {
      return json(res, 404, { errorCode: 'E0000022', errorSummary: 'The endpoint does not exist.' })
    }
    if (rest === '/v1/keys') {
      if (await applyFault('jwks', res)) return
      return json(res, 200, s.keys.publicJwks(), { 'cache-control': 'max-age=300' })
    }
    if (
      rest === '/.well-known/openid-configuration' ||
      rest === '/.well-known/oauth-authorization-server'
    ) {
      if (await applyFault('discovery', res)) return
    }
    if (rest.startsWith('/interaction/')) return handleInteraction(s, req, res)
    if (rest === '/v1/authorize') {
      // No RFC 8707; the audience parameter must name this server's audience.
      const audience = url.searchParams.get('audience')
      if (audience !== null && audience !== s.audience) {
        return refuseAuthorization(s, url, res, {
          error: 'access_denied',
          error_description: `Policy evaluation failed for this request: the audience "${audience}" is not the audience of authorization server ${s.id} ("${s.audience}").`,
        })
      }
    }
    // Hand the request to the server's oidc-provider, mounted at its issuer path.
    // Like Express mounting: oidc-provider derives its mount path from originalUrl minus url.
    ;(req as IncomingMessage & { originalUrl?: string }).originalUrl = req.url
    req.url = `${rest}${url.search}`
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
      return json(res, 400, error)
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

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent)
        json(res, 500, { error: 'server_error', error_description: (err as Error).message })
      else res.destroy()
    })
  })

  return {
    orgUrl,
    issuer: defaultServer.issuer,
    issuerFor: (id) => {
      const s = servers.get(id)
      if (!s) throw new Error(`no authorization server "${id}"`)
      return s.issuer
    },
    audience: defaultServer.audience,
    jwksUri: `${defaultServer.issuer}/v1/keys`,
    discoveryUrl: `${defaultServer.issuer}/.well-known/openid-configuration`,
    registrationUrl: `${orgUrl}/oauth2/v1/clients`,
    controlUrl: `${orgUrl}/__control`,
    apiToken,
    publicClientId: PUBLIC_CLIENT_ID,
    serviceClient,
    ...(certs ? { caCertPath: certs.caCertPath, caCertPem: certs.caCertPem } : {}),
    port,
    async stop() {
      for (const res of hanging) res.destroy()
      hanging.clear()
      server.closeAllConnections()
      await new Promise<void>((r) => server.close(() => r()))
    },
  }
}

/** Alias of {@link startMockIdp} (the issue's `start()`). */
export const start = startMockIdp
