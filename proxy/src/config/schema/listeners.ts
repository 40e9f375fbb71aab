// Over 300 lines but one job (the schema of where traffic comes in and where it goes): kept whole.
/**
 * Where traffic comes in and where it goes: `gateways` (listeners), `backends` (the seed's
 * GatewayBackend with its BackendTLSPolicy folded in) and `routes` (HTTPRoute, the seed's
 * `HTTPRoute.spec.rules[]`, so a Kubernetes manifest translates one to one).
 */
import { isIP } from 'node:net'
import { z } from 'zod'
import { Duration } from '../duration.js'
import { count, duration, hostname, name, port } from './common.js'

/**
 * `gateways.<name>.limits`: what one client may hold of the listener. Defaults are Node's own
 * (headersTimeout 60s, requestTimeout 300s, maxHeaderSize 16 KiB) plus a connection cap.
 */
export const GatewayLimitsSchema = z
  .strictObject({
    headersTimeout: duration('100ms', '10m')
      .prefault('60s')
      .describe(
        'Time a client has to send the request line and headers, 100ms-10m (slowloris). Exceeded → 408 and the connection is closed. At most requestTimeout.',
      ),
    requestTimeout: duration('100ms', '24h')
      .prefault('300s')
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
    const { headersTimeout, requestTimeout } = v
    // Either may be missing when it did not parse (its own issue says why).
    if (!(headersTimeout instanceof Duration) || !(requestTimeout instanceof Duration)) return
    if (headersTimeout.ms > requestTimeout.ms) {
      ctx.addIssue({
        code: 'custom',
        path: ['headersTimeout'],
        message: `headersTimeout (${v.headersTimeout.text}) must not exceed requestTimeout (${v.requestTimeout.text}): the headers are part of the request`,
      })
    }
  })
  .describe(
    "Limits on clients of this listener: header and request deadlines, header size, connections. Defaults are Node's http server defaults plus maxConnections.",
  )

/** A server name a certificate is for: a DNS name, or `*.` and one (one label matched). */
const serverName = z
  .string()
  .regex(
    /^(\*\.)?(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i,
    { message: 'expected a DNS name such as "mcp.example.com" or "*.example.com"' },
  )

/** `gateways.<name>.tls`: the listener terminates TLS (Gateway API `protocol: HTTPS`). */
export const GatewayTlsSchema = z
  .strictObject({
    certificates: z
      .array(
        z
          .strictObject({
            hostname: serverName
              .optional()
              .describe(
                'Server name (SNI) this certificate answers: exact, or "*.example.com" for one label. Unset: the default certificate, sent to clients that name no server or one no certificate lists (the first certificate is the default when none is unset).',
              ),
            certFile: z
              .string()
              .min(1)
              .optional()
              .describe('Path of the PEM certificate chain, leaf first.'),
            keyFile: z
              .string()
              .min(1)
              .optional()
              .describe('Path of the PEM private key of that certificate.'),
            certPem: z
              .string()
              .min(1)
              .optional()
              .describe(
                'The PEM certificate chain itself, instead of certFile (what a Kubernetes Secret of type kubernetes.io/tls translates to). Never shown in errors, dumps or logs.',
              ),
            keyPem: z
              .string()
              .min(1)
              .optional()
              .describe(
                'The PEM private key itself, instead of keyFile. Never shown in errors, dumps or logs.',
              ),
            from: z
              .string()
              .min(1)
              .optional()
              .describe(
                'Where certPem and keyPem came from, for messages (the Kubernetes translation sets "Secret <namespace>/<name>").',
              ),
          })
          .superRefine((c, ctx) => {
            const files = c.certFile !== undefined || c.keyFile !== undefined
            const pems = c.certPem !== undefined || c.keyPem !== undefined
            if (files && pems) {
              ctx.addIssue({
                code: 'custom',
                message: 'give certFile and keyFile, or certPem and keyPem, not both',
              })
            } else if (pems ? !(c.certPem && c.keyPem) : !(c.certFile && c.keyFile)) {
              ctx.addIssue({
                code: 'custom',
                message: pems
                  ? 'certPem and keyPem go together'
                  : 'expected certFile and keyFile (paths of the PEM certificate chain and its key)',
              })
            }
          }),
      )
      .min(1)
      .describe(
        'Certificates with their keys, read at start, on every reload and whenever one of the files changes (a failed read keeps the certificates in use and logs why).',
      ),
    minVersion: z
      .enum(['TLSv1.2', 'TLSv1.3'])
      .default('TLSv1.2')
      .describe('Oldest TLS version accepted. Default TLSv1.2; TLS 1.0 and 1.1 are never offered.'),
  })
  .describe(
    'Terminate TLS on this listener (HTTPS): certificates chosen by the server name the client sends (SNI).',
  )

/** `gateways.<name>`: one listener. */
export const GatewayConfigSchema = z
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
    limits: GatewayLimitsSchema.prefault({}),
    tls: GatewayTlsSchema.optional(),
    probePath: z
      .string()
      .regex(/^\/[A-Za-z0-9._~!$&'()*+,;=:@/-]*$/, {
        message: 'expected an absolute path without query, e.g. "/healthz"',
      })
      .optional()
      .describe(
        "Path the gateway answers itself for a load balancer's health check (GET or HEAD): 200 `ok` while the policies of its routes have their keys, 503 `unavailable` otherwise, no detail (the admin interface's /ready gives the reasons). It takes precedence over routes. Unset: none.",
      ),
    allowUnauthenticated: z
      .boolean()
      .optional()
      .describe(
        'true: every route of this gateway may serve without authentication (a public listener). Default: a route that no policy with traffic.jwtAuthentication targets is refused, so that a policy that was misspelled, deleted or never attached cannot leave a route open. Kubernetes: the annotation <api-group>/allow-unauthenticated: "true" on the Gateway.',
      ),
  })
  .describe('A listener. Routes attach to it with parentRefs.')

/** `backends.<name>.tls`: TLS origination (the seed's BackendTLSPolicy). */
export const BackendTlsSchema = z
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
    caCertificatePems: z
      .array(
        z.strictObject({
          pem: z.string().min(1).describe('A PEM CA bundle.'),
          from: z
            .string()
            .min(1)
            .optional()
            .describe(
              'Where it came from, for messages (the Kubernetes translation sets "ConfigMap <namespace>/<name>").',
            ),
        }),
      )
      .min(1)
      .optional()
      .describe(
        'CA bundles given inline (what BackendTLSPolicy caCertificateRefs to ConfigMaps translate to), validated against with caCertificates instead of the system CAs.',
      ),
    insecureSkipVerify: z
      .literal(false)
      .optional()
      .describe('Always false: certificate validation cannot be turned off.'),
  })
  .describe("TLS origination to the backend (the seed's BackendTLSPolicy).")

/** `backends.<name>`: an upstream (the seed's GatewayBackend). */
export const BackendConfigSchema = z
  .strictObject({
    static: z.strictObject({ host: hostname, port }).describe('Where the backend listens.'),
    tls: BackendTlsSchema.optional(),
    timeouts: z
      .strictObject({
        connect: duration('100ms', '5m')
          .prefault('5s')
          .describe('TCP (and TLS) connect timeout, 100ms-5m.'),
        response: duration('100ms', '1h')
          .prefault('30s')
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
            'Requests in flight to this backend at once, 1-100000, open event streams (GET with Accept: text/event-stream, and MCP 2026-07-28 subscriptions/listen) not counted: they have their own connections. A request beyond it waits for a free slot, at most timeouts.response, then gets 503 upstream_busy.',
          ),
        maxListenStreams: count(1, 1_000_000)
          .default(4096)
          .describe(
            "MCP 2026-07-28 subscriptions/listen streams open to this backend at once, 1-1000000: each is a long-lived POST answer on a connection of its own, outside maxRequests (as the GET streams of 2025-11-25 sessions, which are not capped here). One beyond it gets 503 upstream_busy at once, without waiting. Keep it under the gateway's limits.maxConnections.",
          ),
      })
      .prefault({})
      .describe('Limits on what the gateway sends this backend.'),
  })
  .describe('A backend (GatewayBackend).')

/** A validated backend. */
export type BackendConfig = z.output<typeof BackendConfigSchema>

/** `routes.<name>.rules[].matches[].path`. */
export const PathMatchSchema = z.strictObject({
  type: z.enum(['PathPrefix', 'Exact']).default('PathPrefix'),
  value: z.string().startsWith('/', { message: 'expected a path starting with "/"' }),
})

/** The HTTPRoute CORS filter's fields (seed: CORS filter). */
export const CorsFilterSchema = z
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
export const RouteFilterSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('CORS'), cors: CorsFilterSchema }),
])

/** A reference to a backend by name. */
export const BackendRefSchema = z.strictObject({
  name,
  group: z.string().optional(),
  kind: z.literal('GatewayBackend').optional(),
  port: port.optional(),
})

/** `routes.<name>.rules[]`: matches, filters and backends. */
export const RouteRuleSchema = z.strictObject({
  matches: z.array(z.strictObject({ path: PathMatchSchema })).min(1),
  filters: z.array(RouteFilterSchema).default([]),
  backendRefs: z.array(BackendRefSchema).min(1).max(1, {
    message: 'exactly one backendRef per rule is supported in standalone mode',
  }),
})

/** `routes.<name>`: an HTTPRoute. */
export const RouteConfigSchema = z
  .strictObject({
    parentRefs: z
      .array(z.strictObject({ name, kind: z.literal('Gateway').optional() }))
      .optional()
      .describe('Gateways carrying the route. Default: every gateway, when there is exactly one.'),
    rules: z.array(RouteRuleSchema).min(1),
    allowUnauthenticated: z
      .boolean()
      .optional()
      .describe(
        'true: this route is meant to be public and may serve without authentication. Default: a route that no policy with traffic.jwtAuthentication targets (and whose gateways do not allow it) is refused at load and on reload. Kubernetes: the annotation <api-group>/allow-unauthenticated: "true" on the HTTPRoute.',
      ),
  })
  .describe('A route (HTTPRoute).')
