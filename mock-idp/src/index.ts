/**
 * mock-idp: a real OpenID provider (oidc-provider, OpenID Certified) shaped like the bridged IdP
 * of the seed (`docs/design/seed-gateway-mcp-auth.md`), including every gap the proxy bridges:
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
import { createTestCertificates } from './certs.js'
import type { ControlContext } from './control.js'
import { FaultInjector } from './faults.js'
import type { InteractionContext } from './interaction.js'
import { KeyRing } from './keys.js'
import type { MockIdp, MockIdpOptions, MockUser } from './options.js'
import { createProvider, type ProvidedServer, type ProviderContext, SCOPES } from './provider.js'
import type { RecordedRegistration, RegistrationContext } from './registration.js'
import {
  type AuthServer,
  createRouter,
  type RecordedRequest,
  type RouterContext,
} from './router.js'
import { listenDeferred } from './server.js'
import { routeUrl, type ShapeInputs, shapeLayout } from './shapes.js'
import { Store } from './store.js'

export { createTestCertificates, type TestCertificates } from './certs.js'
export { controlClient, type TokenRequest } from './control-client.js'
export { accessTokenHeadless, authorizeHeadless } from './headless.js'
export type {
  AuthServerOptions,
  Fault,
  FaultEndpoint,
  IdpHost,
  MockIdp,
  MockIdpOptions,
  MockUser,
} from './options.js'
export type { ExtraClient } from './provider.js'
export { ENTRA_TENANT, GRAPH_AUDIENCE, type IdpShapeName } from './shapes.js'

const DEFAULT_USERS: MockUser[] = [
  { login: 'alice', name: 'Alice Example', groups: ['AI-Users', 'Everyone'] },
  { login: 'bob', name: 'Bob Example', groups: ['Everyone'] },
]
const PUBLIC_CLIENT_ID = 'gatehouse-demo-client'

/** Refuses options that cannot work together, saying why. */
function checkOptions(options: MockIdpOptions, testMode: boolean): void {
  const users = options.users ?? DEFAULT_USERS
  if (options.autoSignIn !== undefined && !users.some((u) => u.login === options.autoSignIn))
    throw new TypeError(`autoSignIn: "${options.autoSignIn}" is not a user of the directory`)
  if (options.autoSignIn !== undefined && !testMode)
    throw new TypeError(
      'autoSignIn: signs users in without a page, so it needs test mode (testMode: true)',
    )
  const origins: Array<[string, string | undefined]> = [
    ['publicUrl', options.publicUrl],
    ['hostUrls.token', options.hostUrls?.token],
    ['hostUrls.keys', options.hostUrls?.keys],
  ]
  for (const [name, value] of origins) {
    if (value === undefined) continue
    const u = URL.canParse(value) ? new URL(value) : undefined
    if (u?.origin !== value.replace(/\/$/, '')) {
      throw new TypeError(
        `${name}: expected an origin such as http://localhost:9000 (no path), got "${value}"`,
      )
    }
  }
  if (options.hostUrls !== undefined && options.shape !== 'google')
    throw new TypeError(
      `hostUrls: only the google shape has other hosts (token and keys listeners), not shape "${options.shape ?? 'okta'}"`,
    )
}

/** One oidc-provider per configured authorization server, under `/oauth2/<id>`. */
async function createAuthServers(
  options: MockIdpOptions,
  orgUrl: string,
  build: (s: ProvidedServer) => AuthServer['provider'],
  inputs: ShapeInputs,
): Promise<Map<string, AuthServer>> {
  const servers = new Map<string, AuthServer>()
  const shape = options.shape ?? 'okta'
  if (shape !== 'okta') {
    // One authorization server, mounted internally at /oauth2/<shape>; public paths in shapes.ts.
    const layout = shapeLayout(shape, inputs)
    const base = {
      id: shape,
      audience: inputs.audience,
      scopes: [...SCOPES, ...layout.scopes],
      issuer: layout.issuer,
      path: `/oauth2/${shape}`,
      keys: await KeyRing.create(),
      layout,
    }
    servers.set(shape, { ...base, provider: build(base) })
    return servers
  }
  for (const o of options.authServers ?? [{ id: 'default', audience: 'api://default' }]) {
    const path = `/oauth2/${o.id}`
    const base = {
      id: o.id,
      audience: o.audience,
      scopes: o.scopes ?? SCOPES,
      issuer: `${orgUrl}${path}`,
      path,
      keys: await KeyRing.create(),
      opaqueAccessTokens: o.opaqueAccessTokens,
      accessTokenTtl: o.accessTokenTtlSeconds,
    }
    servers.set(o.id, { ...base, provider: build(base) })
  }
  return servers
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
  checkOptions(options, testMode)
  const apiToken = options.apiToken ?? 'test-api-token'
  const users = new Map((options.users ?? DEFAULT_USERS).map((u) => [u.login, u]))
  const store = new Store()
  const serviceClient = {
    clientId: 'gatehouse-service',
    clientSecret: randomBytes(24).toString('base64url'),
  }
  const loopbackClients = new Set([
    PUBLIC_CLIENT_ID,
    ...(options.clients ?? []).map((c) => c.clientId),
  ])
  const faults = new FaultInjector()
  const requests: RecordedRequest[] = []
  const registrations: RecordedRegistration[] = []

  const certs = options.https ? await createTestCertificates(host) : undefined
  const { server, port, attach } = await listenDeferred(host, options.port ?? 0, certs)
  const scheme = certs ? 'https' : 'http'
  const orgUrl = (options.publicUrl ?? `${scheme}://${host}:${port}`).replace(/\/$/, '')
  // The google shape's token endpoint and keys live on hosts of their own: two more listeners.
  const extra =
    options.shape === 'google'
      ? await Promise.all([listenDeferred(host, 0, certs), listenDeferred(host, 0, certs)])
      : []
  const hostUrl = (i: 0 | 1, stated: string | undefined) => {
    const e = extra[i]
    return e ? (stated ?? `${scheme}://${host}:${e.port}`).replace(/\/$/, '') : orgUrl
  }
  const shapeInputs: ShapeInputs = {
    orgUrl,
    tokenOrigin: hostUrl(0, options.hostUrls?.token),
    keysOrigin: hostUrl(1, options.hostUrls?.keys),
    altOrigin: `${scheme}://localhost:${port}`,
    audience: options.audience ?? 'api://default',
    entraTokenVersion: options.entraTokenVersion ?? 2,
  }

  const providerCtx: ProviderContext = {
    orgUrl,
    store,
    cookieKeys: [randomBytes(32).toString('base64url')],
    users,
    accessTokenTtl: options.accessTokenTtlSeconds ?? 3600,
    trustedOrigins: new Set(options.trustedOrigins ?? []),
    loopbackClients,
    publicClientId: PUBLIC_CLIENT_ID,
    extraClients: options.clients ?? [],
    serviceClient,
    resourceIndicators: options.resourceIndicators ?? false,
    opaqueAccessTokens: options.opaqueAccessTokens,
    accessTokenTtlByGrant: options.accessTokenTtlByGrant ?? {},
    shapeInputs,
    ...(options.clientIdMetadataDocuments
      ? {
          clientIdMetadataDocuments: new Map(
            Object.entries(options.clientIdMetadataDocuments.documents ?? {}),
          ),
        }
      : {}),
  }
  const buildProvider = (s: ProvidedServer) => createProvider(providerCtx, s)
  const servers = await createAuthServers(options, orgUrl, buildProvider, shapeInputs)
  const defaultServer = servers.values().next().value as AuthServer

  const control: ControlContext = {
    servers,
    users,
    faults: faults.faults,
    hanging: faults.hanging,
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
  const registration: RegistrationContext = {
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
  const interaction: InteractionContext = { users, testMode }

  const routerCtx: RouterContext = {
    orgUrl,
    internalUrl: `${scheme}://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    testMode,
    servers,
    users,
    requests,
    faults,
    control,
    registration,
    interaction,
    rfc8414PathForm: options.rfc8414PathForm ?? false,
    autoSignIn:
      options.autoSignIn === undefined
        ? undefined
        : {
            user: options.autoSignIn,
            hopSecret: randomBytes(16).toString('base64url'),
            ...(certs ? { caCertPem: certs.caCertPem } : {}),
          },
    shapeInputs,
  }
  attach(createRouter(routerCtx))
  const [tokenHost, keysHost] = extra
  tokenHost?.attach(createRouter(routerCtx, 'token'))
  keysHost?.attach(createRouter(routerCtx, 'keys'))
  const layout = defaultServer.layout
  const keysRoute = layout?.routes.find((x) => x.internal === '/v1/keys')

  return {
    orgUrl,
    issuer: defaultServer.issuer,
    shape: options.shape ?? 'okta',
    ...(layout?.entra
      ? {
          entraV1: {
            issuer: layout.entra.v1Issuer,
            discoveryUrl: `${orgUrl}${layout.entra.v1DiscoveryPath}`,
          },
        }
      : {}),
    ...(tokenHost && keysHost
      ? {
          hosts: {
            token: { port: tokenHost.port, url: shapeInputs.tokenOrigin },
            keys: { port: keysHost.port, url: shapeInputs.keysOrigin },
          },
        }
      : {}),
    issuerFor: (id) => {
      const s = servers.get(id)
      if (!s) throw new Error(`no authorization server "${id}"`)
      return s.issuer
    },
    audience: defaultServer.audience,
    jwksUri:
      layout && keysRoute ? routeUrl(keysRoute, shapeInputs) : `${defaultServer.issuer}/v1/keys`,
    discoveryUrl: layout
      ? `${orgUrl}${layout.discoveryPath}`
      : `${defaultServer.issuer}/.well-known/openid-configuration`,
    registrationUrl: `${orgUrl}/oauth2/v1/clients`,
    controlUrl: `${orgUrl}/__control`,
    apiToken,
    publicClientId: PUBLIC_CLIENT_ID,
    serviceClient,
    ...(certs ? { caCertPath: certs.caCertPath, caCertPem: certs.caCertPem } : {}),
    port,
    async stop() {
      faults.release()
      for (const s of [server, ...extra.map((e) => e.server)]) {
        s.closeAllConnections()
        await new Promise<void>((r) => s.close(() => r()))
      }
    },
  }
}

/** Alias of {@link startMockIdp} (the issue's `start()`). */
export const start = startMockIdp
