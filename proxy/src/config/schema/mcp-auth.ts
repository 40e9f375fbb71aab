/**
 * `traffic.jwtAuthentication.mcp` (seed: GatewayPolicy): MCP OAuth discovery (the RFC 9728
 * document's source), the BridgedIdp bridging and broker, the upstream IdP's authorization request,
 * and DNS rebinding protection on MCP routes (also `traffic.originValidation`, route-level).
 */
import { z } from 'zod'
import { BrokerSchema } from './broker.js'

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
