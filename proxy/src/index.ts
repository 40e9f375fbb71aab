/**
 * Gatehouse, the reference proxy: protects an MCP server with OAuth 2.0 bearer JWTs from an
 * external identity provider. {@link startGatehouse} runs one from a validated configuration.
 */

import type { Logger } from 'pino'
import type { AdminContext, GatewayInfo } from './admin/context.js'
import { ConditionClock, resourceStatus } from './admin/resource-status.js'
import type { AuthPolicy } from './auth/types.js'
import { buildSnapshot, compileOrThrow } from './compile.js'
import type { GatehouseConfig } from './config/schema.js'
import { type ConfigSource, resourceProblems } from './config/sources.js'
import { configWarnings } from './config/warnings.js'
import { MemorySessionBindings } from './dataplane/session-binding.js'
import { ConfigError } from './errors.js'
import { LiveRuntime } from './live-runtime.js'
import { Reloader, type ReloadRecord, type ReloadTrigger } from './reload.js'
import { createLogging, LogFilterError, type Logging } from './telemetry/logging.js'
import { Metrics } from './telemetry/metrics.js'
import { startTracing, type Tracing } from './telemetry/otel.js'
import { TaskRegistry } from './telemetry/tasks.js'
import { Telemetry } from './telemetry/telemetry.js'
import { TraceBus } from './telemetry/trace-bus.js'
import { VERSION } from './version.js'

export { loadConfigFile, parseConfig } from './config/load.js'
export type { GatehouseConfig, GatehouseConfigInput } from './config/schema.js'
export { type ConfigSource, loadConfigSources } from './config/sources.js'
export { ConfigError, GatehouseError } from './errors.js'
export type { ReloadRecord, ReloadTrigger } from './reload.js'
/** The proxy's version, from its package.json. */
export { VERSION }

/** Options of {@link startGatehouse}. */
export interface StartOptions {
  /** The validated configuration (see `loadConfigFile`). */
  config: Readonly<GatehouseConfig>
  /** The file it came from, for messages. */
  configFile?: string
  /** Logging to use. Default: stdout with `config.logLevel`. */
  logging?: Logging
  /**
   * Where the configuration came from (`loadConfigSources`): Kubernetes resources' findings and
   * translation warnings are logged and reported. Default: a standalone file.
   */
  source?: ConfigSource
  /**
   * Reads the configuration again, for reloads (`gatehouse -f`: the same files, translated and
   * validated, compile checks included). Without it, a reload fails and says so.
   */
  loadConfig?: () => Promise<ConfigSource>
  /** Bind every gateway to a free port instead of the configured one (tests). Default false. */
  ephemeralPorts?: boolean
}

/** A running proxy. */
export interface Gatehouse {
  /** The listening gateways (they change on reload). */
  readonly gateways: readonly GatewayInfo[]
  /** Admin address (`http://127.0.0.1:15000`, `unix:/path`) or undefined when `off`. */
  readonly adminUrl: string | undefined
  readonly logging: Logging
  /** Compiled policies by name, with their live status (what `/config_dump` reports). */
  policies(): ReadonlyMap<string, AuthPolicy>
  /**
   * Reloads the configuration through `loadConfig` (validated and compiled before it replaces
   * the running one; on failure the running one stays). Resolves with the outcome.
   */
  reload(trigger?: ReloadTrigger): Promise<ReloadRecord>
  /** Graceful stop: stop accepting, drain in-flight requests (bounded), close everything. */
  stop(reason?: string): Promise<void>
  /** Resolves with the reason once stopped (by {@link Gatehouse.stop} or `/quitquitquit`). */
  readonly stopped: Promise<string>
}

/**
 * Starts the proxy: compiles the configuration, fetches key sets (bounded), opens the
 * gateways, then the admin interface.
 * @throws ConfigError when the configuration does not compile; GatehouseError GW_ERR_LISTEN when
 * a port cannot be bound (nothing is left running).
 */
export async function startGatehouse(options: StartOptions): Promise<Gatehouse> {
  const { config } = options
  let logging: Logging
  try {
    logging = options.logging ?? createLogging({ filter: config.config.logLevel })
  } catch (err) {
    if (err instanceof LogFilterError) {
      throw new ConfigError(
        'GW_ERR_CONFIG_INVALID',
        [{ path: 'config.logLevel', message: err.message }],
        options.configFile,
        { cause: err },
      )
    }
    throw err
  }
  const compiled = await compileOrThrow(config, options.configFile, options.source?.locate)
  const log = logging.logger('proxy::dataplane')
  const tasks = new TaskRegistry()
  const traceBus = new TraceBus()
  // One store for every gateway (two gateways may reach the same backend), kept across reloads.
  const sessions = new MemorySessionBindings()
  const snapshot = await buildSnapshot(compiled, { logging, tasks })
  // Before the policies start, so that their first JWKS fetches are counted.
  const telemetry = new Telemetry({
    metrics: new Metrics({ issuers: issuersOf(config) }),
    logging,
    tracing: await tracingOrNone(logging),
  })
  const configLog = logging.logger('proxy::config')
  if (options.source) logFindings(configLog, options.source)
  else {
    for (const w of configWarnings(config))
      configLog.warn({ path: w.path }, `${w.path}: ${w.message}`)
  }
  const startedAt = new Date()
  const clock = new ConditionClock()
  const live = new LiveRuntime(
    {
      logging,
      tasks,
      traceBus,
      telemetry,
      sessions,
      log,
      ephemeralPorts: options.ephemeralPorts ?? false,
    },
    config,
    options.source,
    snapshot,
  )

  let admin: { url: string; close(): Promise<void> } | undefined
  const closeAll = async (drainMs: number) => {
    reloader.close()
    await live.close(drainMs)
    await telemetry.close().catch((err: unknown) => {
      log.warn({ err: (err as Error).message }, 'telemetry did not shut down cleanly')
    })
  }

  let resolveStopped!: (reason: string) => void
  const stopped = new Promise<string>((r) => (resolveStopped = r))
  let stopping: Promise<void> | undefined

  const reloader = new Reloader({
    log: configLog,
    reload: async () => {
      if (!options.loadConfig) {
        throw new Error('this proxy was started without a configuration source to reload')
      }
      const source = await options.loadConfig()
      warnStartOnly(configLog, live.config, source.config)
      // Before the new policies start, so that their first JWKS fetches are counted.
      telemetry.metrics.setIssuers([...issuersOf(live.config), ...issuersOf(source.config)])
      const outcome = await live.apply(source.config, source)
      telemetry.metrics.setIssuers(issuersOf(live.config))
      if (outcome === 'success') logFindings(configLog, source)
      return outcome
    },
    onResult: (r) => telemetry.metrics.configReloads.inc({ result: r.result }),
  })

  try {
    await live.open()
  } catch (err) {
    await closeAll(0)
    throw err
  }

  const stop = (reason = 'stop requested'): Promise<void> => {
    stopping ??= (async () => {
      const drainMs = live.config.config.drainTimeout.ms
      log.info(
        { reason, drainMs },
        'shutting down: no new connections, draining in-flight requests',
      )
      await closeAll(drainMs)
      await admin?.close()
      log.info({ reason }, 'stopped')
      resolveStopped(reason)
    })()
    return stopping
  }

  if (config.config.adminAddr !== 'off') {
    const { startAdmin } = await import('./admin/server.js')
    const ctx: AdminContext = {
      config: () => live.config,
      policies: () => live.snapshot.policies,
      gateways: () => live.gateways(),
      resources: () =>
        resourceStatus(
          live.source?.resources ?? [],
          {
            config: live.config,
            policies: live.snapshot.policies,
            listening: new Map(live.gateways().map((g) => [g.name, g.routes])),
            controllerName: `${live.source?.apiGroup ?? 'gateway.example.dev'}/gatehouse`,
          },
          clock,
        ),
      ...(options.loadConfig ? { reload: () => reloader.request('admin') } : {}),
      lastReload: () => reloader.last,
      traceBus,
      logging,
      tasks,
      metrics: telemetry.metrics,
      startedAt,
      version: VERSION,
      shutdown: (reason) => stop(reason),
    }
    try {
      admin = await startAdmin(config.config.adminAddr, ctx)
    } catch (err) {
      await closeAll(0)
      throw err
    }
  }

  const gateways = live.gateways()
  log.info(
    {
      gateways: gateways.map((g) => ({ name: g.name, url: g.url, routes: g.routes })),
      admin: admin?.url ?? 'off',
      version: VERSION,
    },
    `gatehouse listening: ${gateways.map((g) => `${g.name} ${g.url}`).join(', ')}; admin ${admin?.url ?? 'off'}`,
  )
  if (admin) log.info({ ui: `${admin.url}/ui` }, `UI served at ${admin.url}/ui`)

  return {
    get gateways() {
      return live.gateways()
    },
    get adminUrl() {
      return admin?.url
    },
    logging,
    policies: () => live.snapshot.policies,
    reload: (trigger = 'api') => reloader.request(trigger),
    stop,
    stopped,
  }
}

/** Logs translation warnings and the resources that are not served. */
function logFindings(configLog: Logger, source: ConfigSource): void {
  for (const w of [...source.warnings, ...configWarnings(source.config).map(source.locate)]) {
    configLog.warn({ path: w.path }, `${w.path}: ${w.message}`)
  }
  for (const p of resourceProblems(source.resources)) {
    configLog.error({ resource: p.path }, `${p.path}: ${p.message}`)
  }
}

/** Seed: the admin address is read at start-up only; so is the initial log filter. */
function warnStartOnly(
  configLog: Logger,
  running: Readonly<GatehouseConfig>,
  next: Readonly<GatehouseConfig>,
): void {
  for (const key of ['adminAddr', 'logLevel'] as const) {
    if (running.config[key] === next.config[key]) continue
    configLog.warn(
      { path: `config.${key}`, running: running.config[key], configured: next.config[key] },
      `config.${key} changed to ${next.config[key]}, but it is read at start-up only: ${running.config[key]} stays in force until restart${key === 'logLevel' ? ' (POST /logging changes the level at runtime)' : ''}`,
    )
  }
}

/** The issuers of the configured policies (the JWKS refreshes this proxy counts). */
function issuersOf(config: Readonly<GatehouseConfig>): string[] {
  return Object.values(config.policies).flatMap(
    (p) => p.traffic.jwtAuthentication?.providers.map((provider) => provider.issuer) ?? [],
  )
}

/** OpenTelemetry when OTEL_* asks for it; a failure to start it is logged, not fatal. */
async function tracingOrNone(logging: Logging): Promise<Tracing | undefined> {
  try {
    return await startTracing(process.env)
  } catch (err) {
    logging
      .logger('proxy::telemetry')
      .error(
        { err: (err as Error).message },
        'OpenTelemetry tracing was requested (OTEL_* environment) but could not start; running without traces',
      )
    return undefined
  }
}
