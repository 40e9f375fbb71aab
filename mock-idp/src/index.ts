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
 * Options close those gaps one by one for other IdP shapes (RFC 8414 path form, RFC 8707, open
 * registration, Client ID Metadata Documents; see {@link MockIdpOptions}). In test mode it also
 * offers a headless login (`login_hint` of a known user, or `autoSignIn`) and a control API under
 * `/__control` (mint tokens, rotate keys, inject faults, list registrations and requests).
 */
import { randomBytes } from 'node:crypto'
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import type Provider from 'oidc-provider'
import { AUTO_SIGN_IN_HEADER, autoSignIn } from './auto-sign-in.js'
import { createTestCertificates } from './certs.js'
import { type ControlContext, handleControl } from './control.js'
import { json, readBody } from './http.js'
import { handleInteraction, type InteractionContext } from './interaction.js'
import { KeyRing } from './keys.js'
import type { Fault, FaultEndpoint, MockIdp, MockIdpOptions, MockUser } from './options.js'
import { createProvider, type ProvidedServer, type ProviderContext, SCOPES } from './provider.js'
import {
  handleRegistration,
  type RecordedRegistration,
  type RegistrationContext,
} from './registration.js'
import { Store } from './store.js'

export { controlClient, type TokenRequest } from './control-client.js'
export { authorizeHeadless } from './headless.js'
export type {
  AuthServerOptions,
  Fault,
  FaultEndpoint,
  MockIdp,
  MockIdpOptions,
  MockUser,
} from './options.js'
export type { ExtraClient } from './provider.js'

const DEFAULT_USERS: MockUser[] = [
  { login: 'alice', name: 'Alice Example', groups: ['AI-Users', 'Everyone'] },
  { login: 'bob', name: 'Bob Example', groups: ['Everyone'] },
]
const PUBLIC_CLIENT_ID = 'gatehouse-demo-client'

/** An authorization server with its provider (replaced on key rotation). */
interface AuthServer extends ProvidedServer {
  provider: Provider
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
  if (
    options.autoSignIn !== undefined &&
    !(options.users ?? DEFAULT_USERS).some((u) => u.login === options.autoSignIn)
  )
    throw new TypeError(`autoSignIn: "${options.autoSignIn}" is not a user of the directory`)
  if (options.autoSignIn !== undefined && !testMode)
    throw new TypeError(
      'autoSignIn: signs users in without a page, so it needs test mode (testMode: true)',
    )
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
  const registrations: RecordedRegistration[] = []

  if (options.publicUrl !== undefined) {
    const u = URL.canParse(options.publicUrl) ? new URL(options.publicUrl) : undefined
    if (u?.origin !== options.publicUrl.replace(/\/$/, '')) {
      throw new TypeError(
        `publicUrl: expected an origin such as http://localhost:9000 (no path), got "${options.publicUrl}"`,
      )
    }
  }

  const certs = options.https ? await createTestCertificates(host) : undefined
  // The port must be bound before the issuer can name it, and keys and providers come after:
  // requests that arrive in between wait for them instead of finding no handler (and no answer).
  let ready: (handler: typeof handle) => void = () => {}
  const handler = new Promise<typeof handle>((resolve) => {
    ready = resolve
  })
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    void handler.then((h) =>
      h(req, res).catch((err: unknown) => {
        if (!res.headersSent)
          json(res, 500, { error: 'server_error', error_description: (err as Error).message })
        else res.destroy()
      }),
    )
  }
  const server: Server = certs
    ? createHttpsServer({ key: certs.keyPem, cert: certs.certPem }, onRequest)
    : createHttpServer(onRequest)
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
  const org = new URL(orgUrl)

  const providerCtx: ProviderContext = {
    orgUrl,
    store,
    cookieKeys,
    users,
    accessTokenTtl: ttl,
    trustedOrigins,
    loopbackClients,
    publicClientId: PUBLIC_CLIENT_ID,
    extraClients: options.clients ?? [],
    serviceClient,
    resourceIndicators: options.resourceIndicators ?? false,
    accessTokenTtlByGrant: options.accessTokenTtlByGrant ?? {},
    ...(options.clientIdMetadataDocuments
      ? {
          clientIdMetadataDocuments: new Map(
            Object.entries(options.clientIdMetadataDocuments.documents ?? {}),
          ),
        }
      : {}),
  }
  const buildProvider = (s: ProvidedServer): Provider => createProvider(providerCtx, s)

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

  const registrationCtx: RegistrationContext = {
    apiToken,
    open: options.registration === 'open',
    registrations,
    store,
    loopbackClients,
    validate: async (metadata) => {
      const Client = defaultServer.provider.Client as unknown as {
        validate(m: unknown): Promise<unknown>
      }
      await Client.validate(metadata)
    },
  }

  const interactionCtx: InteractionContext = { users, testMode }
  const autoUser = options.autoSignIn
  const hopSecret = randomBytes(16).toString('base64url')
  const internalUrl = `${certs ? 'https' : 'http'}://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`

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
      return handleRegistration(registrationCtx, req, res)
    }
    // RFC 8414 §3.1 path insertion, when the IdP has it: the server's discovery document.
    const pathForm = /^\/\.well-known\/oauth-authorization-server\/oauth2\/([^/]+)$/.exec(path)
    const formServer = pathForm?.[1] ? servers.get(pathForm[1]) : undefined
    if (options.rfc8414PathForm && formServer) {
      if (await applyFault('discovery', res)) return
      return toProvider(
        formServer,
        req,
        res,
        `${formServer.path}/.well-known/openid-configuration`,
        '/.well-known/openid-configuration',
      )
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
    if (rest.startsWith('/interaction/'))
      return handleInteraction(interactionCtx, s.provider, s.issuer, req, res)
    if (rest === '/v1/authorize') {
      // No RFC 8707; the audience parameter must name this server's audience.
      const audience = url.searchParams.get('audience')
      if (audience !== null && audience !== s.audience) {
        return refuseAuthorization(s, url, res, {
          error: 'access_denied',
          error_description: `Policy evaluation failed for this request: the audience "${audience}" is not the audience of authorization server ${s.id} ("${s.audience}").`,
        })
      }
      const ownHop = req.headers[AUTO_SIGN_IN_HEADER] === hopSecret
      if (autoUser && req.method === 'GET' && !ownHop) {
        const ctx = {
          hopSecret,
          orgUrl,
          internalUrl,
          user: autoUser,
          users,
          ...(certs ? { caCertPem: certs.caCertPem } : {}),
        }
        return autoSignIn(ctx, `${path}${url.search}`, res)
      }
    }
    return toProvider(s, req, res, req.url ?? path, `${rest}${url.search}`)
  }

  /** Hands a request to a server's oidc-provider, mounted at its issuer path. */
  function toProvider(
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

  ready(handle)

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
