/**
 * The cluster primary (`config.workers` above 1, docs/design/performance.md): runs N node:cluster workers
 * that each serve every gateway on the same ports (the primary accepts the connections and hands
 * them out), and serves the single admin interface itself. It does not serve data-plane traffic.
 *
 * What the workers share is held here and reached over IPC: the local rate-limit buckets (a limit
 * of N admits N in total, whichever worker a request lands on) and the MCP session bindings (a
 * session opened through one worker is recognised on the next). The broker's state is shared
 * through `store.redis` (`config/workers.ts` refuses the memory store with several workers).
 *
 * The configuration too is the primary's: it reads and compiles the files (at start and for every
 * reload, so a broken file is refused here), and a worker, when it starts or reloads, asks the
 * primary for the files' text it last accepted (`config.inputs`) instead of reading the disk. A
 * worker restarted after a refused edit therefore starts from the configuration the others serve,
 * not from the broken file (docs/reliability.md, "Workers").
 */
import type { AdminContext } from '../admin/context.js'
import type { IpcPeer } from '../cluster/ipc.js'
import type { GatehouseConfig } from '../config/schema.js'
import type { ConfigSource } from '../config/sources.js'
import { MemorySessionBindings } from '../dataplane/session-binding.js'
import { GatehouseError } from '../errors.js'
import { BucketTable, type LimitWant } from '../mcp/rate-limit-decision.js'
import { Reloader, type ReloadRecord, type ReloadTrigger } from '../reload.js'
import { createLogging, type Logging } from '../telemetry/logging.js'
import { TaskRegistry } from '../telemetry/tasks.js'
import { TraceBus } from '../telemetry/trace-bus.js'
import { VERSION } from '../version.js'
import { Fleet } from './fleet.js'

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  config: Readonly<GatehouseConfig>
  /** Where `config` came from: its files' text is what the workers load. */
  source: ConfigSource
  /** Workers to run (`workerCount(config)`). */
  workers: number
  /** Reads and validates the configuration again (each worker then reloads its own). */
  loadConfig?: () => Promise<ConfigSource>
}

/** A running primary. */
export interface ClusterPrimary {
  readonly adminUrl: string | undefined
  readonly logging: Logging
  readonly fleet: Fleet
  /** Validates the configuration here, then reloads every worker. */
  reload(trigger?: ReloadTrigger): Promise<ReloadRecord>
  /** Stops every worker (each drains), then the admin interface. */
  stop(reason?: string): Promise<void>
  readonly stopped: Promise<string>
}

/**
 * Starts the workers, waits until every one listens, then opens the admin interface.
 * @throws GatehouseError GW_ERR_INTERNAL when a worker exits before it is ready (it wrote why).
 */
export async function startCluster(options: ClusterOptions): Promise<ClusterPrimary> {
  let { config } = options
  /** The files' text of the configuration accepted last: what a starting worker loads. */
  let accepted = options.source.inputs
  const logging = createLogging({ filter: config.config.logLevel })
  const shared = serveSharedState()
  const log = logging.logger('proxy::dataplane')
  const fleet = new Fleet({
    size: options.workers,
    log,
    serve: (peer) => {
      shared(peer)
      peer.handle('config.inputs', () => accepted)
    },
    // A restarted worker starts with config.logLevel: it gets the filter POST /logging set.
    onReady: (peer) => {
      if (logging.filter() === config.config.logLevel) return
      peer.call('admin.logging', [logging.filter()]).catch((err: unknown) => {
        log.warn({ err: (err as Error).message }, 'a restarted worker kept config.logLevel')
      })
    },
  })
  const reloader = new Reloader({
    log: logging.logger('proxy::config'),
    reload: async () => {
      if (!options.loadConfig) {
        throw new Error('this proxy was started without a configuration source to reload')
      }
      // Refused here first, so a broken file never reaches the workers.
      const source = await options.loadConfig()
      // Before the workers reload: each asks for it, and a worker that restarts from now on starts
      // from it.
      accepted = source.inputs
      const { clusterReload } = await import('../admin/cluster.js')
      const outcome = await clusterReload(fleet)
      config = source.config
      return outcome
    },
  })
  const grace = () => config.config.drainTimeout.ms + 10_000
  try {
    await fleet.start()
  } catch (err) {
    throw new GatehouseError('GW_ERR_INTERNAL', (err as Error).message, { cause: err })
  }

  let resolveStopped!: (reason: string) => void
  const stopped = new Promise<string>((r) => (resolveStopped = r))
  let stopping: Promise<void> | undefined
  let admin: { url: string; close(): Promise<void> } | undefined
  const stop = (reason = 'stop requested'): Promise<void> => {
    stopping ??= (async () => {
      log.info({ reason }, `shutting down: every worker drains its in-flight requests`)
      reloader.close()
      await fleet.stop(reason, grace())
      await admin?.close()
      log.info({ reason }, 'stopped')
      resolveStopped(reason)
    })()
    return stopping
  }

  if (config.config.adminAddr !== 'off') {
    const { startAdmin } = await import('../admin/server.js')
    try {
      admin = await startAdmin(
        config.config.adminAddr,
        primaryContext(() => config, options, fleet, logging, reloader, stop),
      )
    } catch (err) {
      await fleet.stop('the admin interface did not start', grace())
      throw err
    }
  }
  const gateways = fleet.gateways()
  log.info(
    { gateways, admin: admin?.url ?? 'off', workers: options.workers, version: VERSION },
    `gatehouse listening: ${gateways.map((g) => `${g.name} ${g.url}`).join(', ')}; admin ${admin?.url ?? 'off'}; ${options.workers} workers`,
  )
  return {
    get adminUrl() {
      return admin?.url
    },
    logging,
    fleet,
    reload: (trigger = 'api') => reloader.request(trigger),
    stop,
    stopped,
  }
}

/** What the workers call on the primary: rate-limit decisions and MCP session bindings. */
function serveSharedState(): (peer: IpcPeer) => void {
  const buckets = new BucketTable()
  const sessions = new MemorySessionBindings()
  return (peer) => {
    peer.handle('limits.decide', (wants: LimitWant[]) => buckets.decide(wants))
    peer.handle('sessions.owner', (session: string) => sessions.owner(session))
    peer.handle('sessions.bind', (session: string, principal: string) =>
      sessions.bind(session, principal),
    )
    peer.handle('sessions.forget', (session: string) => sessions.forget(session))
  }
}

/** The admin interface's view of the cluster: every endpoint answers for the workers. */
function primaryContext(
  config: () => Readonly<GatehouseConfig>,
  options: ClusterOptions,
  fleet: Fleet,
  logging: Logging,
  reloader: Reloader,
  stop: (reason: string) => Promise<void>,
): AdminContext {
  return {
    config,
    // The compiled policies live in the workers: /config_dump asks them.
    policies: () => new Map(),
    gateways: () => fleet.gateways(),
    ...(options.loadConfig ? { reload: () => reloader.request('admin') } : {}),
    lastReload: () => reloader.last,
    traceBus: new TraceBus(),
    logging,
    tasks: new TaskRegistry(),
    startedAt: new Date(),
    version: VERSION,
    cluster: fleet,
    shutdown: (reason) => stop(reason),
  }
}
