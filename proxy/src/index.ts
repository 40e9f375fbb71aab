// Over 300 lines but one job (wiring one gatehouse process at start-up): kept whole.
/**
 * Gatehouse, the reference proxy: protects an MCP server with OAuth 2.0 bearer JWTs from an
 * external identity provider. {@link startGatehouse} runs one from a validated configuration.
 */

import type { Logger } from 'pino'
import type { AdminContext, GatewayInfo } from './admin/context.js'
import { ConditionClock, resourceStatus } from './admin/resource-status.js'
import { GatewayUi } from './admin/ui/gateway-view.js'
import type { AuthPolicy } from './auth/types.js'
import type { IpcPeer } from './cluster/ipc.js'
import type { GatehouseConfig } from './config/schema.js'
import { type ConfigSource, resourceProblems } from './config/sources.js'
import { configWarnings } from './config/warnings.js'
import { MemorySessionBindings, type SessionBindings } from './dataplane/session-binding.js'
import { ConfigError } from './errors.js'
import { buildSnapshot, compileOrThrow } from './lifecycle/compile.js'
import { LiveRuntime } from './lifecycle/live-runtime.js'
import { Reloader, type ReloadRecord, type ReloadTrigger } from './lifecycle/reload.js'
import type { SharedBuckets } from './mcp/local-rate-limit.js'
import type { RateLimitDecision } from './mcp/rate-limit-decision.js'
import { createLogging, LogFilterError, type Logging } from './telemetry/logging.js'
import { startIdleTrim } from './telemetry/memory-trim.js'
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
export type { ReloadRecord, ReloadTrigger } from './lifecycle/reload.js'
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
  /**
   * The state directory: a broker policy without a `store` block keeps its state in
   * `<stateDir>/state.sqlite` (created 0700/0600; needs node:sqlite, Node.js 22.5+). `gatehouse`
   * sets it from `--state-dir`, `$GATEHOUSE_STATE_DIR`, or `.gatehouse` beside the first `-f`
   * file. Absent (the library used without a configuration file), such a broker keeps its state
   * in memory, lost on restart.
   */
  stateDir?: string
  /** Bind every gateway to a free port instead of the configured one (tests). Default false. */
  ephemeralPorts?: boolean
  /**
   * The cluster primary, when this process is one of its workers (`config.workers` above 1,
   * `gatehouse` sets it): rate-limit buckets and MCP session bindings are the primary's, and the
   * admin interface is the primary's, which reaches this worker over IPC.
   */
  primary?: IpcPeer
  /**
   * Run a full garbage collection whenever the process falls idle, giving memory back to the
   * operating system (telemetry/memory-trim.ts). For a process that is the gateway (`gatehouse`
   * sets it); an embedder sharing the process decides for itself. Default false.
   */
  trimWhenIdle?: boolean
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
 * gateways, then the admin interface (or, in a cluster worker, answers the primary's).
 * @throws ConfigError when the configuration does not compile; GatehouseError GW_ERR_LISTEN when
 * a port cannot be bound (nothing is left running).
 */
export async function startGatehouse(options: StartOptions): Promise<Gatehouse> {
  const { config } = options
  const logging = loggingFor(options)
  const compiled = await compileOrThrow(config, options.configFile, options.source?.locate)
  const services = await startServices(options, logging)
  const gatewayUi = new GatewayUi()
  const live = new LiveRuntime(
    { ...services, ephemeralPorts: options.ephemeralPorts ?? false, gatewayUi },
    config,
    options.source,
    await buildSnapshot(compiled, services),
  )
  const reloader = createReloader(options, live, services)
  let admin: AdminHandle | undefined
  const lifecycle = shutdownOf(live, services, reloader, () => admin)
  try {
    await live.open()
    const ctx = adminContext(options, live, services, reloader, lifecycle)
    gatewayUi.attach(ctx)
    admin = await openAdmin(options, ctx)
  } catch (err) {
    await lifecycle.closeAll(0)
    throw err
  }
  announce(options, live, services.log, admin)
  if (options.trimWhenIdle) {
    const { tasks, log } = services
    const trim = startIdleTrim({
      activity: () => tasks.activity(),
      inFlight: () => tasks.inFlight(),
      onTrim: ({ ms, rssBefore, rssAfter }) =>
        log.debug({ ms: Math.round(ms), rssBefore, rssAfter }, 'idle: memory given back'),
    })
    void lifecycle.stopped.then(() => trim.stop())
  }

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
    stop: lifecycle.stop,
    stopped: lifecycle.stopped,
  }
}

/**
 * Graceful stop, once: the reloader closes, listeners drain for `drainTimeout`, telemetry and the
 * admin interface close; `stopped` resolves with the reason. `closeAll(0)` undoes a failed start.
 */
function shutdownOf(
  live: LiveRuntime,
  services: Services,
  reloader: Reloader,
  admin: () => AdminHandle | undefined,
): {
  stop(reason?: string): Promise<void>
  stopped: Promise<string>
  closeAll(drainMs: number): Promise<void>
  draining(): boolean
} {
  const { telemetry, log } = services
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
  const stop = (reason = 'stop requested'): Promise<void> => {
    stopping ??= (async () => {
      const drainMs = live.config.config.drainTimeout.ms
      log.info(
        { reason, drainMs },
        'shutting down: no new connections, draining in-flight requests',
      )
      await closeAll(drainMs)
      await admin()?.close()
      log.info({ reason }, 'stopped')
      resolveStopped(reason)
    })()
    return stopping
  }
  return { stop, stopped, closeAll, draining: () => stopping !== undefined }
}

/** What a running proxy holds besides its configuration. */
interface Services {
  logging: Logging
  log: Logger
  configLog: Logger
  tasks: TaskRegistry
  traceBus: TraceBus
  telemetry: Telemetry
  sessions: SessionBindings
  sharedBuckets: SharedBuckets | undefined
  startedAt: Date
  clock: ConditionClock
  stateDir: string | undefined
}

interface AdminHandle {
  url: string
  close(): Promise<void>
}

/** The logging of `options`, or one with `config.logLevel` (a bad filter is a config error). */
function loggingFor(options: StartOptions): Logging {
  if (options.logging) return options.logging
  try {
    return createLogging({ filter: options.config.config.logLevel })
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
}

/**
 * Telemetry, the trace bus, the task registry and the MCP session bindings (in a cluster worker:
 * the primary's, with its rate-limit buckets), then the configuration's warnings.
 */
async function startServices(options: StartOptions, logging: Logging): Promise<Services> {
  const { config, primary } = options
  const configLog = logging.logger('proxy::config')
  const services: Services = {
    logging,
    log: logging.logger('proxy::dataplane'),
    configLog,
    tasks: new TaskRegistry(),
    traceBus: new TraceBus(),
    // Before the policies start, so that their first JWKS fetches are counted.
    telemetry: new Telemetry({
      metrics: new Metrics({ issuers: issuersOf(config) }),
      logging,
      tracing: await tracingOrNone(logging),
    }),
    // One store for every gateway (two gateways may reach the same backend), kept across reloads.
    sessions: primary ? primarySessions(primary) : new MemorySessionBindings(),
    sharedBuckets: primary
      ? { decide: (wants) => primary.call<RateLimitDecision>('limits.decide', [wants]) }
      : undefined,
    startedAt: new Date(),
    clock: new ConditionClock(),
    stateDir: options.stateDir,
  }
  if (options.source) logFindings(configLog, options.source)
  else {
    for (const w of configWarnings(config))
      configLog.warn({ path: w.path }, `${w.path}: ${w.message}`)
  }
  return services
}

/** MCP session bindings the cluster primary holds for every worker. */
function primarySessions(primary: IpcPeer): SessionBindings {
  return {
    owner: async (session) =>
      (await primary.call<string | null>('sessions.owner', [session])) ?? undefined,
    bind: async (session, principal) =>
      (await primary.call<string | null>('sessions.bind', [session, principal])) ?? undefined,
    forget: async (session) => {
      await primary.call('sessions.forget', [session])
    },
  }
}

/** Reloads through `options.loadConfig`, one at a time, counted in the metrics. */
function createReloader(options: StartOptions, live: LiveRuntime, services: Services): Reloader {
  const { configLog, telemetry } = services
  return new Reloader({
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
}

/** What the admin interface sees of this proxy. */
function adminContext(
  options: StartOptions,
  live: LiveRuntime,
  services: Services,
  reloader: Reloader,
  lifecycle: { stop(reason: string): Promise<void>; draining(): boolean },
): AdminContext {
  return {
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
        services.clock,
      ),
    ...(options.loadConfig ? { reload: () => reloader.request('admin') } : {}),
    lastReload: () => reloader.last,
    traceBus: services.traceBus,
    logging: services.logging,
    tasks: services.tasks,
    metrics: services.telemetry.metrics,
    startedAt: services.startedAt,
    version: VERSION,
    draining: lifecycle.draining,
    shutdown: (reason) => lifecycle.stop(reason),
  }
}

/**
 * The admin interface on `config.adminAddr`; in a cluster worker none binds: the primary's
 * reaches this one over IPC, told that the gateways listen.
 */
async function openAdmin(
  options: StartOptions,
  ctx: AdminContext,
): Promise<AdminHandle | undefined> {
  if (options.primary) {
    const { serveAdminOverIpc } = await import('./admin/worker-agent.js')
    serveAdminOverIpc(options.primary, ctx)
    options.primary.notify('worker.ready', [ctx.gateways()])
    return undefined
  }
  const addr = options.config.config.adminAddr
  if (addr === 'off') return undefined
  const { startAdmin } = await import('./admin/server.js')
  return startAdmin(addr, ctx)
}

/** The "listening" line (a cluster worker's says which worker it is). */
function announce(
  options: StartOptions,
  live: LiveRuntime,
  log: Logger,
  admin: AdminHandle | undefined,
): void {
  const gateways = live.gateways()
  const where = gateways.map((g) => `${g.name} ${g.url}`).join(', ')
  const fields = {
    gateways: gateways.map((g) => ({ name: g.name, url: g.url, routes: g.routes })),
    admin: admin?.url ?? 'off',
    version: VERSION,
  }
  if (options.primary) {
    log.info(fields, `worker ${process.pid} serving: ${where}`)
    return
  }
  log.info(fields, `gatehouse listening: ${where}; admin ${admin?.url ?? 'off'}`)
  if (admin) log.info({ ui: `${admin.url}/ui` }, `UI served at ${admin.url}/ui`)
  const ui = live.config.ui
  const uiGateway = gateways.find((g) => g.name === ui?.gateway)
  if (ui && uiGateway) {
    const url = `${uiGateway.url}${ui.path}`
    log.info({ ui: url }, `read-only UI served at ${url} (gateway ${uiGateway.name})`)
  }
}

/** Logs translation warnings and the resources that are not served. */
function logFindings(configLog: Logger, source: ConfigSource): void {
  const own = source.configWarnings ?? configWarnings(source.config).map(source.locate)
  for (const w of [...source.warnings, ...own]) {
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
  for (const key of ['adminAddr', 'logLevel', 'workers'] as const) {
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
