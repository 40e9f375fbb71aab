/**
 * `policies`: GatewayPolicy, the shape of the seed's `GatewayPolicy.spec.traffic` — what a policy
 * attaches to, its authentication (`./authentication.ts`), CEL authorization rules, header
 * transformations, and the MCP-aware sections (per-tool authorization, rate limits).
 */
import { z } from 'zod'
import { JwtAuthenticationSchema } from './authentication.js'
import { duration, name } from './common.js'
import { RouteOriginValidationSchema } from './mcp-auth.js'

/** What a policy attaches to (an HTTPRoute). */
export const TargetRefSchema = z.strictObject({
  group: z.string().optional(),
  kind: z.literal('HTTPRoute').default('HTTPRoute'),
  name,
})

/** `traffic.authorization`: CEL rules over the verified claims. */
export const AuthorizationSchema = z.strictObject({
  action: z.literal('Allow').default('Allow'),
  policy: z.strictObject({
    matchExpressions: z
      .array(z.string().min(1))
      .min(1)
      .describe('CEL over the verified claims (variable jwt); every expression must be true.'),
  }),
})

const HeaderNameSchema = z
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
export const TransformationsSchema = z.strictObject({
  request: z.strictObject({
    set: z
      .array(
        z.strictObject({
          name: HeaderNameSchema,
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
      .array(HeaderNameSchema)
      .default([])
      .describe('Headers removed from the request to the backend.'),
  }),
})

// MCP-aware policy (docs/auth.md): per-tool authorization and rate limits, read from the JSON-RPC
// body of POST /mcp. Field names follow agentgateway's `mcpAuthorization` and `localRateLimit`.

const McpCelSchema = z
  .string()
  .min(1)
  .describe('CEL over the verified claims (jwt) and the MCP request (mcp).')

/** One `mcpAuthorization` rule: a CEL expression (an allow rule) or `{allow|deny|require: …}`. */
export const McpAuthorizationRuleSchema = z.union(
  [
    McpCelSchema,
    z.strictObject({ allow: McpCelSchema }),
    z.strictObject({ deny: McpCelSchema }),
    z.strictObject({ require: McpCelSchema }),
  ],
  {
    error:
      'expected a CEL expression (an allow rule) or an object with exactly one of allow, deny or require, e.g. {deny: \'mcp.tool.name == "delete_repo"\'}',
  },
)

/** `traffic.mcpAuthorization`: which tools, prompts and resources a caller may use. */
export const McpAuthorizationSchema = z
  .strictObject({
    rules: z
      .array(McpAuthorizationRuleSchema)
      .default([])
      .describe(
        'CEL rules over jwt and mcp (mcp.method, mcp.tool.name, mcp.tool.arguments, mcp.prompt.name, mcp.resource.uri). A plain expression is an allow rule. A matching deny rule denies; a require rule must hold; with any allow rule, what no allow rule matches is denied. Denied tools, prompts and resources are hidden from tools/list, prompts/list and resources/list, and a call to one gets a JSON-RPC error. An expression that cannot be evaluated counts against the request. [] inspects MCP traffic (metrics, access log) without restricting it.',
      ),
    maxListTtl: duration('0s', '24h')
      .optional()
      .describe(
        'Cap on the ttlMs caching hint of the tools/list, prompts/list and resources/list results this policy filters, 0s-24h (MCP 2026-07-28 Caching). Such results are always marked cacheScope "private" in 2026-07-28 traffic, as they vary per user; a larger ttlMs from the backend is lowered to this. Unset: the backend\'s ttlMs is kept.',
      ),
  })
  .describe(
    "Per-tool authorization (agentgateway's mcpAuthorization): rules for each tool, prompt and resource an MCP request names.",
  )

/** `traffic.localRateLimit[]`: one token-bucket limit. */
export const LocalRateLimitSchema = z
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
    key: McpCelSchema.optional().describe(
      'CEL giving the bucket key, e.g. jwt.sub + "/" + mcp.tool.name (per user and tool). Default: one bucket for the route. A key that cannot be evaluated (a missing claim) uses one shared bucket of this limit.',
    ),
    when: McpCelSchema.optional().describe(
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
export const PolicyConfigSchema = z
  .strictObject({
    targetRefs: z.array(TargetRefSchema).min(1),
    traffic: z.strictObject({
      jwtAuthentication: JwtAuthenticationSchema.optional(),
      authorization: AuthorizationSchema.optional(),
      transformations: TransformationsSchema.optional().describe(
        'Request header changes computed from the verified claims (seed: claims available to transformations).',
      ),
      originValidation: RouteOriginValidationSchema.optional(),
      mcpAuthorization: McpAuthorizationSchema.optional(),
      localRateLimit: z
        .array(LocalRateLimitSchema)
        .min(1)
        .optional()
        .describe(
          "Rate limits on the route's MCP messages (agentgateway's localRateLimit, keyed by CEL). Buckets are per replica: N replicas admit up to N times the limit.",
        ),
    }),
  })
  .describe('A policy (GatewayPolicy), attached to routes.')

/** A validated policy. */
export type PolicyConfig = z.output<typeof PolicyConfigSchema>
