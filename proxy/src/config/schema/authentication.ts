/**
 * `traffic.jwtAuthentication` (seed: GatewayPolicy): the accepted issuers and their keys; its `mcp`
 * block (MCP OAuth discovery, BridgedIdp, DNS rebinding protection) is in mcp-auth.ts.
 */
import { z } from 'zod'
import { endpointUrlProblem } from '../endpoint-url.js'
import { IDP_PRESET_DEFAULTS, IDP_PRESETS } from '../idp-presets.js'
import { duration } from './common.js'
import { BackendRefSchema } from './listeners.js'
import { McpAuthSchema } from './mcp-auth.js'
import { OpaqueTokensSchema } from './opaque-tokens.js'

/** `jwks.remote`: keys fetched through a backend. */
export const JwksRemoteSchema = z.strictObject({
  backendRef: BackendRefSchema.describe(
    'The JWKS backend (the org domain, port 443 in production).',
  ),
  jwksPath: z
    .string()
    .startsWith('/', { message: 'expected a path starting with "/"' })
    .describe('Path of the key set; for the bridged IdP it is /oauth2/<auth_server_id>/v1/keys.'),
  cacheDuration: duration('10s', '24h')
    .prefault('5m')
    .describe(
      'Refresh interval, 10s-24h; a Cache-Control max-age from the IdP is honoured within 1m-24h.',
    ),
})

/** `jwks`: remote, inline or file keys. */
export const JwksSourceSchema = z
  .strictObject({
    remote: JwksRemoteSchema.optional(),
    inline: z
      .union([z.string(), z.strictObject({ keys: z.array(z.record(z.string(), z.unknown())) })])
      .optional()
      .describe('A JWKS document, as an object or a JSON string.'),
    file: z.string().optional().describe('Path of a JWKS file.'),
  })
  .refine((v) => [v.remote, v.inline, v.file].filter((x) => x !== undefined).length === 1, {
    message: 'expected exactly one of jwks.remote, jwks.inline or jwks.file',
  })

/** An IdP endpoint URL: https, or http on a loopback host (config/endpoint-url.ts). */
const EndpointUrlSchema = z.string().superRefine((v, ctx) => {
  const problem = endpointUrlProblem(v)
  if (problem) ctx.addIssue({ code: 'custom', message: `the endpoint ${problem}` })
})

/**
 * `providers[].endpoints`: the IdP's endpoints stated in the configuration, for an IdP that
 * publishes no discovery document (OIDC Discovery is optional for an OAuth server). Held to the
 * rules a discovered document's URLs meet.
 */
export const ProviderEndpointsSchema = z
  .strictObject({
    authorization: EndpointUrlSchema.optional().describe(
      'The authorization endpoint (RFC 6749 §3.1), where the user signs in. Required with mcp (the gateway names it or sends the user to it).',
    ),
    token: EndpointUrlSchema.optional().describe(
      'The token endpoint (RFC 6749 §3.2). Required with mcp (codes are redeemed and tokens refreshed there).',
    ),
    jwks: EndpointUrlSchema.optional().describe(
      "The signing keys (a JWK Set, RFC 7517 §5). Required unless the provider's jwks is set.",
    ),
    revocation: EndpointUrlSchema.optional().describe(
      'The revocation endpoint (RFC 7009), called when a broker session ends.',
    ),
    introspection: EndpointUrlSchema.optional().describe(
      'The introspection endpoint (RFC 7662), named in the published metadata; opaqueTokens.introspection is what the gateway calls.',
    ),
    userinfo: EndpointUrlSchema.optional().describe(
      'The UserInfo endpoint (OIDC Core §5.3), named in the published metadata; opaqueTokens.userinfo is what the gateway calls.',
    ),
    scopesSupported: z
      .array(z.string().min(1))
      .optional()
      .describe(
        "The scopes the IdP supports (discovery's scopes_supported): offline_access is asked for only when listed (or when this is absent).",
      ),
  })
  .describe(
    "The IdP's endpoints, instead of its discovery document (discoveryUrl): for an IdP that publishes none. https, or http on a loopback host only; no credentials or fragment in a URL.",
  )

/** `jwtAuthentication.providers[]`: one accepted issuer. */
export const JwtProviderSchema = z
  .strictObject({
    issuer: z
      .url({
        message: 'expected the authorization server URL, e.g. https://<org_domain>/oauth2/default',
      })
      .describe(
        "Must equal the token's iss claim exactly, as the IdP's discovery document states it (a trailing slash included: OIDC Discovery §4.3 compares strings). The okta preset (the default) refuses a trailing slash (the seed's issuer form).",
      ),
    audiences: z
      .array(z.string().min(1))
      .min(1)
      .describe(
        "The token's aud must contain one of these. The first is sent as the audience parameter where the preset (or mcp.upstream.audienceParameter) sends one.",
      ),
    jwks: JwksSourceSchema.optional().describe(
      "The provider's keys. Absent (any preset but okta): the jwks_uri of its discovery document, fetched from that URL.",
    ),
    // The upstream IdP's shape (config/idp-presets.ts; docs/idp/<preset>.md).
    preset: z
      .enum(IDP_PRESETS)
      .optional()
      .describe(
        "The IdP's shape: okta (the default: the seed's bridged IdP), auth0, entra, keycloak, google or generic. It sets the issuer form, where discovery and keys come from, and the defaults of mcp.upstream and broker.upstreamClient.scopes (docs/idp/<preset>.md).",
      ),
    discoveryUrl: z
      .url()
      .optional()
      .describe(
        "URL of the IdP's OpenID Connect discovery document, fetched from there (any host, TLS for https). Default: <issuer without trailing slash>/.well-known/openid-configuration; for the okta preset with jwks.remote, the issuer's path on the JWKS backend (the seed).",
      ),
    endpoints: ProviderEndpointsSchema.optional(),
    clockSkew: duration('0s', '10m')
      .prefault('60s')
      .describe('Tolerance for exp and nbf, 0s-10m. 0s: no tolerance.'),
  })
  .superRefine((p, ctx) => {
    if (p.endpoints) {
      if ((p.preset ?? 'okta') === 'okta') {
        ctx.addIssue({
          code: 'custom',
          path: ['endpoints'],
          message:
            'not with the okta preset (the default), whose endpoints come from discovery through the JWKS backend (the seed): set preset (e.g. generic) to state the endpoints',
        })
      }
      if (p.discoveryUrl) {
        ctx.addIssue({
          code: 'custom',
          path: ['endpoints'],
          message:
            'expected either discoveryUrl or endpoints, not both: endpoints replace the discovery document',
        })
      }
      if (!p.jwks && !p.endpoints.jwks) {
        ctx.addIssue({
          code: 'custom',
          path: ['endpoints', 'jwks'],
          message:
            "required when the provider has no jwks: the URL of the IdP's signing keys (its jwks_uri)",
        })
      }
    }
    const preset = IDP_PRESET_DEFAULTS[p.preset ?? 'okta']
    if (!preset.trailingSlashIssuer && p.issuer.endsWith('/')) {
      ctx.addIssue({
        code: 'custom',
        path: ['issuer'],
        message:
          'the issuer has no trailing slash; it must equal the token\'s iss (the okta preset\'s form https://<org_domain>/oauth2/<id>). For an IdP whose issuer ends in "/" (Auth0, Entra v1 tokens), set preset (e.g. auth0, entra, generic)',
      })
    }
    if (!p.jwks && preset.discovery === 'backend') {
      ctx.addIssue({
        code: 'custom',
        path: ['jwks'],
        message:
          "required with the okta preset (the default): jwks.remote with the JWKS backend and jwksPath /oauth2/<auth_server_id>/v1/keys; with another preset the keys come from discovery's jwks_uri",
      })
    }
  })

/** `traffic.jwtAuthentication` (seed: GatewayPolicy). */
export const JwtAuthenticationSchema = z
  .strictObject({
    mode: z.enum(['Strict', 'Optional']).default('Strict'),
    providers: z
      .array(JwtProviderSchema)
      .default([])
      .describe('JWT issuers, verified locally. At least one, unless opaqueTokens is set.'),
    mcp: McpAuthSchema.optional(),
    opaqueTokens: OpaqueTokensSchema.optional(),
  })
  .superRefine((jwt, ctx) => {
    // Opaque tokens (docs/idp/opaque-tokens.md) may stand alone; otherwise a JWT issuer is needed.
    if (jwt.providers.length === 0 && (!jwt.opaqueTokens || jwt.mcp)) {
      ctx.addIssue({
        code: 'custom',
        path: ['providers'],
        message: jwt.opaqueTokens
          ? 'the mcp block needs a provider: its issuer is the authorization server the metadata names'
          : 'expected at least one provider (or opaqueTokens for tokens the IdP validates)',
      })
    }
    // Stated endpoints replace discovery: the mcp block needs the ones it uses (providers[0]).
    const endpoints = jwt.providers[0]?.endpoints
    if (jwt.mcp && endpoints) {
      const needed: Array<[keyof typeof endpoints, string]> = [
        ['authorization', 'the authorization endpoint, where users sign in'],
        ['token', 'the token endpoint, where codes are redeemed and tokens refreshed'],
      ]
      for (const [key, what] of needed) {
        if (!endpoints[key]) {
          ctx.addIssue({
            code: 'custom',
            path: ['providers', 0, 'endpoints', key],
            message: `required with mcp: ${what}`,
          })
        }
      }
    }
  })
