/** The options and the running instance of mock-idp (see index.ts). */
import type { ExtraClient } from './provider.js'
import type { IdpShapeName } from './shapes.js'

/** A user of the directory. */
export interface MockUser {
  login: string
  name?: string
  groups: string[]
  /** E-mail address (the google shape's `email` and `hd`); default `<login>@example.com`. */
  email?: string
}

/** An authorization server (`/oauth2/<id>`). */
export interface AuthServerOptions {
  id: string
  audience: string
  scopes?: string[]
  /** This server's opaque access tokens (see `MockIdpOptions.opaqueAccessTokens`). */
  opaqueAccessTokens?: 'introspection' | 'userinfo'
  /** This server's access-token lifetime in seconds; default `accessTokenTtlSeconds`. */
  accessTokenTtlSeconds?: number
}

/** Options of {@link startMockIdp}. */
export interface MockIdpOptions {
  /** Port; default 0 (any free port). The bin defaults to 9000. */
  port?: number
  /** Bind address; default 127.0.0.1. */
  host?: string
  /**
   * The org URL as clients see it, an origin such as `http://localhost:9000` (e.g. in docker
   * compose); default the listening URL. The issuer and every endpoint URL are built from it,
   * never from a request's Host header.
   */
  publicUrl?: string
  /** Serve HTTPS with a generated test CA (returned as `caCertPath` / `caCertPem`). */
  https?: boolean
  /** Enables `/__control` and the headless login. Default true in-process. */
  testMode?: boolean
  /** The org API token DCR needs (`Authorization: SSWS <token>`). Default `test-api-token`. */
  apiToken?: string
  /** Authorization servers; default `[{ id: 'default', audience: 'api://default' }]`. */
  authServers?: AuthServerOptions[]
  /** The directory; default alice (groups AI-Users, Everyone) and bob (Everyone). */
  users?: MockUser[]
  /**
   * Extra pre-registered authorization-code clients (PKCE; any loopback redirect URI besides
   * their `redirectUris`, which may name non-loopback URIs); confidential with a `clientSecret`.
   */
  clients?: ExtraClient[]
  /** Lifetime of access and ID tokens in seconds; default 3600. */
  accessTokenTtlSeconds?: number
  /**
   * Access-token lifetime per grant type, overriding `accessTokenTtlSeconds`: e.g.
   * `{ authorization_code: 1 }` issues short-lived tokens from the code exchange and normal ones
   * from a refresh. Default none.
   */
  accessTokenTtlByGrant?: Partial<Record<'authorization_code' | 'refresh_token', number>>
  /**
   * Test mode: every authorization request signs this known user in and approves it without the
   * interaction pages — the authorize endpoint answers with the redirect back to the client at
   * once (a `login_hint` naming another known user wins). For scripted clients that read the
   * `Location` of their authorize request. Default none (the sign-in page or `login_hint`).
   */
  autoSignIn?: string
  /**
   * Org-level Dynamic Client Registration: `api-token` (default; `Authorization: SSWS <token>`
   * required, as the bridged IdP) or `open` (RFC 7591 open registration, no token).
   */
  registration?: 'api-token' | 'open'
  /**
   * Serve RFC 8414 path-form metadata, `<org>/.well-known/oauth-authorization-server/oauth2/<id>`
   * (RFC 8414 §3.1). Default false: the bridged IdP's gap (404).
   */
  rfc8414PathForm?: boolean
  /**
   * RFC 8707 resource indicators: a `resource` parameter becomes the access token's `aud`
   * (the server's audience when none is sent). Default false: the bridged IdP's gap.
   */
  resourceIndicators?: boolean
  /**
   * Client ID Metadata Documents (MCP 2025-11-25; oidc-provider's draft-02 support): discovery
   * says `client_id_metadata_document_supported: true` and an `https:` URL is accepted as a
   * `client_id`, its document fetched — or taken from `documents` (by URL) without fetching.
   * Default off.
   */
  clientIdMetadataDocuments?: { documents?: Record<string, Record<string, unknown>> }
  /**
   * Opaque access tokens instead of JWTs, validated by asking the IdP:
   * - `introspection`: tokens for the server's audience in oidc-provider's opaque format, which
   *   its RFC 7662 endpoint (`<issuer>/v1/introspect`, client-authenticated, e.g. with the service
   *   client) answers with `aud`, `iss`, `exp`, `scope`, `groups` and the rest of the claims;
   * - `userinfo`: Google-shaped tokens, for the UserInfo endpoint only (no audience; `resource`
   *   is ignored): `<issuer>/v1/userinfo` answers 200 with the user's claims (`groups` with the
   *   `profile` scope) while the token is valid.
   * Default none: JWT access tokens (the bridged IdP).
   */
  opaqueAccessTokens?: 'introspection' | 'userinfo'
  /**
   * Web origins allowed to call the authorization servers' token, userinfo, revocation and
   * introspection endpoints from a browser, like the provider's "Trusted Origins" of type CORS.
   * Exact origins such as `http://localhost:6274`. Default none: no CORS there, as on a fresh
   * org. Org-level client registration never gets CORS, whatever this says.
   */
  trustedOrigins?: string[]
  /**
   * Another IdP's shape (shapes.ts): `auth0`, `entra`, `keycloak`, `google` or `generic` — its
   * issuer form, endpoint and key paths (google's token endpoint and keys on listeners of their
   * own), claims layout and authorize rules, one authorization server, no Dynamic Client
   * Registration. Default `okta`: the bridged IdP.
   */
  shape?: IdpShapeName
  /**
   * The public origins of the google shape's other hosts — its token and keys listeners — as
   * {@link publicUrl} is the org's (e.g. recording proxies in front of them): the discovery
   * document names its token, revocation, keys and userinfo URLs on these. Default their
   * listening URLs. Only with `shape: 'google'`.
   */
  hostUrls?: { token?: string; keys?: string }
  /** The entra shape's access-token version: 2 (default) or 1 (issuer on the other host). */
  entraTokenVersion?: 1 | 2
  /** The audience (API identifier) of a shape's authorization server; default `api://default`. */
  audience?: string
}

/** One of a shape's other hosts: where it listens and the origin clients address. */
export interface IdpHost {
  port: number
  url: string
}

/** A running mock-idp. */
export interface MockIdp {
  orgUrl: string
  /** The issuer (a shape's: `<org>/` for auth0, `<org>/<tid>/v2.0` for entra, …). */
  issuer: string
  /** The shape (`okta` by default). */
  shape: IdpShapeName
  /** The entra shape's v1 issuer and v1 discovery URL. */
  entraV1?: { issuer: string; discoveryUrl: string }
  /**
   * The google shape's other hosts: each listener's port and its public origin
   * ({@link MockIdpOptions.hostUrls}, else its listening URL).
   */
  hosts?: { token: IdpHost; keys: IdpHost }
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
export type FaultEndpoint =
  | 'jwks'
  | 'discovery'
  | 'registration'
  | 'token'
  | 'introspection'
  | 'userinfo'
/** How an endpoint misbehaves. */
export interface Fault {
  mode: 'error' | 'hang' | 'slow'
  status?: number
  delayMs?: number
}
