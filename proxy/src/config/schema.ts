/**
 * The standalone configuration file, as one zod schema: the source of truth for validation,
 * for the published JSON Schema (`proxy/config.schema.json`) and for the docs.
 *
 * Our own document is strict: every object rejects unknown fields, naming the field and its path.
 * The shape of `policies.<name>.traffic` is the seed's `GatewayPolicy.spec.traffic`, and routes
 * follow the seed's `HTTPRoute.spec.rules[]`, so a Kubernetes manifest translates one to one.
 */
import { isIP } from 'node:net'
import { z } from 'zod'
import { LogFilterError, parseLogFilter } from '../telemetry/logging.js'
import { parseDuration } from './duration.js'

const name = z.string().regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, {
  error: (iss) =>
    `expected an RFC 1123 DNS label (the Kubernetes object-name rule): 1-63 characters, lowercase letters, digits and "-", starting and ending with a letter or digit; got ${JSON.stringify(iss.input)}`,
})

// ---------------------------------------------------------------------------------------------
// Durations: bounded, so a typo cannot disable a timeout (Node's timers fire at once beyond
// 2^31-1 ms, about 24.8 days: `drainTimeout: 99999999h` used to mean "do not drain at all").

const DURATION_FORMAT = 'a number followed by ms, s, m or h, or a compound such as "1m30s"'

/**
 * A duration such as `500ms`, `30s`, `5m` or `1h`, between `min` and `max` inclusive.
 * `0s` is only accepted where `min` is `0s` (and the field documents what zero means).
 */
function duration(min: string, max: string) {
  const lo = parseDuration(min) as number
  const hi = parseDuration(max) as number
  return z
    .string()
    .describe(`A duration from ${min} to ${max}: ${DURATION_FORMAT} (for example "30s").`)
    .superRefine((v, ctx) => {
      const ms = parseDuration(v)
      if (ms === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `expected a duration such as "500ms", "30s", "5m" or "1h" (${DURATION_FORMAT}), got ${JSON.stringify(v)}`,
        })
      } else if (ms < lo || ms > hi) {
        ctx.addIssue({
          code: 'custom',
          message: `expected a duration from ${min} to ${max}, got ${JSON.stringify(v)}`,
        })
      }
    })
}

const port = z
  .number({ error: (iss) => `expected integer 1-65535, got ${JSON.stringify(iss.input)}` })
  .int({ error: (iss) => `expected integer 1-65535, got ${JSON.stringify(iss.input)}` })
  .min(1, { error: (iss) => `expected integer 1-65535, got ${JSON.stringify(iss.input)}` })
  .max(65535, { error: (iss) => `expected integer 1-65535, got ${JSON.stringify(iss.input)}` })

const hostname = z.string().min(1).describe('A DNS name or an IP address, without scheme or port.')

// ---------------------------------------------------------------------------------------------
// config: process-wide settings, read at start-up only.

/** `config.adminAddr`: `ip:port`, `localhost:port`, `unix:/path/to/socket` or `off`. */
export const AdminAddr = z
  .string()
  .superRefine((v, ctx) => {
    if (v === 'off' || v.startsWith('unix:/')) return
    const port = /^(\[[0-9a-fA-F:.]+\]|[^:\s]+):(\d+)$/.exec(v)?.[2]
    if (port === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'expected "ip:port", "localhost:port", "unix:/path/to/socket" or "off"',
      })
    } else if (Number(port) > 65535) {
      ctx.addIssue({
        code: 'custom',
        message: `port ${port} is out of range: expected 0-65535 (0 picks a free port)`,
      })
    }
  })
  .describe(
    'Admin interface address. Default localhost:15000 (loopback only). Read at start-up only. ' +
      'The admin interface has no authentication: binding it to a non-loopback address publishes ' +
      'shutdown and config dump to the network.',
  )

/** `config`: process-wide settings. */
export const ProcessConfig = z
  .strictObject({
    adminAddr: AdminAddr.default('localhost:15000'),
    logLevel: z
      .string()
      .superRefine((v, ctx) => {
        // The same parser start-up uses, so --validate rejects exactly what start rejects.
        try {
          parseLogFilter(v)
        } catch (err) {
          if (!(err instanceof LogFilterError)) throw err
          ctx.addIssue({ code: 'custom', message: err.message })
        }
      })
      .default('info')
      .describe(
        'Initial log filter: error, warn, info, debug, trace, or per-module "info,proxy::httpproxy=trace".',
      ),
    drainTimeout: duration('0s', '1h')
      .default('10s')
      .describe(
        'How long graceful shutdown waits for in-flight requests (open SSE streams included), 0s-1h. 0s closes them at once without draining.',
      ),
  })
  .describe('Process-wide settings. Read at start-up only.')

// ---------------------------------------------------------------------------------------------
// gateways: listeners.

function count(min: number, max: number) {
  const message = (input: unknown) =>
    `expected an integer from ${min} to ${max}, got ${JSON.stringify(input)}`
  return z
    .number({ error: (iss) => message(iss.input) })
    .int({ error: (iss) => message(iss.input) })
    .min(min, { error: (iss) => message(iss.input) })
    .max(max, { error: (iss) => message(iss.input) })
}

/**
 * `gateways.<name>.limits`: what one client may hold of the listener. Defaults are Node's own
 * (headersTimeout 60s, requestTimeout 300s, maxHeaderSize 16 KiB) plus a connection cap.
 */
export const GatewayLimits = z
  .strictObject({
    headersTimeout: duration('100ms', '10m')
      .default('60s')
      .describe(
        'Time a client has to send the request line and headers, 100ms-10m (slowloris). Exceeded → 408 and the connection is closed. At most requestTimeout.',
      ),
    requestTimeout: duration('100ms', '24h')
      .default('300s')
      .describe(
        'Time a client has to send the whole request, body included, 100ms-24h: a slow or stalled upload is cut at this point (408, or the connection closed once the answer started). The response is not bounded by it: an SSE stream may stay open for as long as the session lives.',
      ),
    maxHeaderSize: count(1024, 1048576)
      .default(16384)
      .describe(
        'Bytes allowed for the request line and headers together, 1024-1048576. Exceeded → 431.',
      ),
    maxConnections: count(1, 1_000_000)
      .default(10_000)
      .describe(
        'Client connections open at once, 1-1000000 (an open SSE stream holds one). Beyond it, new connections are closed at once and a warning is logged. Each proxied connection may use two file descriptors: keep it under half of `ulimit -n`.',
      ),
  })
  .superRefine((v, ctx) => {
    if ((parseDuration(v.headersTimeout) as number) > (parseDuration(v.requestTimeout) as number)) {
      ctx.addIssue({
        code: 'custom',
        path: ['headersTimeout'],
        message: `headersTimeout (${v.headersTimeout}) must not exceed requestTimeout (${v.requestTimeout}): the headers are part of the request`,
      })
    }
  })
  .describe(
    "Limits on clients of this listener: header and request deadlines, header size, connections. Defaults are Node's http server defaults plus maxConnections.",
  )

/** `gateways.<name>`: one listener. */
export const GatewayConfig = z
  .strictObject({
    port: port.describe('Listen port.'),
    address: z
      .string()
      .refine(
        (v) =>
          isIP(v) !== 0 ||
          /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(
            v,
          ),
        {
          message:
            'expected an IP address ("0.0.0.0", "127.0.0.1", "::") or a host name of this machine, without port',
        },
      )
      .default('0.0.0.0')
      .describe('Bind address. Default all interfaces; the demo binds 127.0.0.1.'),
    limits: GatewayLimits.prefault({}),
  })
  .describe('A listener. Routes attach to it with parentRefs.')

// ---------------------------------------------------------------------------------------------
// backends: GatewayBackend (static host:port) with the BackendTLSPolicy folded in.

/** `backends.<name>.tls`: TLS origination (the seed's BackendTLSPolicy). */
export const BackendTls = z
  .strictObject({
    hostname: hostname
      .optional()
      .describe(
        'Name to validate the server certificate against, also sent as SNI. Default: static.host.',
      ),
    wellKnownCACertificates: z
      .literal('System')
      .optional()
      .describe('Validate against the system CAs (the default when caCertificates is not given).'),
    caCertificates: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe('Paths of PEM CA bundles to validate against instead of the system CAs.'),
    insecureSkipVerify: z
      .literal(false)
      .optional()
      .describe('Always false: certificate validation cannot be turned off.'),
  })
  .describe("TLS origination to the backend (the seed's BackendTLSPolicy).")

/** `backends.<name>`: an upstream (the seed's GatewayBackend). */
export const BackendConfig = z
  .strictObject({
    static: z.strictObject({ host: hostname, port }).describe('Where the backend listens.'),
    tls: BackendTls.optional(),
    timeouts: z
      .strictObject({
        connect: duration('100ms', '5m')
          .default('5s')
          .describe('TCP (and TLS) connect timeout, 100ms-5m.'),
        response: duration('100ms', '1h')
          .default('30s')
          .describe(
            'Time to the response headers, 100ms-1h; a streaming body may last longer. Exceeded → 504.',
          ),
      })
      .prefault({})
      .describe('Upstream timeouts.'),
    limits: z
      .strictObject({
        maxRequests: count(1, 100_000)
          .default(1024)
          .describe(
            'Requests in flight to this backend at once, 1-100000, open event streams (GET with Accept: text/event-stream) not counted: they have their own connections, uncapped. A request beyond it waits for a free slot, at most timeouts.response, then gets 503 upstream_busy.',
          ),
      })
      .prefault({})
      .describe('Limits on what the gateway sends this backend.'),
  })
  .describe('A backend (GatewayBackend).')

// ---------------------------------------------------------------------------------------------
// routes: HTTPRoute.

/** `routes.<name>.rules[].matches[].path`. */
export const PathMatch = z.strictObject({
  type: z.enum(['PathPrefix', 'Exact']).default('PathPrefix'),
  value: z.string().startsWith('/', { message: 'expected a path starting with "/"' }),
})

/** The HTTPRoute CORS filter's fields (seed: CORS filter). */
export const CorsFilter = z
  .strictObject({
    allowCredentials: z.boolean().default(false),
    allowHeaders: z.array(z.string().min(1)).default([]),
    allowMethods: z.array(z.string().min(1)).default([]).describe('Methods, or ["*"].'),
    allowOrigins: z.array(z.string().min(1)).default([]).describe('Origins, or ["*"].'),
    exposeHeaders: z.array(z.string().min(1)).default([]),
    maxAge: z
      .number()
      .int()
      .min(0)
      .max(86400 * 7)
      .optional()
      .describe('Seconds; the reference setup uses 86400.'),
  })
  .describe('CORS settings (HTTPRoute CORS filter).')

/** `routes.<name>.rules[].filters[]`. */
export const RouteFilter = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('CORS'), cors: CorsFilter }),
])

/** A reference to a backend by name. */
export const BackendRef = z.strictObject({
  name,
  group: z.string().optional(),
  kind: z.literal('GatewayBackend').optional(),
  port: port.optional(),
})

/** `routes.<name>.rules[]`: matches, filters and backends. */
export const RouteRule = z.strictObject({
  matches: z.array(z.strictObject({ path: PathMatch })).min(1),
  filters: z.array(RouteFilter).default([]),
  backendRefs: z.array(BackendRef).min(1).max(1, {
    message: 'exactly one backendRef per rule is supported in standalone mode',
  }),
})

/** `routes.<name>`: an HTTPRoute. */
export const RouteConfig = z
  .strictObject({
    parentRefs: z
      .array(z.strictObject({ name, kind: z.literal('Gateway').optional() }))
      .optional()
      .describe('Gateways carrying the route. Default: every gateway, when there is exactly one.'),
    rules: z.array(RouteRule).min(1),
  })
  .describe('A route (HTTPRoute).')

// ---------------------------------------------------------------------------------------------
// policies: GatewayPolicy, shape of spec.traffic.

/** What a policy attaches to (an HTTPRoute). */
export const TargetRef = z.strictObject({
  group: z.string().optional(),
  kind: z.literal('HTTPRoute').default('HTTPRoute'),
  name,
})

/** `jwks.remote`: keys fetched through a backend. */
export const JwksRemote = z.strictObject({
  backendRef: BackendRef.describe('The JWKS backend (the org domain, port 443 in production).'),
  jwksPath: z
    .string()
    .startsWith('/', { message: 'expected a path starting with "/"' })
    .describe('Path of the key set; for the bridged IdP it is /oauth2/<auth_server_id>/v1/keys.'),
  cacheDuration: duration('10s', '24h')
    .default('5m')
    .describe(
      'Refresh interval, 10s-24h; a Cache-Control max-age from the IdP is honoured within 1m-24h.',
    ),
})

/** `jwks`: remote, inline or file keys. */
export const JwksSource = z
  .strictObject({
    remote: JwksRemote.optional(),
    inline: z
      .union([z.string(), z.strictObject({ keys: z.array(z.record(z.string(), z.unknown())) })])
      .optional()
      .describe('A JWKS document, as an object or a JSON string.'),
    file: z.string().optional().describe('Path of a JWKS file.'),
  })
  .refine((v) => [v.remote, v.inline, v.file].filter((x) => x !== undefined).length === 1, {
    message: 'expected exactly one of jwks.remote, jwks.inline or jwks.file',
  })

/** `jwtAuthentication.providers[]`: one accepted issuer. */
export const JwtProvider = z.strictObject({
  issuer: z
    .url({
      message: 'expected the authorization server URL, e.g. https://<org_domain>/oauth2/default',
    })
    .refine((v) => !v.endsWith('/'), {
      message: "the issuer has no trailing slash; it must equal the token's iss",
    })
    .describe("Must equal the token's iss claim exactly."),
  audiences: z
    .array(z.string().min(1))
    .min(1)
    .describe(
      "The token's aud must contain one of these. The first is sent as the audience parameter.",
    ),
  jwks: JwksSource,
  clockSkew: duration('0s', '10m')
    .default('60s')
    .describe('Tolerance for exp and nbf, 0s-10m. 0s: no tolerance.'),
})

/** `mcp.resourceMetadata`: the RFC 9728 document's source. */
export const ResourceMetadata = z.strictObject({
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

// ---------------------------------------------------------------------------------------------
// mcp.originValidation: DNS rebinding protection on MCP routes (issue #10 item 6).

/** A serialized origin (`https://app.example.com`, `http://localhost:6274`), `null` or `*`. */
const OriginEntry = z.string().refine(
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
const HostEntry = z
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
export const OriginValidation = z
  .strictObject({
    allowedOrigins: z
      .array(OriginEntry)
      .min(1)
      .optional()
      .describe(
        'Origins accepted, or ["*"]. Default: the route\'s CORS allowOrigins plus the origin of resourceMetadata.resource. A same-origin request (Origin naming an accepted Host) is always accepted.',
      ),
    allowedHosts: z
      .array(HostEntry)
      .min(1)
      .optional()
      .describe(
        'Host values accepted on a request with Origin, in addition to IP addresses and localhost (which DNS rebinding cannot produce). An entry without port matches any port; "*.example.com" matches subdomains. Default: the host of resourceMetadata.resource.',
      ),
  })
  .describe(
    'DNS rebinding protection: a request with Origin is answered 403 unless its Host and Origin are accepted. Requests without Origin (non-browser clients) pass.',
  )

/** `jwtAuthentication.mcp`: MCP OAuth discovery and the BridgedIdp bridging. */
export const McpAuth = z.strictObject({
  provider: z
    .enum(['BridgedIdp'])
    .optional()
    .describe('BridgedIdp bridges the IdP gaps: AS metadata from OIDC discovery, audience, DCR.'),
  clientId: z
    .string()
    .min(1)
    .optional()
    .describe('Pre-registered client id that answers Dynamic Client Registration.'),
  resourceMetadata: ResourceMetadata,
  issuerMode: z
    .enum(['Provider', 'Gateway'])
    .default('Provider')
    .describe(
      'issuer in the served AS metadata: Provider (the seed: the IdP issuer) or Gateway (<base>/mcp, for clients that enforce RFC 8414 §3.3).',
    ),
  requiredScopes: z
    .array(z.string().min(1))
    .optional()
    .describe(
      'Scopes named in the 403 insufficient_scope challenge. Default: none (no step-up loop).',
    ),
  originValidation: OriginValidation.optional(),
})

/** `traffic.jwtAuthentication` (seed: GatewayPolicy). */
export const JwtAuthentication = z.strictObject({
  mode: z.enum(['Strict', 'Optional']).default('Strict'),
  providers: z.array(JwtProvider).min(1),
  mcp: McpAuth.optional(),
})

/** `traffic.authorization`: CEL rules over the verified claims. */
export const Authorization = z.strictObject({
  action: z.literal('Allow').default('Allow'),
  policy: z.strictObject({
    matchExpressions: z
      .array(z.string().min(1))
      .min(1)
      .describe('CEL over the verified claims (variable jwt); every expression must be true.'),
  }),
})

const HeaderName = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, {
    message: 'expected an HTTP header name (RFC 9110 §5.1)',
  })
  .refine(
    (v) =>
      !['host', 'connection', 'content-length', 'transfer-encoding', 'te', 'upgrade'].includes(
        v.toLowerCase(),
      ),
    {
      message: 'this header is managed by the proxy and cannot be transformed',
    },
  )

/** `traffic.transformations`: request headers from the claims. */
export const Transformations = z.strictObject({
  request: z.strictObject({
    set: z
      .array(
        z.strictObject({
          name: HeaderName,
          value: z
            .string()
            .min(1)
            .describe(
              'CEL over the verified claims (jwt), e.g. jwt.sub; a failed evaluation leaves the header unset.',
            ),
        }),
      )
      .default([])
      .describe('Headers set on the request to the backend.'),
    remove: z
      .array(HeaderName)
      .default([])
      .describe('Headers removed from the request to the backend.'),
  }),
})

// ---------------------------------------------------------------------------------------------
// MCP-aware policy (issue #14): per-tool authorization and rate limits, read from the JSON-RPC
// body of POST /mcp. Field names follow agentgateway's `mcpAuthorization` and `localRateLimit`.

const McpCel = z
  .string()
  .min(1)
  .describe('CEL over the verified claims (jwt) and the MCP request (mcp).')

/** One `mcpAuthorization` rule: a CEL expression (an allow rule) or `{allow|deny|require: …}`. */
export const McpAuthorizationRule = z.union(
  [
    McpCel,
    z.strictObject({ allow: McpCel }),
    z.strictObject({ deny: McpCel }),
    z.strictObject({ require: McpCel }),
  ],
  {
    error:
      'expected a CEL expression (an allow rule) or an object with exactly one of allow, deny or require, e.g. {deny: \'mcp.tool.name == "delete_repo"\'}',
  },
)

/** `traffic.mcpAuthorization`: which tools, prompts and resources a caller may use. */
export const McpAuthorization = z
  .strictObject({
    rules: z
      .array(McpAuthorizationRule)
      .default([])
      .describe(
        'CEL rules over jwt and mcp (mcp.method, mcp.tool.name, mcp.tool.arguments, mcp.prompt.name, mcp.resource.uri). A plain expression is an allow rule. A matching deny rule denies; a require rule must hold; with any allow rule, what no allow rule matches is denied. Denied tools, prompts and resources are hidden from tools/list, prompts/list and resources/list, and a call to one gets a JSON-RPC error. An expression that cannot be evaluated counts against the request. [] inspects MCP traffic (metrics, access log) without restricting it.',
      ),
  })
  .describe(
    "Per-tool authorization (agentgateway's mcpAuthorization): rules for each tool, prompt and resource an MCP request names.",
  )

/** `traffic.localRateLimit[]`: one token-bucket limit. */
export const LocalRateLimit = z
  .strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, {
        message: 'expected 1-64 letters, digits, ".", "_" or "-"',
      })
      .optional()
      .describe(
        'Name in the RateLimit headers and metrics. Default: <policy>-<index>, e.g. mcp-auth-0.',
      ),
    maxTokens: z
      .number()
      .int()
      .min(1)
      .max(1_000_000_000)
      .describe('Bucket capacity and initial content: the burst a key may spend at once.'),
    tokensPerFill: z
      .number()
      .int()
      .min(1)
      .max(1_000_000_000)
      .default(1)
      .describe('Tokens added to each bucket every fillInterval, up to maxTokens.'),
    fillInterval: duration('10ms', '24h').describe('Time between fills, 10ms-24h.'),
    type: z
      .literal('requests')
      .optional()
      .describe(
        'What a token pays for: one JSON-RPC message (a request without one, such as GET, counts as one). Only requests; accepted for agentgateway compatibility.',
      ),
    key: McpCel.optional().describe(
      'CEL giving the bucket key, e.g. jwt.sub + "/" + mcp.tool.name (per user and tool). Default: one bucket for the route. A key that cannot be evaluated (a missing claim) uses one shared bucket of this limit.',
    ),
    when: McpCel.optional().describe(
      'CEL choosing the messages this limit counts, e.g. mcp.method == "tools/call". Default: every message. An expression that cannot be evaluated counts the message.',
    ),
  })
  .refine((v) => v.tokensPerFill <= v.maxTokens, {
    message: 'tokensPerFill cannot exceed maxTokens (a fill never holds more than the bucket)',
    path: ['tokensPerFill'],
  })
  .describe(
    'A local (per-replica) token bucket per key: 429 with Retry-After and RateLimit headers when empty.',
  )

/** `policies.<name>`: a GatewayPolicy. */
export const PolicyConfig = z
  .strictObject({
    targetRefs: z.array(TargetRef).min(1),
    traffic: z.strictObject({
      jwtAuthentication: JwtAuthentication.optional(),
      authorization: Authorization.optional(),
      transformations: Transformations.optional().describe(
        'Request header changes computed from the verified claims (seed: claims available to transformations).',
      ),
      mcpAuthorization: McpAuthorization.optional(),
      localRateLimit: z
        .array(LocalRateLimit)
        .min(1)
        .optional()
        .describe(
          "Rate limits on the route's MCP messages (agentgateway's localRateLimit, keyed by CEL). Buckets are per replica: N replicas admit up to N times the limit.",
        ),
    }),
  })
  .describe('A policy (GatewayPolicy), attached to routes.')

// ---------------------------------------------------------------------------------------------

/** The whole standalone configuration file: the schema everything else is generated from. */
export const GatehouseConfig = z
  .strictObject({
    config: ProcessConfig.prefault({}),
    gateways: z.record(name, GatewayConfig),
    backends: z.record(name, BackendConfig).default({}),
    routes: z.record(name, RouteConfig).default({}),
    policies: z.record(name, PolicyConfig).default({}),
    ui: z
      .strictObject({
        gateway: name
          .optional()
          .describe(
            'Gateway to attach the UI to. Accepted and checked (the gateway must exist), not yet supported: --validate and the start-up log warn, and the UI is served under the admin address only.',
          ),
      })
      .optional()
      .describe('Web UI. Served at `<admin address>/ui` whenever the admin interface is on.'),
  })
  .describe('Gatehouse standalone configuration file.')

/** The validated configuration, defaults applied. */
export type GatehouseConfig = z.output<typeof GatehouseConfig>
/** The configuration as written by a user. */
export type GatehouseConfigInput = z.input<typeof GatehouseConfig>
/** A validated policy. */
export type PolicyConfig = z.output<typeof PolicyConfig>
/** A validated JWT provider. */
export type JwtProviderConfig = z.output<typeof JwtProvider>
/** A validated `mcp` block. */
export type McpAuthConfig = z.output<typeof McpAuth>
/** A validated `mcp.originValidation` block. */
export type OriginValidationConfig = z.output<typeof OriginValidation>
/** A validated CORS filter. */
export type CorsConfig = z.output<typeof CorsFilter>
/** A validated `mcpAuthorization` rule. */
export type McpAuthorizationRuleConfig = z.output<typeof McpAuthorizationRule>
/** A validated `localRateLimit` entry. */
export type LocalRateLimitEntry = z.output<typeof LocalRateLimit>
/** A validated backend. */
export type BackendConfig = z.output<typeof BackendConfig>
/** Validated `gateways.<name>.limits`. */
export type GatewayLimitsConfig = z.output<typeof GatewayLimits>
