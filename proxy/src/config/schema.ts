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
  JwksRemote,
  JwksSource,
  JwtAuthenticationSchema,
  JwtProvider,
  McpAuth,
  OriginValidation,
  ResourceMetadata,
} from './schema/authentication.js'
import { Broker, type BrokerRedisStore } from './schema/broker.js'
import { name } from './schema/common.js'
import {
  BackendConfig,
  BackendRef,
  BackendTls,
  CorsFilter,
  GatewayConfig,
  GatewayLimits,
  PathMatch,
  RouteConfig,
  RouteFilter,
  RouteRule,
} from './schema/listeners.js'
import {
  Authorization,
  LocalRateLimit,
  McpAuthorizationRule,
  McpAuthorizationSchema,
  PolicyConfig,
  TargetRef,
  Transformations,
} from './schema/policies.js'
import { AdminAddr, ProcessConfig } from './schema/process.js'

export type { Duration }
export {
  AdminAddr,
  Authorization,
  BackendConfig,
  BackendRef,
  BackendTls,
  Broker,
  CorsFilter,
  GatewayConfig,
  GatewayLimits,
  JwksRemote,
  JwksSource,
  JwtAuthenticationSchema,
  JwtProvider,
  LocalRateLimit,
  McpAuth,
  McpAuthorizationRule,
  McpAuthorizationSchema,
  OriginValidation,
  PathMatch,
  PolicyConfig,
  ProcessConfig,
  ResourceMetadata,
  RouteConfig,
  RouteFilter,
  RouteRule,
  TargetRef,
  Transformations,
}

/** The whole standalone configuration file: the schema everything else is generated from. */
export const GatehouseConfig = z
  .strictObject({
    config: ProcessConfig.prefault({}),
    gateways: z.record(name, GatewayConfig),
    backends: z.record(name, BackendConfig).prefault({}),
    routes: z.record(name, RouteConfig).default({}),
    policies: z.record(name, PolicyConfig).prefault({}),
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
/** A validated JWT provider. */
export type JwtProviderConfig = z.output<typeof JwtProvider>
/** A validated `mcp` block. */
export type McpAuthConfig = z.output<typeof McpAuth>
/** A validated `mcp.broker` block (broker mode, issue #22). */
export type BrokerConfig = z.output<typeof Broker>
/** A validated `mcp.broker.store.redis` block. */
export type BrokerRedisStoreConfig = z.output<typeof BrokerRedisStore>
/** A validated `mcp.originValidation` block. */
export type OriginValidationConfig = z.output<typeof OriginValidation>
/** A validated CORS filter. */
export type CorsConfig = z.output<typeof CorsFilter>
/** A validated `mcpAuthorization` rule. */
export type McpAuthorizationRuleConfig = z.output<typeof McpAuthorizationRule>
/** A validated `localRateLimit` entry. */
export type LocalRateLimitEntry = z.output<typeof LocalRateLimit>
/** Validated `gateways.<name>.limits`. */
export type GatewayLimitsConfig = z.output<typeof GatewayLimits>
