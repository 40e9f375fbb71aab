/**
 * Named upstream identity-provider shapes (`providers[].preset`): the defaults each IdP needs so
 * that a configuration names the IdP instead of restating its quirks. Every value here is a
 * default that the configuration can override (`mcp.upstream.*`, `broker.upstreamClient.scopes`).
 *
 * `okta` is the seed's bridged IdP exactly (seed: BridgedIdp; GatewayPolicy table): the issuer
 * `https://<org_domain>/oauth2/<auth_server_id>` without a trailing slash, discovery fetched
 * through the JWKS backend, keys at `jwks.remote.jwksPath`, the first audience sent as
 * `audience`. A provider without `preset` is an `okta` one, so the seed's configurations keep
 * their meaning. The walkthroughs per IdP are docs/idp/<preset>.md.
 */

/** The preset names, in the order the docs list them. */
export const IDP_PRESETS = ['okta', 'auth0', 'entra', 'keycloak', 'google', 'generic'] as const
/** A preset name. */
export type IdpPresetName = (typeof IDP_PRESETS)[number]

/** The defaults one preset sets. */
export interface IdpPreset {
  /**
   * Name of the authorization-request parameter that carries `audiences[0]` (the IdP has no
   * RFC 8707), or `false` when the IdP takes none (Google refuses an unknown parameter).
   */
  readonly audienceParameter: string | false
  /** Scopes the gateway asks the IdP for in broker mode (before the `scopes_supported` check). */
  readonly scopes: readonly string[]
  /** Extra authorization-request parameters. */
  readonly authorizeParameters: Readonly<Record<string, string>>
  /** Whether the issuer may end in `/` (OIDC Discovery §4.3 compares it as a string). */
  readonly trailingSlashIssuer: boolean
  /**
   * Where the discovery document comes from: `backend` (the seed: the issuer's path on the JWKS
   * backend) or `url` (`providers[].discoveryUrl`, default `<issuer>/.well-known/openid-configuration`).
   */
  readonly discovery: 'backend' | 'url'
  /** The CEL rule the walkthrough documents for the IdP's groups or roles. */
  readonly groupsRule: string
  /** The access-token format the IdP issues for an API audience. */
  readonly tokenFormat: 'jwt' | 'opaque'
}

const OIDC_SCOPES = ['openid', 'profile', 'email'] as const

/** The presets. */
export const IDP_PRESET_DEFAULTS: Readonly<Record<IdpPresetName, IdpPreset>> = {
  okta: {
    audienceParameter: 'audience',
    scopes: [...OIDC_SCOPES, 'offline_access'],
    authorizeParameters: {},
    trailingSlashIssuer: false,
    discovery: 'backend',
    groupsRule: '"AI-Users" in jwt.groups',
    tokenFormat: 'jwt',
  },
  auth0: {
    // Without `audience` Auth0 issues an opaque token for its userinfo endpoint.
    audienceParameter: 'audience',
    scopes: [...OIDC_SCOPES, 'offline_access'],
    authorizeParameters: {},
    trailingSlashIssuer: true,
    discovery: 'url',
    groupsRule: '"AI-Users" in jwt["https://example.com/groups"]',
    tokenFormat: 'jwt',
  },
  entra: {
    // Entra takes the API as a scope prefix (api://<app-id>/<scope>), see mcp.upstream.scopeMap.
    audienceParameter: false,
    scopes: [...OIDC_SCOPES, 'offline_access'],
    authorizeParameters: {},
    trailingSlashIssuer: true,
    discovery: 'url',
    groupsRule: '"AI-Users" in jwt.roles',
    tokenFormat: 'jwt',
  },
  keycloak: {
    audienceParameter: false,
    scopes: [...OIDC_SCOPES, 'offline_access'],
    authorizeParameters: {},
    trailingSlashIssuer: true,
    discovery: 'url',
    groupsRule: '"/AI-Users" in jwt.groups',
    tokenFormat: 'jwt',
  },
  google: {
    // Google refuses offline_access (invalid_scope): refresh tokens come with access_type=offline.
    audienceParameter: false,
    scopes: [...OIDC_SCOPES],
    authorizeParameters: { access_type: 'offline', prompt: 'consent' },
    trailingSlashIssuer: true,
    discovery: 'url',
    groupsRule: 'jwt.email_verified == true && jwt.hd == "example.com"',
    tokenFormat: 'opaque',
  },
  generic: {
    audienceParameter: false,
    scopes: [...OIDC_SCOPES, 'offline_access'],
    authorizeParameters: {},
    trailingSlashIssuer: true,
    discovery: 'url',
    groupsRule: '"AI-Users" in jwt.groups',
    tokenFormat: 'jwt',
  },
}

/** The preset of a provider: its `preset`, else `okta` (the seed's bridged IdP). */
export function presetOf(provider: { preset?: IdpPresetName | undefined }): IdpPreset {
  return IDP_PRESET_DEFAULTS[provider.preset ?? 'okta']
}

/**
 * The URL of a provider's OpenID Connect discovery document when it has one of its own:
 * `discoveryUrl`, else `<issuer without trailing slash>/.well-known/openid-configuration`
 * (OIDC Discovery §4). `undefined` for the okta preset with a JWKS backend, whose document is
 * fetched through that backend (the seed).
 */
export function discoveryUrlOf(provider: {
  issuer: string
  preset?: IdpPresetName | undefined
  discoveryUrl?: string | undefined
  jwks?: { remote?: unknown } | undefined
  endpoints?: ProviderEndpoints | undefined
}): string | undefined {
  if (provider.endpoints) return undefined
  if (provider.discoveryUrl) return provider.discoveryUrl
  if (presetOf(provider).discovery === 'backend' && provider.jwks?.remote) return undefined
  return `${provider.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`
}

/** `providers[].endpoints`: the IdP's endpoints stated instead of discovered. */
export interface ProviderEndpoints {
  authorization?: string | undefined
  token?: string | undefined
  jwks?: string | undefined
  revocation?: string | undefined
  introspection?: string | undefined
  userinfo?: string | undefined
  scopesSupported?: string[] | undefined
}

/**
 * The discovery document a provider's stated `endpoints` stand for (OIDC Discovery §3 member
 * names); only `issuer` when it states none.
 */
export function statedDiscoveryOf(provider: {
  issuer: string
  endpoints?: ProviderEndpoints | undefined
}): Record<string, unknown> & { issuer: string } {
  const e = provider.endpoints ?? {}
  const members: Array<[string, unknown]> = [
    ['authorization_endpoint', e.authorization],
    ['token_endpoint', e.token],
    ['jwks_uri', e.jwks],
    ['revocation_endpoint', e.revocation],
    ['introspection_endpoint', e.introspection],
    ['userinfo_endpoint', e.userinfo],
    ['scopes_supported', e.scopesSupported],
  ]
  return {
    issuer: provider.issuer,
    ...Object.fromEntries(members.filter(([, v]) => v !== undefined)),
  }
}

/** The upstream IdP's authorization-request settings, preset defaults and overrides merged. */
export interface UpstreamSettings {
  readonly preset: IdpPresetName
  /** Parameter carrying `audiences[0]`, or `false`. */
  readonly audienceParameter: string | false
  readonly authorizeParameters: Readonly<Record<string, string>>
  /** Gateway scope → IdP scope (broker mode). */
  readonly scopeMap: Readonly<Record<string, string>>
  /** Scopes always asked for (broker mode). */
  readonly scopes: readonly string[]
  /**
   * Token and revocation endpoints are fetched at their own URLs (any host); `false` for the okta
   * preset with a JWKS backend, whose endpoints are reached through that backend (the seed).
   */
  readonly ownEndpoints: boolean
}

/**
 * Merges a provider's preset with the policy's `mcp.upstream` and
 * `broker.upstreamClient.scopes`: a configured value wins over the preset's.
 */
export function upstreamSettings(
  provider: {
    preset?: IdpPresetName | undefined
    issuer: string
    discoveryUrl?: string | undefined
    jwks?: { remote?: unknown } | undefined
    endpoints?: ProviderEndpoints | undefined
  },
  mcp: {
    upstream?:
      | {
          audienceParameter?: string | false | undefined
          authorizeParameters?: Record<string, string> | undefined
          scopeMap?: Record<string, string> | undefined
        }
      | undefined
    broker?: { upstreamClient: { scopes?: string[] | undefined } } | undefined
  },
): UpstreamSettings {
  const name = provider.preset ?? 'okta'
  const preset = IDP_PRESET_DEFAULTS[name]
  const u = mcp.upstream ?? {}
  return {
    preset: name,
    audienceParameter: u.audienceParameter ?? preset.audienceParameter,
    authorizeParameters: u.authorizeParameters ?? preset.authorizeParameters,
    scopeMap: u.scopeMap ?? {},
    scopes: mcp.broker?.upstreamClient.scopes ?? preset.scopes,
    ownEndpoints:
      (provider.endpoints !== undefined || discoveryUrlOf(provider) !== undefined) &&
      name !== 'okta',
  }
}
