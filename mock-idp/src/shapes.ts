/**
 * IdP shapes other than the bridged (Okta-like) one: where the issuer, discovery, endpoints and
 * keys live, what the access token's claims look like, and what the authorize endpoint refuses.
 * Each shape is one authorization server whose oidc-provider is mounted internally at
 * `/oauth2/<shape>`; the router maps the shape's public paths onto it and the discovery document
 * names the public URLs. None of these shapes offers Dynamic Client Registration.
 *
 * - `auth0`: issuer `<org>/` (trailing slash), `/authorize`, `/oauth/token`, keys at
 *   `/.well-known/jwks.json`, groups in the namespaced claim `https://example.com/groups`, the
 *   `audience` parameter must name the API.
 * - `entra`: v2 issuer `<org>/<tid>/v2.0`, v1 issuer `http://localhost:<port>/<tid>/` (another host,
 *   as `https://sts.windows.net/<tid>/`), `/<tid>/oauth2/v2.0/{authorize,token}`, keys at
 *   `/<tid>/discovery/v2.0/keys`, v1 discovery at `/<tid>/.well-known/openid-configuration`; app
 *   roles in `roles`; the token is for the API only when a scope `api://<app>/<scope>` was asked
 *   for (else Microsoft Graph's audience), `aud` the app id (v2) or the App ID URI (v1).
 * - `keycloak`: issuer `<org>/realms/gatehouse`, `/protocol/openid-connect/{auth,token,certs}`,
 *   groups as full paths (`/AI-Users`), `realm_access.roles`, refresh tokens always.
 * - `google`: issuer `<org>` (no path), `/o/oauth2/v2/auth`; token endpoint and keys on two other
 *   listeners; `offline_access` refused (`invalid_scope`), refresh tokens with
 *   `access_type=offline`; an `audience` parameter refused; `email`, `email_verified`, `hd`.
 * - `generic`: issuer `<org>/idp`, `/idp/{authorize,token,jwks}`, `groups`.
 */

/** A shape name (`okta` is the default layout of index.ts). */
export type IdpShapeName = 'okta' | 'auth0' | 'entra' | 'keycloak' | 'google' | 'generic'

/** The tenant id of the entra shape. */
export const ENTRA_TENANT = '3fa85f64-5717-4562-b3fc-2c963f66afa6'
/** Microsoft Graph's app id: the audience of a token asked for without an API scope. */
export const GRAPH_AUDIENCE = '00000003-0000-0000-c000-000000000000'

/** Where a public endpoint lives: its listener and path. */
export interface PublicRoute {
  /** `main`, or one of the extra listeners (google). */
  host: 'main' | 'token' | 'keys'
  path: string
  /** The path below the internal mount (`/v1/authorize`, `/v1/keys`, …). */
  internal: string
}

/** One shape's layout, built for a running mock-idp. */
export interface ShapeLayout {
  name: Exclude<IdpShapeName, 'okta'>
  issuer: string
  discoveryPath: string
  routes: PublicRoute[]
  /** Extra scopes the provider knows (entra's API scope). */
  scopes: string[]
  /** What the authorize endpoint does with `audience`. */
  audienceParameter: 'check' | 'ignore' | 'refuse'
  /** `offline_access` is refused; `access_type=offline` asks for a refresh token (google). */
  accessTypeOffline: boolean
  /** Every code exchange issues a refresh token (keycloak). */
  alwaysRefresh: boolean
  /** Entra's token version and the v1 issuer. */
  entra?: { version: 1 | 2; v1Issuer: string; v1DiscoveryPath: string; appId: string }
}

/** What {@link shapeLayout} needs. */
export interface ShapeInputs {
  orgUrl: string
  /** Origins of the extra listeners (google's token and key hosts). */
  tokenOrigin: string
  keysOrigin: string
  /** Another host name for the same listener (entra's v1 issuer host). */
  altOrigin: string
  audience: string
  entraTokenVersion: 1 | 2
}

const r = (path: string, internal: string, host: PublicRoute['host'] = 'main'): PublicRoute => ({
  host,
  path,
  internal,
})

/** The layout of a shape. */
export function shapeLayout(name: Exclude<IdpShapeName, 'okta'>, i: ShapeInputs): ShapeLayout {
  const base = {
    name,
    scopes: [] as string[],
    audienceParameter: 'ignore' as const,
    accessTypeOffline: false,
    alwaysRefresh: false,
  }
  switch (name) {
    case 'auth0':
      return {
        ...base,
        issuer: `${i.orgUrl}/`,
        discoveryPath: '/.well-known/openid-configuration',
        audienceParameter: 'check',
        routes: [
          r('/authorize', '/v1/authorize'),
          r('/oauth/token', '/v1/token'),
          r('/.well-known/jwks.json', '/v1/keys'),
          r('/userinfo', '/v1/userinfo'),
          r('/oauth/revoke', '/v1/revoke'),
        ],
      }
    case 'entra': {
      const t = `/${ENTRA_TENANT}`
      return {
        ...base,
        issuer: `${i.orgUrl}${t}/v2.0`,
        discoveryPath: `${t}/v2.0/.well-known/openid-configuration`,
        scopes: [`${i.audience}/mcp.access`],
        routes: [
          r(`${t}/oauth2/v2.0/authorize`, '/v1/authorize'),
          r(`${t}/oauth2/v2.0/token`, '/v1/token'),
          r(`${t}/discovery/v2.0/keys`, '/v1/keys'),
          r(`${t}/discovery/keys`, '/v1/keys'),
          r(`${t}/openid/userinfo`, '/v1/userinfo'),
        ],
        entra: {
          version: i.entraTokenVersion,
          v1Issuer: `${i.altOrigin}${t}/`,
          v1DiscoveryPath: `${t}/.well-known/openid-configuration`,
          appId: i.audience.replace(/^api:\/\//, ''),
        },
      }
    }
    case 'keycloak': {
      const p = '/realms/gatehouse'
      return {
        ...base,
        issuer: `${i.orgUrl}${p}`,
        discoveryPath: `${p}/.well-known/openid-configuration`,
        alwaysRefresh: true,
        routes: [
          r(`${p}/protocol/openid-connect/auth`, '/v1/authorize'),
          r(`${p}/protocol/openid-connect/token`, '/v1/token'),
          r(`${p}/protocol/openid-connect/certs`, '/v1/keys'),
          r(`${p}/protocol/openid-connect/userinfo`, '/v1/userinfo'),
          r(`${p}/protocol/openid-connect/revoke`, '/v1/revoke'),
        ],
      }
    }
    case 'google':
      return {
        ...base,
        issuer: i.orgUrl,
        discoveryPath: '/.well-known/openid-configuration',
        audienceParameter: 'refuse',
        accessTypeOffline: true,
        routes: [
          r('/o/oauth2/v2/auth', '/v1/authorize'),
          r('/token', '/v1/token', 'token'),
          r('/revoke', '/v1/revoke', 'token'),
          r('/oauth2/v3/certs', '/v1/keys', 'keys'),
          r('/v1/userinfo', '/v1/userinfo', 'keys'),
        ],
      }
    case 'generic':
      return {
        ...base,
        issuer: `${i.orgUrl}/idp`,
        discoveryPath: '/idp/.well-known/openid-configuration',
        routes: [
          r('/idp/authorize', '/v1/authorize'),
          r('/idp/token', '/v1/token'),
          r('/idp/jwks', '/v1/keys'),
          r('/idp/userinfo', '/v1/userinfo'),
          r('/idp/revoke', '/v1/revoke'),
        ],
      }
  }
}

/** The public URL of a route. */
export function routeUrl(route: PublicRoute, i: ShapeInputs): string {
  const origin =
    route.host === 'token' ? i.tokenOrigin : route.host === 'keys' ? i.keysOrigin : i.orgUrl
  return `${origin}${route.path}`
}

/** A user as the claims see it. */
interface ClaimsUser {
  login: string
  groups: string[]
  email?: string | undefined
}

/**
 * Reshapes the JWT access token's payload (oidc-provider's `formats.customizers.jwt`) into the
 * shape's claims layout. `payload` starts as the bridged IdP's (`groups`, `uid`, `cid`, `scp`).
 */
export function shapeClaims(
  layout: ShapeLayout,
  payload: Record<string, unknown>,
  user: ClaimsUser | undefined,
): void {
  const clientId = payload.client_id
  const scope = typeof payload.scope === 'string' ? payload.scope.split(' ') : []
  delete payload.uid
  delete payload.cid
  delete payload.scp
  const groups = user?.groups ?? []
  switch (layout.name) {
    case 'auth0':
      delete payload.groups
      if (user) payload['https://example.com/groups'] = groups
      payload.azp = clientId
      return
    case 'entra': {
      const e = layout.entra
      if (!e) return
      delete payload.groups
      delete payload.scope
      delete payload.client_id
      const api = scope.filter((s) => s.startsWith(`api://${e.appId}/`))
      if (api.length > 0) {
        payload.aud = e.version === 2 ? e.appId : `api://${e.appId}`
        payload.scp = api.map((s) => s.slice(`api://${e.appId}/`.length)).join(' ')
      } else {
        payload.aud = GRAPH_AUDIENCE
        payload.scp = scope.join(' ')
      }
      if (e.version === 1) {
        payload.iss = e.v1Issuer
        payload.appid = clientId
      } else {
        payload.azp = clientId
      }
      payload.ver = e.version === 2 ? '2.0' : '1.0'
      payload.tid = ENTRA_TENANT
      if (user) payload.roles = groups
      return
    }
    case 'keycloak':
      payload.groups = groups.map((g) => `/${g}`)
      payload.realm_access = { roles: groups }
      payload.azp = clientId
      payload.typ = 'Bearer'
      return
    case 'google': {
      delete payload.groups
      payload.azp = clientId
      if (user) {
        const email = user.email ?? `${user.login}@example.com`
        payload.email = email
        payload.email_verified = true
        const domain = email.split('@')[1]
        if (domain && domain !== 'gmail.com') payload.hd = domain
      }
      return
    }
    case 'generic':
      return
  }
}

/**
 * Rewrites the provider's discovery document to the shape's public URLs; `v1` gives entra's v1
 * document (its issuer on the other host).
 */
export function shapeDiscovery(
  layout: ShapeLayout,
  body: Record<string, unknown>,
  internalBase: string,
  i: ShapeInputs,
  v1: boolean,
): void {
  for (const [k, v] of Object.entries(body)) {
    if (typeof v !== 'string' || !v.startsWith(`${internalBase}/`)) continue
    const rest = v.slice(internalBase.length)
    const route = layout.routes.find((x) => x.internal === rest)
    if (route) body[k] = routeUrl(route, i)
    else delete body[k]
  }
  delete body.registration_endpoint
  if (layout.accessTypeOffline && Array.isArray(body.scopes_supported)) {
    body.scopes_supported = body.scopes_supported.filter((s) => s !== 'offline_access')
  }
  if (v1 && layout.entra) {
    body.issuer = layout.entra.v1Issuer
    body.jwks_uri = `${i.orgUrl}/${ENTRA_TENANT}/discovery/keys`
  }
}
