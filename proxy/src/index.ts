/**
 * Gatehouse, the reference proxy: protects an MCP server with OAuth 2.0 bearer JWTs from an
 * external identity provider. {@link startGatehouse} runs one from a validated configuration.
 */
import type { AdminContext, GatewayInfo } from './admin/context.js'
import type { AuthPolicy } from './auth/types.js'
import { checkCompilable, compileSnapshot } from './compile.js'
import type { GatehouseConfig } from './config/schema.js'
import { configWarnings } from './config/warnings.js'
import { type Listener, startListener } from './dataplane/listener.js'
import { createPipeline } from './dataplane/pipeline.js'
import { MemorySessionBindings } from './dataplane/session-binding.js'
import { ConfigError } from './errors.js'
import { createLogging, LogFilterError, type Logging } from './telemetry/logging.js'
import { Metrics } from './telemetry/metrics.js'
import { startTracing, type Tracing } from './telemetry/otel.js'
import { TaskRegistry } from './telemetry/tasks.js'
import { Telemetry } from './telemetry/telemetry.js'
import { TraceBus } from './telemetry/trace-bus.js'
import { VERSION } from './version.js'

export { loadConfigFile, parseConfig } from './config/load.js'
export type { GatehouseConfig, GatehouseConfigInput } from './config/schema.js'
export { ConfigError, GatehouseError } from './errors.js'
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
  /** Bind every gateway to a free port instead of the configured one (tests). Default false. */
  ephemeralPorts?: boolean
}

/** A running proxy. */
export interface Gatehouse {
  readonly gateways: readonly GatewayInfo[]
  /** Admin address (`http://127.0.0.1:15000`, `unix:/path`) or undefined when `off`. */
  readonly adminUrl: string | undefined
  readonly logging: Logging
  /** Compiled policies by name, with their live status (what `/config_dump` reports). */
  policies(): ReadonlyMap<string, AuthPolicy>
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
  await checkCompilable(config, options.configFile)
  const log = logging.logger('proxy::dataplane')
  const tasks = new TaskRegistry()
  const traceBus = new TraceBus()
  // One store for every gateway: two gateways may reach the same backend.
  const sessions = new MemorySessionBindings()
  const snapshot = await compileSnapshot(config, { logging, tasks })
  // Before the policies start, so that their first JWKS fetches are counted.
  const telemetry = new Telemetry({
    metrics: new Metrics({ issuers: issuersOf(config) }),
    logging,
    tracing: await tracingOrNone(logging),
  })
  for (const w of configWarnings(config)) {
    logging.logger('proxy::config').warn({ path: w.path }, `${w.path}: ${w.message}`)
  }
  const startedAt = new Date()

  const listeners: Listener[] = []
  let admin: { url: string; close(): Promise<void> } | undefined
  const closeAll = async (drainMs: number) => {
    await Promise.allSettled(listeners.map((l) => l.close(drainMs)))
    for (const p of snapshot.policies.values()) p.stop()
    await Promise.allSettled([...snapshot.upstreams.values()].map((u) => u.close()))
    await telemetry.close().catch((err: unknown) => {
      log.warn({ err: (err as Error).message }, 'telemetry did not shut down cleanly')
    })
  }

  let resolveStopped!: (reason: string) => void
  const stopped = new Promise<string>((r) => (resolveStopped = r))
  let stopping: Promise<void> | undefined
  const drainMs = config.config.drainTimeout.ms

  try {
    await Promise.all([...snapshot.policies.values()].map((p) => p.start()))
    for (const [name, gw] of Object.entries(config.gateways)) {
      const runtime = snapshot.gateways.get(name)
      if (!runtime) continue
      const handle = createPipeline(() => runtime, {
        traceBus,
        tasks,
        logging,
        telemetry,
        sessions,
      })
      listeners.push(
        await startListener({
          name,
          address: gw.address,
          port: options.ephemeralPorts ? 0 : gw.port,
          limits: gw.limits,
          handle,
          tasks,
          log,
        }),
      )
    }
  } catch (err) {
    await closeAll(0)
    throw err
  }

  const gateways: GatewayInfo[] = listeners.map((l) => ({
    name: l.name,
    address: l.address,
    port: l.port,
    url: l.url,
    routes: snapshot.routesOf.get(l.name) ?? [],
  }))

  const stop = (reason = 'stop requested'): Promise<void> => {
    stopping ??= (async () => {
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
      config: () => config,
      policies: () => snapshot.policies,
      gateways: () => gateways,
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
    gateways,
    get adminUrl() {
      return admin?.url
    },
    logging,
    policies: () => snapshot.policies,
    stop,
    stopped,
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
