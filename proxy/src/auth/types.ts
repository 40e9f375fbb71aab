/**
 * The contract between the dataplane and the auth layer. The dataplane compiles one
 * {@link AuthPolicy} per configured policy at load time and calls it per request; it never
 * reads raw policy configuration itself.
 */
import type { pino } from 'pino'
import type { CelCompiler } from '../config/cel.js'
import type { UpstreamSettings } from '../config/idp-presets.js'
import type { GatehouseConfig, McpAuthConfig, PolicyConfig } from '../config/schema.js'
import type { LocalRequest, LocalResponse } from '../http/local-response.js'
import type { Upstream } from '../http/upstream.js'
import type { Logging } from '../telemetry/logging.js'
import type { TaskRegistry } from '../telemetry/tasks.js'
import type { AuthFailure } from '../telemetry/trace-events.js'
import type { DiscoveryCache } from './discovery.js'
import type { OriginPools } from './origin-pools.js'

/** Status of a policy as reported by `/config_dump` (seed: conditions Accepted, Attached). */
export interface PolicyStatus {
  /** The policy is valid and was translated. */
  accepted: boolean
  /** The policy is enforced on the data plane (e.g. its key set is available). */
  programmed: boolean
  /** CamelCase reason, e.g. `Programmed`, `JwksUnavailable`. */
  reason: string
  /** Human-readable detail (issuer, URL and cause when keys are missing). */
  message: string
  /**
   * Set while the keys are loaded but their last refresh failed (last-known-good keys in use):
   * the key set's URL and the cause. Readiness reports it (./readiness.ts).
   */
  refreshError?: string
}

/**
 * Broker mode's endpoints of one policy (`mcp.broker`, docs/design/broker.md). Built by `broker/`, which
 * builds on this layer, so this layer only knows this shape (no import cycle).
 */
export interface BrokerExtension {
  /** The broker's issuer (RFC 8414 §2), which the protected-resource metadata names. */
  readonly issuer: string
  /** Answers the broker's metadata and `<issuer>/oauth/*`; `undefined` for other paths. */
  serve(req: LocalRequest): Promise<LocalResponse | undefined>
  /** Releases the store (the Redis connection). */
  close(): Promise<void>
  /** A view for `/config_dump`: no secret. */
  dump(): Record<string, unknown>
  /**
   * MCP session bindings kept in the broker's store when it persists (SQLite, Redis): the routes
   * of this policy bind sessions there, so bindings survive a restart. Absent: the process's.
   */
  readonly sessions?: SessionBindingStore | undefined
}

/** Where MCP session bindings live (the shape of `dataplane/session-binding.ts`'s interface). */
export interface SessionBindingStore {
  owner(session: string): Promise<string | undefined>
  bind(session: string, principal: string): Promise<string | undefined>
  forget(session: string): Promise<void>
}

/** What a broker is built from: the policy's `mcp` block and its first provider. */
export interface BrokerInputs {
  mcp: McpAuthConfig
  idpIssuer: string
  audience: string | undefined
  discovery: DiscoveryCache
  orgUpstream: Upstream | undefined
  /** Pools to the IdP's hosts, for endpoints fetched at their own URLs. */
  pools?: OriginPools | undefined
  /** `providers[0]`'s preset merged with `mcp.upstream` and `broker.upstreamClient.scopes`. */
  settings: UpstreamSettings
  log: pino.Logger
  /** Where a broker without a `store` block keeps its SQLite file (`StartOptions.stateDir`). */
  stateDir?: string | undefined
}

/** What the auth layer needs from the rest of the proxy. */
export interface AuthContext {
  /** The whole validated configuration (for backends and routes the policy refers to). */
  config: Readonly<GatehouseConfig>
  /** Upstream pools by backend name (JWKS backends included). */
  upstreams: ReadonlyMap<string, Upstream>
  logging: Logging
  tasks: TaskRegistry
  /** Builds broker mode for a policy with `mcp.broker` (set by `compile.ts`). */
  createBroker?: ((inputs: BrokerInputs) => BrokerExtension) | undefined
  /** The state directory of the default broker store (`StartOptions.stateDir`). */
  stateDir?: string | undefined
  /**
   * The CEL compiler of the compilation the policy belongs to (`CompiledConfig.cel`), holding the
   * programs `compile` checked. Absent: the policy compiles its expressions with its own.
   */
  cel?: CelCompiler | undefined
}

/**
 * The request as the authentication and authorization stages see it: a view of
 * {@link LocalRequest}.
 */
export type AuthStageRequest = Pick<
  LocalRequest,
  'method' | 'path' | 'headers' | 'headersDistinct' | 'trace' | 'remoteAddress'
>

/** The outcome of authentication + authorization. */
export type AuthResult =
  | {
      ok: true
      claims?: Readonly<Record<string, unknown>>
      /** Header changes for the request to the backend (policy `transformations`). */
      requestHeaders?: { set: Record<string, string>; remove: string[] }
    }
  | {
      ok: false
      response: LocalResponse
      /** Why: a failed authentication check, or `rules` (route authorization refused it). */
      reason: AuthFailure
    }

/** One compiled policy. */
export interface AuthPolicy {
  readonly name: string
  /** Current status; changes when keys become (un)available. */
  status(): PolicyStatus
  /**
   * Serves the unauthenticated MCP OAuth endpoints of this policy (protected-resource metadata,
   * authorization-server metadata, client registration) when the path is one of them.
   * @returns the response, or `undefined` when the path is not an OAuth endpoint.
   */
  serveOAuth(req: LocalRequest): Promise<LocalResponse | undefined>
  /** Authenticates (401) and authorizes (403) a request. */
  authenticate(req: AuthStageRequest): Promise<AuthResult>
  /** First key-set and discovery fetches; resolves when they finished or gave up (bounded). */
  start(): Promise<void>
  /** Stops refresh timers. */
  stop(): void
  /** A view for `/config_dump`: no secret, no private key part. */
  dump(): Record<string, unknown>
  /** MCP session bindings of this policy's broker store, when it persists (see BrokerExtension). */
  readonly sessions?: SessionBindingStore | undefined
}

/** Signature of the auth layer's compile function (implemented in `./policy.ts`). */
export type CompileAuthPolicy = (name: string, policy: PolicyConfig, ctx: AuthContext) => AuthPolicy
