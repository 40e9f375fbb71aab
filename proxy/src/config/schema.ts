/**
 * The standalone configuration file, as one zod schema: the source of truth for validation,
 * for the published JSON Schema (`proxy/config.schema.json`) and for the docs. The sections live
 * in `./schema/` (building blocks, process settings, listeners and routes, authentication,
 * policies); this module assembles them and is what the rest of the proxy imports.
 *
 * Our own document is strict: every object rejects unknown fields, naming the field and its path.
 * The shape of `policies.<name>.traffic` is the seed's `GatewayPolicy.spec.traffic`, and routes
 * follow the seed's `HTTPRoute.spec.rules[]`, so a Kubernetes manifest translates one to one.
 * Durations come out as {@link Duration} values (milliseconds plus the text as written).
 */
import { z } from 'zod'
import type { Duration } from './duration.js'
import {
  JwksRemoteSchema,
  JwksSourceSchema,
  JwtAuthenticationSchema,
  JwtProviderSchema,
} from './schema/authentication.js'
import { type BrokerRedisStoreSchema, BrokerSchema } from './schema/broker.js'
import { name } from './schema/common.js'
import {
  type BackendConfig,
  BackendConfigSchema,
  BackendRefSchema,
  BackendTlsSchema,
  CorsFilterSchema,
  GatewayConfigSchema,
  GatewayLimitsSchema,
  GatewayTlsSchema,
  PathMatchSchema,
  RouteConfigSchema,
  RouteFilterSchema,
  RouteRuleSchema,
} from './schema/listeners.js'
import {
  McpAuthSchema,
  McpUpstreamSchema,
  OriginValidationSchema,
  ResourceMetadataSchema,
} from './schema/mcp-auth.js'
import { OpaqueTokensSchema } from './schema/opaque-tokens.js'
import {
  AuthorizationSchema,
  LocalRateLimitSchema,
  McpAuthorizationRuleSchema,
  McpAuthorizationSchema,
  type PolicyConfig,
  PolicyConfigSchema,
  TargetRefSchema,
  TransformationsSchema,
} from './schema/policies.js'
import { AdminAddrSchema, ProcessConfigSchema } from './schema/process.js'

export type { BackendConfig, Duration, PolicyConfig }
export {
  AdminAddrSchema,
  AuthorizationSchema,
  BackendConfigSchema,
  BackendRefSchema,
  BackendTlsSchema,
  BrokerSchema,
  CorsFilterSchema,
  GatewayConfigSchema,
  GatewayLimitsSchema,
  GatewayTlsSchema,
  JwksRemoteSchema,
  JwksSourceSchema,
  JwtAuthenticationSchema,
  JwtProviderSchema,
  LocalRateLimitSchema,
  McpAuthorizationRuleSchema,
  McpAuthorizationSchema,
  McpAuthSchema,
  McpUpstreamSchema,
  OpaqueTokensSchema,
  OriginValidationSchema,
  PathMatchSchema,
  PolicyConfigSchema,
  ProcessConfigSchema,
  ResourceMetadataSchema,
  RouteConfigSchema,
  RouteFilterSchema,
  RouteRuleSchema,
  TargetRefSchema,
  TransformationsSchema,
}

/** The whole standalone configuration file: the schema everything else is generated from. */
export const GatehouseConfigSchema = z
  .strictObject({
    config: ProcessConfigSchema.prefault({}),
    gateways: z.record(name, GatewayConfigSchema),
    backends: z.record(name, BackendConfigSchema).prefault({}),
    routes: z.record(name, RouteConfigSchema).default({}),
    policies: z.record(name, PolicyConfigSchema).prefault({}),
    ui: z
      .strictObject({
        gateway: name
          .optional()
          .describe(
            'Gateway that also serves the UI, read-only, at `path`: status (names and conditions) and request counts, never a configuration value, token or control. Unset: the UI is on the admin address only.',
          ),
        path: z
          .string()
          .regex(
            /^(\/[A-Za-z0-9._~-]+)+$/,
            'a path like /gatehouse/ui: segments of letters, digits and ._~- after each "/", no trailing "/"',
          )
          .refine((p) => !p.split('/').some((s) => s === '.' || s === '..'), {
            message: 'no "." or ".." segments',
          })
          .default('/gatehouse/ui')
          .describe(
            'Where the read-only UI is served on `gateway`. Requests under it are answered before routing: pick a path no route of the gateway needs.',
          ),
        showTrace: z
          .boolean()
          .default(false)
          .describe(
            'Also stream the request trace (redacted: no credential, but paths, claims such as `sub` and tool names) in the read-only UI on `gateway`. Default false.',
          ),
        showMessages: z
          .boolean()
          .default(false)
          .describe(
            'Also show condition and reload messages in the read-only UI on `gateway`; they can quote configuration values (URLs, file names and lines). Default false: type, status and reason only.',
          ),
      })
      .optional()
      .describe(
        'Web UI. Served at `<admin address>/ui` whenever the admin interface is on; with `gateway`, a read-only view on that gateway too.',
      ),
  })
  .describe('Gatehouse standalone configuration file.')

/** The validated configuration, defaults applied. */
export type GatehouseConfig = z.output<typeof GatehouseConfigSchema>
/** The configuration as written by a user. */
export type GatehouseConfigInput = z.input<typeof GatehouseConfigSchema>
/** A validated JWT provider. */
export type JwtProviderConfig = z.output<typeof JwtProviderSchema>
/** A validated `jwtAuthentication.opaqueTokens` block (docs/idp/opaque-tokens.md). */
export type OpaqueTokensConfig = z.output<typeof OpaqueTokensSchema>
/** A validated `mcp` block. */
export type McpAuthConfig = z.output<typeof McpAuthSchema>
/** `mcp.upstream`, validated. */
export type McpUpstreamConfig = z.output<typeof McpUpstreamSchema>
/** A validated `mcp.broker` block (broker mode, docs/design/broker.md). */
export type BrokerConfig = z.output<typeof BrokerSchema>
/** A validated `mcp.broker.store.redis` block. */
export type BrokerRedisStoreConfig = z.output<typeof BrokerRedisStoreSchema>
/** A validated `mcp.originValidation` block. */
export type OriginValidationConfig = z.output<typeof OriginValidationSchema>
/** A validated CORS filter. */
export type CorsConfig = z.output<typeof CorsFilterSchema>
/** A validated `mcpAuthorization` rule. */
export type McpAuthorizationRuleConfig = z.output<typeof McpAuthorizationRuleSchema>
/** A validated `localRateLimit` entry. */
export type LocalRateLimitEntry = z.output<typeof LocalRateLimitSchema>
/** Validated `gateways.<name>.limits`. */
export type GatewayLimitsConfig = z.output<typeof GatewayLimitsSchema>
/** Validated `gateways.<name>.tls`. */
export type GatewayTlsConfig = z.output<typeof GatewayTlsSchema>
