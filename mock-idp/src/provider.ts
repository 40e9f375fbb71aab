/**
 * One authorization server's oidc-provider instance, configured like the bridged IdP: routes
 * under `<issuer>/v1/…`, PKCE required, JWT access tokens whose `aud` is always the server's
 * audience (no RFC 8707, unless `resourceIndicators` is on), `groups`/`uid`/`cid`/`scp` claims,
 * CORS only for trusted origins, and any loopback redirect URI for the public clients
 * (RFC 8252 §7.3). Optionally, Client ID Metadata Documents (oidc-provider's experimental
 * `clientIdMetadataDocument`, draft-ietf-oauth-client-id-metadata-document-02).
 */
import Provider, { type ClientMetadata } from 'oidc-provider'
import { escapeHtml, isLoopbackHttp } from './http.js'
import type { KeyRing } from './keys.js'
import { type ShapeInputs, type ShapeLayout, shapeClaims, shapeDiscovery } from './shapes.js'
import type { Store } from './store.js'

/** The scopes every authorization server knows (a server's own list defaults to these). */
export const SCOPES = ['openid', 'profile', 'email', 'offline_access']

/** An authorization server before its provider exists. */
export interface ProvidedServer {
  id: string
  audience: string
  scopes: string[]
  issuer: string
  /** The issuer's path, `/oauth2/<id>`. */
  path: string
  keys: KeyRing
  /** This server's opaque-token shape, over the IdP-wide `ProviderContext.opaqueAccessTokens`. */
  opaqueAccessTokens?: 'introspection' | 'userinfo' | undefined
  /** This server's access-token lifetime in seconds, over the IdP-wide one. */
  accessTokenTtl?: number | undefined
  /** Another IdP's shape (shapes.ts); absent: the bridged IdP's layout. */
  layout?: ShapeLayout | undefined
}

/** What every provider of one mock-idp shares. */
export interface ProviderContext {
  orgUrl: string
  /** Storage shared by the providers (a rotation rebuilds a provider over the same store). */
  store: Store
  cookieKeys: string[]
  users: Map<string, { login: string; name?: string; groups: string[]; email?: string }>
  /** The URLs a shape's layout is built from (shapes only). */
  shapeInputs?: ShapeInputs | undefined
  /** Lifetime of access and ID tokens, in seconds. */
  accessTokenTtl: number
  trustedOrigins: ReadonlySet<string>
  /** Clients allowed any loopback redirect URI (registered clients join at run time). */
  loopbackClients: ReadonlySet<string>
  publicClientId: string
  extraClients: ReadonlyArray<ExtraClient>
  serviceClient: { clientId: string; clientSecret: string }
  /** RFC 8707: a `resource` parameter becomes the access token's `aud`. */
  resourceIndicators: boolean
  /** Opaque access tokens (see `MockIdpOptions.opaqueAccessTokens`); undefined: JWTs. */
  opaqueAccessTokens?: 'introspection' | 'userinfo' | undefined
  /** Access-token lifetime per grant type (`authorization_code`, `refresh_token`), in seconds. */
  accessTokenTtlByGrant: Readonly<Partial<Record<string, number>>>
  /**
   * Client ID Metadata Documents on: the documents known without fetching, by URL (every other
   * `https:` client id is fetched). Undefined when the feature is off.
   */
  clientIdMetadataDocuments?: ReadonlyMap<string, Record<string, unknown>>
}

/** A pre-registered authorization-code client besides the demo client. */
export interface ExtraClient {
  clientId: string
  /** Registered redirect URIs; any loopback redirect URI is accepted as well. */
  redirectUris?: string[]
  /** A confidential client (`client_secret_basic` or `client_secret_post`); public without. */
  clientSecret?: string
  /** How a confidential client authenticates; default `client_secret_basic`. */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post'
}

/** The grant type of a token-endpoint request, if the context is one. */
function grantType(ctx: unknown): string | undefined {
  const g = (ctx as { oidc?: { params?: { grant_type?: unknown } } } | undefined)?.oidc?.params
    ?.grant_type
  return typeof g === 'string' ? g : undefined
}

/** A JSON answer to the provider's outgoing fetch of a known client metadata document. */
function documentResponse(doc: Record<string, unknown>): Response {
  return new Response(JSON.stringify(doc), {
    status: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'max-age=300' },
  })
}

/** Builds the provider of one authorization server (again after each key rotation). */
export function createProvider(ctx: ProviderContext, s: ProvidedServer): Provider {
  const clients: ClientMetadata[] = [
    {
      client_id: ctx.publicClientId,
      application_type: 'native' as const,
      token_endpoint_auth_method: 'none' as const,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'] as const,
      redirect_uris: ['http://127.0.0.1/callback', 'http://localhost/callback'],
    },
    ...ctx.extraClients.map((c) => ({
      client_id: c.clientId,
      application_type: 'native' as const,
      ...(c.clientSecret
        ? {
            client_secret: c.clientSecret,
            token_endpoint_auth_method: c.tokenEndpointAuthMethod ?? 'client_secret_basic',
          }
        : { token_endpoint_auth_method: 'none' as const }),
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'] as const,
      redirect_uris: c.redirectUris ?? ['http://127.0.0.1/callback'],
    })),
    {
      client_id: ctx.serviceClient.clientId,
      client_secret: ctx.serviceClient.clientSecret,
      grant_types: ['client_credentials'],
      response_types: [] as const,
      redirect_uris: [],
    },
  ]
  const serverTtl = s.accessTokenTtl ?? ctx.accessTokenTtl
  const opaque = s.opaqueAccessTokens ?? ctx.opaqueAccessTokens
  const accessTokenTtl = (reqCtx: unknown): number =>
    ctx.accessTokenTtlByGrant[grantType(reqCtx) ?? ''] ?? serverTtl
  const provider = new Provider(s.issuer, {
    adapter: ctx.store.adapterClass(),
    clients,
    jwks: s.keys.privateJwks(),
    cookies: { keys: ctx.cookieKeys },
    scopes: [...new Set([...SCOPES, ...s.scopes])],
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
    // The other shapes offer no Dynamic Client Registration.
    discovery: s.layout ? {} : { registration_endpoint: `${ctx.orgUrl}/oauth2/v1/clients` },
    ...(s.layout
      ? {
          formats: {
            customizers: {
              jwt: async (
                _ctx: unknown,
                _token: unknown,
                jwt: { payload: Record<string, unknown> },
              ) => {
                const sub = jwt.payload.sub
                const user = typeof sub === 'string' ? ctx.users.get(sub) : undefined
                shapeClaims(s.layout as ShapeLayout, jwt.payload, user)
              },
            },
          },
        }
      : {}),
    ...(s.layout?.alwaysRefresh
      ? {
          issueRefreshToken: async (
            _ctx: unknown,
            client: { grantTypeAllowed(g: string): boolean },
          ) => client.grantTypeAllowed('refresh_token'),
        }
      : {}),
    // Known client metadata documents are answered from memory; any other URL is really fetched.
    fetch: (url, options) => {
      const doc = ctx.clientIdMetadataDocuments?.get(url instanceof Request ? url.url : String(url))
      return doc ? Promise.resolve(documentResponse(doc)) : globalThis.fetch(url, options)
    },
    // CORS only for the configured trusted origins (not oidc-provider's redirect-URI default).
    clientBasedCORS: (_ctx, origin) => ctx.trustedOrigins.has(origin),
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      // Used to issue JWT access tokens. Without RFC 8707 their audience is the server's,
      // whatever `resource` the client sends; with it, the resource the client named (RFC 8707
      // §2), and the server's audience when it named none.
      resourceIndicators: {
        // Userinfo-only tokens (Google-shaped) have no resource server: oidc-provider issues
        // opaque tokens for its UserInfo endpoint when the feature is off.
        enabled: opaque !== 'userinfo',
        // A resource indicator is an absolute URI (RFC 8707 §2); google's audience is a client id.
        defaultResource: async () =>
          URL.canParse(s.audience) ? s.audience : `urn:mock-idp:audience:${s.audience}`,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (reqCtx, indicator) => ({
          scope: s.scopes.join(' '),
          audience: ctx.resourceIndicators ? indicator : s.audience,
          accessTokenTTL: accessTokenTtl(reqCtx),
          accessTokenFormat: opaque === 'introspection' ? 'opaque' : 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
      clientIdMetadataDocument: {
        enabled: ctx.clientIdMetadataDocuments !== undefined,
        ack: 'draft-02',
      },
    },
    findAccount: async (_ctx, sub) => {
      const user = ctx.users.get(sub)
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
      const user = t.accountId ? ctx.users.get(t.accountId) : undefined
      return {
        cid: t.clientId,
        scp,
        ...(user ? { uid: `00u-${user.login}`, groups: user.groups } : {}),
      }
    },
    interactions: { url: (_ctx, interaction) => `${s.path}/interaction/${interaction.uid}` },
    ttl: {
      AccessToken: (reqCtx) => accessTokenTtl(reqCtx),
      AuthorizationCode: 120,
      IdToken: ctx.accessTokenTtl,
      RefreshToken: 24 * 3600,
      ClientCredentials: serverTtl,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
    },
    renderError: async (ctx, out) => {
      ctx.type = 'html'
      ctx.body = `<!doctype html><title>Error</title><h1>${escapeHtml(String(out.error))}</h1><p>${escapeHtml(String(out.error_description ?? ''))}</p>`
    },
  })
  // Host and protocol come from X-Forwarded-Host/-Proto, which the server always sets to the org
  // URL's (see index.ts), never from the request's Host header.
  provider.proxy = true
  const layout = s.layout
  const inputs = ctx.shapeInputs
  if (layout && inputs) {
    // The discovery document names the shape's public URLs (shapes.ts).
    provider.use(async (kctx, next) => {
      await next()
      if (kctx.path.endsWith('/.well-known/openid-configuration') && kctx.body) {
        const v1 = kctx.get('x-mock-entra-v1') === '1'
        shapeDiscovery(
          layout,
          kctx.body as Record<string, unknown>,
          `${ctx.orgUrl}${s.path}`,
          inputs,
          v1,
        )
      }
    })
  }
  // Loopback redirect URIs on any port and path for the public clients (RFC 8252 §7.3).
  const proto = provider.Client.prototype as unknown as {
    redirectUriAllowed(this: { clientId: string }, value: string): boolean
  }
  const original = proto.redirectUriAllowed
  proto.redirectUriAllowed = function (value: string) {
    if (ctx.loopbackClients.has(this.clientId) && isLoopbackHttp(value)) return true
    return original.call(this, value)
  }
  return provider
}
