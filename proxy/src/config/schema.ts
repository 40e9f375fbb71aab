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
  McpAuthSchema,
  OriginValidationSchema,
  ResourceMetadataSchema,
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
            'Gateway to attach the UI to. Accepted and checked (the gateway must exist), not yet supported: --validate and the start-up log warn, and the UI is served under the admin address only.',
          ),
      })
      .optional()
      .describe('Web UI. Served at `<admin address>/ui` whenever the admin interface is on.'),
  })
  .describe('Gatehouse standalone configuration file.')

/** The validated configuration, defaults applied. */
export type GatehouseConfig = z.output<typeof GatehouseConfigSchema>
/** The configuration as written by a user. */
export type GatehouseConfigInput = z.input<typeof GatehouseConfigSchema>
/** A validated JWT provider. */
export type JwtProviderConfig = z.output<typeof JwtProviderSchema>
/** A validated `mcp` block. */
export type McpAuthConfig = z.output<typeof McpAuthSchema>
/** A validated `mcp.broker` block (broker mode, issue #22). */
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
