/**
 * `traffic.jwtAuthentication` (seed: GatewayPolicy): the accepted issuers and their keys, and the
 * MCP OAuth discovery settings (`mcp`), with DNS rebinding protection on MCP routes.
 */
import { z } from 'zod'
import { endpointUrlProblem } from '../endpoint-url.js'
import { IDP_PRESET_DEFAULTS, IDP_PRESETS } from '../idp-presets.js'
import { BrokerSchema } from './broker.js'
import { duration } from './common.js'
import { BackendRefSchema } from './listeners.js'
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

/**
 * `mcp.upstream`: how the gateway talks to the upstream IdP (`providers[0]`) on the user's
 * authorization request. Each field overrides the default of the provider's preset
 * (config/idp-presets.ts).
 */
export const McpUpstreamSchema = z
  .strictObject({
    audienceParameter: z
      .union([z.string().min(1), z.literal(false)])
      .optional()
      .describe(
        'Name of the authorization parameter that carries audiences[0] (the IdP has no RFC 8707), or false to send none. Default: the preset\'s (okta and auth0 "audience", the others false).',
      ),
    authorizeParameters: z
      .record(z.string().min(1), z.string())
      .optional()
      .describe(
        "Extra authorization-request parameters sent to the IdP, e.g. {access_type: offline, prompt: consent} (the google preset's default). They cannot replace the OAuth parameters the gateway sets (client_id, redirect_uri, scope, state, PKCE).",
      ),
    scopeMap: z
      .record(z.string().min(1), z.string().min(1))
      .optional()
      .describe(
        'Broker mode: a scope a client asks the gateway for, mapped to the IdP scope requested with it, e.g. {"mcp:tools": "api://<app-id>/mcp.access"} (Entra). Scopes without an entry are not sent to the IdP.',
      ),
  })
  .describe(
    "The upstream IdP's authorization request: audience parameter, extra parameters, scope mapping. Defaults from providers[0].preset.",
  )

/** `mcp.resourceMetadata`: the RFC 9728 document's source. */
export const ResourceMetadataSchema = z.strictObject({
  resource: z
    .url()
    .describe('Resource identifier of the MCP endpoint, e.g. https://gateway.example.com/mcp.'),
  scopesSupported: z
    .array(z.string().min(1))
    .optional()
    .describe(
      'scopes_supported of the metadata; also named in the 401 challenge (scope=, MCP 2025-11-25).',
    ),
  bearerMethodsSupported: z.array(z.enum(['header', 'body', 'query'])).optional(),
  resourceName: z.string().optional(),
  resourceDocumentation: z.url().optional(),
})

// mcp.originValidation: DNS rebinding protection on MCP routes (docs/reliability.md).

/** A serialized origin (`https://app.example.com`, `http://localhost:6274`), `null` or `*`. */
const OriginEntrySchema = z.string().refine(
  (v) => {
    if (v === '*' || v === 'null') return true
    try {
      return new URL(v).origin === v
    } catch {
      return false
    }
  },
  {
    message:
      'expected an origin: scheme://host[:port] in lowercase, without path or trailing slash (e.g. "https://app.example.com"), "null" or "*"',
  },
)

/** A Host value: `name`, `name:port`, `ip`, `ip:port` or `[v6]:port`, lowercase. */
const HostEntrySchema = z
  .string()
  .regex(/^(\[[0-9a-f:.]+\]|[a-z0-9*]([a-z0-9.-]*[a-z0-9])?)(:\d{1,5})?$/, {
    message:
      'expected a host as the Host header carries it: "gateway.example.com", "gateway.example.com:8443" or "*.example.com" (lowercase, no scheme or path)',
  })

/**
 * `jwtAuthentication.mcp.originValidation`: what a browser request (one with `Origin`) must carry
 * on an MCP route. MCP 2025-06-18, Transports (Security Warning): servers MUST validate Origin to
 * prevent DNS rebinding; the gateway rewrites Host for the backend, so it must check it itself.
 */
export const OriginValidationSchema = z
  .strictObject({
    allowedOrigins: z
      .array(OriginEntrySchema)
      .min(1)
      .optional()
      .describe(
        'Origins accepted, or ["*"]. Default: the route\'s CORS allowOrigins plus the origin of resourceMetadata.resource (of the route\'s MCP policy, if any). A same-origin request (Origin naming an accepted Host) is always accepted.',
      ),
    allowedHosts: z
      .array(HostEntrySchema)
      .min(1)
      .optional()
      .describe(
        'Host values accepted on a request with Origin, in addition to IP addresses and localhost (which DNS rebinding cannot produce). An entry without port matches any port; "*.example.com" matches subdomains. Default: the host of resourceMetadata.resource of the route\'s MCP policy; none on a route without one.',
      ),
  })
  .describe(
    'DNS rebinding protection: a request with Origin is answered 403 unless its Host and Origin are accepted. Requests without Origin (non-browser clients) pass. Kept for existing configurations: traffic.originValidation is the route-level setting (a route takes one or the other).',
  )

/**
 * `traffic.originValidation`: the same check as a route-level setting, on routes with or without
 * authentication. Every route is checked by default (a gatehouse route fronts an MCP server);
 * `mode: Disabled` turns it off for a route that serves something else to browsers.
 */
export const RouteOriginValidationSchema = OriginValidationSchema.extend({
  mode: z
    .enum(['Enforce', 'Disabled'])
    .default('Enforce')
    .describe(
      'Enforce (the default on every route) or Disabled. Disabled lets a rebound browser page reach the backend: only for routes that do not serve MCP.',
    ),
}).describe(
  "DNS rebinding protection of the routes this policy attaches to (MCP 2025-06-18 Transports: servers MUST validate Origin; the gateway rewrites Host, so the backend's own check cannot work). On by default on every route, with or without authentication: a request with Origin gets 403 unless its Host is an IP address, localhost or one of allowedHosts and its Origin is same-origin or one of allowedOrigins.",
)

/** `jwtAuthentication.mcp`: MCP OAuth discovery and the BridgedIdp bridging. */
export const McpAuthSchema = z
  .strictObject({
    provider: z
      .enum(['BridgedIdp'])
      .optional()
      .describe('BridgedIdp bridges the IdP gaps: AS metadata from OIDC discovery, audience, DCR.'),
    clientId: z
      .string()
      .min(1)
      .optional()
      .describe('Pre-registered client id that answers Dynamic Client Registration.'),
    resourceMetadata: ResourceMetadataSchema,
    issuerMode: z
      .enum(['Provider', 'Gateway'])
      .default('Provider')
      .describe(
        'issuer in the served AS metadata: Provider (the seed: the IdP issuer) or Gateway (<base>/mcp, for clients that enforce RFC 8414 §3.3).',
      ),
    upstream: McpUpstreamSchema.optional(),
    requiredScopes: z
      .array(z.string().min(1))
      .optional()
      .describe(
        'Scopes named in the 403 insufficient_scope challenge. Default: none (no step-up loop).',
      ),
    originValidation: OriginValidationSchema.optional(),
    broker: BrokerSchema.optional(),
  })
  .superRefine((mcp, ctx) => {
    const broker = mcp.broker
    if (!broker) return
    const issue = (path: (string | number)[], message: string) =>
      ctx.addIssue({ code: 'custom', path: ['broker', ...path], message })
    if (mcp.provider !== 'BridgedIdp') {
      issue([], 'broker mode needs provider: BridgedIdp (the gateway brokers that IdP)')
    }
    const client = broker.upstreamClient
    if (!client.clientId && !mcp.clientId) {
      issue(
        ['upstreamClient', 'clientId'],
        "required when mcp.clientId is not set: the gateway's pre-registered client id at the IdP",
      )
    }
    if (client.tokenEndpointAuthMethod?.startsWith('client_secret') && !client.clientSecret) {
      issue(
        ['upstreamClient', 'clientSecret'],
        `required with tokenEndpointAuthMethod ${client.tokenEndpointAuthMethod}; write it as \${VAR}`,
      )
    }
    if (broker.store && 'redis' in broker.store && !broker.secret) {
      issue(
        ['secret'],
        'required with store.redis: every replica must sign state and cookies with the same key (e.g. `openssl rand -base64 32`, passed as ${VAR})',
      )
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
