/**
 * The configuration a running proxy serves, and its replacement on reload. A new configuration
 * is compiled and its new parts started (policies fetch their key sets, added listeners bind)
 * before anything changes; then one assignment per listener swaps the snapshot it reads. A request
 * reads its gateway's snapshot once, when it starts, so requests and MCP streams in flight finish
 * on the configuration they started with. Listeners that went away then drain, and what the new
 * snapshot did not take over is retired (`retireSnapshot`).
 */
import { isDeepStrictEqual } from 'node:util'
import type { Logger } from 'pino'
import type { GatewayInfo } from '../admin/context.js'
import type { GatewayUi } from '../admin/ui/gateway-view.js'
import { configDigest } from '../config/load.js'
import type { GatehouseConfig } from '../config/schema.js'
import type { ConfigSource } from '../config/sources.js'
import { type Listener, startListener } from '../dataplane/listener.js'
import { createPipeline } from '../dataplane/pipeline.js'
import type { GatewayRuntime } from '../dataplane/runtime.js'
import type { SessionBindings } from '../dataplane/session-binding.js'
import type { Logging } from '../telemetry/logging.js'
import type { TaskRegistry } from '../telemetry/tasks.js'
import type { Telemetry } from '../telemetry/telemetry.js'
import type { TraceBus } from '../telemetry/trace-bus.js'
import { buildSnapshot, compileOrThrow, retireSnapshot, type Snapshot } from './compile.js'

/** What the live runtime needs from the proxy around it. */
export interface LiveRuntimeServices {
  logging: Logging
  tasks: TaskRegistry
  traceBus: TraceBus
  telemetry: Telemetry
  /** MCP session bindings, shared by every gateway and kept across reloads. */
  sessions: SessionBindings
  log: Logger
  /** Bind every gateway to a free port (tests). */
  ephemeralPorts: boolean
  /**
   * The read-only UI on the gateway `ui.gateway` names (admin/ui/gateway-view.ts): answers the
   * requests under `ui.path` before the pipeline sees them.
   */
  gatewayUi?: GatewayUi | undefined
  /** Where brokers without a `store` block keep their SQLite file (reloads included). */
  stateDir: string | undefined
}

interface OpenListener {
  listener: Listener
  /** The gateway settings it was opened with. */
  settings: GatehouseConfig['gateways'][string]
  /** What its requests read: swapped on reload. */
  runtime: GatewayRuntime
}

/** How a reload went. */
export type ApplyOutcome = 'success' | 'unchanged'

/** The running configuration and its listeners. */
export class LiveRuntime {
  readonly #services: LiveRuntimeServices
  #config: Readonly<GatehouseConfig>
  /** {@link configDigest} of `#config`: what tells an unchanged configuration on reload. */
  #digest: string
  #source: ConfigSource | undefined
  #snapshot: Snapshot
  #listeners = new Map<string, OpenListener>()

  constructor(
    services: LiveRuntimeServices,
    config: Readonly<GatehouseConfig>,
    source: ConfigSource | undefined,
    snapshot: Snapshot,
  ) {
    this.#services = services
    this.#config = config
    this.#digest = digestOf(config, source)
    this.#source = source
    this.#snapshot = snapshot
    services.traceBus.setSecretHeaders(config.config.redactHeaders)
  }

  /** The configuration in force. */
  get config(): Readonly<GatehouseConfig> {
    return this.#config
  }
  /** Where it came from (findings of Kubernetes resources), when known. */
  get source(): ConfigSource | undefined {
    return this.#source
  }
  /** Its compiled snapshot. */
  get snapshot(): Snapshot {
    return this.#snapshot
  }

  /** The listening gateways and the routes each carries now. */
  gateways(): GatewayInfo[] {
    return [...this.#listeners.values()].map(({ listener: l }) => ({
      name: l.name,
      address: l.address,
      port: l.port,
      url: l.url,
      routes: this.#snapshot.routesOf.get(l.name) ?? [],
    }))
  }

  /** First start: starts the policies and opens every gateway. */
  async open(): Promise<void> {
    await Promise.all([...this.#snapshot.policies.values()].map((p) => p.start()))
    this.#listeners = await this.#openChanged(this.#config, this.#snapshot, new Map())
  }

  /**
   * Replaces the configuration with a validated one. Throws (leaving everything as it was) when
   * the new one cannot be compiled or a new listener cannot bind.
   */
  async apply(
    config: Readonly<GatehouseConfig>,
    source: ConfigSource | undefined,
  ): Promise<ApplyOutcome> {
    // A digest made with the configuration (off the event loop: config/load-thread.ts), so that
    // a reload of thousands of routes does not walk them here.
    const digest = digestOf(config, source)
    if (digest === this.#digest) {
      this.#source = source
      return 'unchanged'
    }
    const previous = this.#snapshot
    const compiled = await compileOrThrow(config, source?.paths.join(', '), source?.locate)
    const next = await buildSnapshot(compiled, this.#services, previous)
    const kept = new Set(previous.policies.values())
    const started = [...next.policies.values()].filter((p) => !kept.has(p))
    let opened: Map<string, OpenListener>
    try {
      await Promise.all(started.map((p) => p.start()))
      opened = await this.#openChanged(config, next, this.#listeners)
    } catch (err) {
      await retireSnapshot(next, previous)
      throw err
    }
    // The swap: from here on, new requests read the new snapshot.
    const old = this.#listeners
    const listeners = new Map<string, OpenListener>()
    for (const name of Object.keys(config.gateways)) {
      const entry = opened.get(name) ?? old.get(name)
      const runtime = next.gateways.get(name)
      if (!entry || !runtime) continue
      entry.runtime = runtime
      entry.settings = config.gateways[name] as OpenListener['settings']
      // The certificates as this reload read them (a kept HTTPS listener serves them from now on).
      const certificates = next.certificates.get(name)
      if (certificates) entry.listener.setCertificates(certificates)
      listeners.set(name, entry)
    }
    this.#listeners = listeners
    this.#config = config
    this.#digest = digest
    this.#services.traceBus.setSecretHeaders(config.config.redactHeaders)
    this.#source = source
    this.#snapshot = next
    const drainMs = config.config.drainTimeout.ms
    const closing = [...old.values()].filter((e) => ![...listeners.values()].includes(e))
    void Promise.allSettled(closing.map((e) => e.listener.close(drainMs))).then(() =>
      retireSnapshot(previous, next),
    )
    return 'success'
  }

  /** Closes every listener (draining for `drainMs`) and retires the snapshot. */
  async close(drainMs: number): Promise<void> {
    await Promise.allSettled([...this.#listeners.values()].map((e) => e.listener.close(drainMs)))
    this.#listeners.clear()
    await retireSnapshot(this.#snapshot, undefined)
  }

  /**
   * Opens the gateways of `config` that `current` does not have with the same settings. On a
   * failure, closes what it opened and throws.
   */
  async #openChanged(
    config: Readonly<GatehouseConfig>,
    snapshot: Snapshot,
    current: ReadonlyMap<string, OpenListener>,
  ): Promise<Map<string, OpenListener>> {
    const { traceBus, tasks, logging, telemetry, sessions, log, ephemeralPorts, gatewayUi } =
      this.#services
    const opened = new Map<string, OpenListener>()
    try {
      for (const [name, gw] of Object.entries(config.gateways)) {
        const runtime = snapshot.gateways.get(name)
        if (!runtime) continue
        if (sameListener(current.get(name)?.settings, gw)) continue
        const entry = { settings: gw, runtime } as OpenListener
        const pipeline = createPipeline(() => entry.runtime, {
          traceBus,
          tasks,
          logging,
          telemetry,
          sessions,
        })
        const handle: typeof pipeline = gatewayUi
          ? async (req, res, connection) => {
              if (!gatewayUi.handle(name, req, res)) await pipeline(req, res, connection)
            }
          : pipeline
        entry.listener = await startListener({
          name,
          address: gw.address,
          port: ephemeralPorts ? 0 : gw.port,
          limits: gw.limits,
          handle,
          tasks,
          log,
          tls: snapshot.certificates.get(name),
        })
        opened.set(name, entry)
      }
    } catch (err) {
      await Promise.allSettled([...opened.values()].map((e) => e.listener.close(0)))
      throw err
    }
    return opened
  }
}

/**
 * Whether a running listener can serve `next` as it is: the same settings, where TLS counts only
 * as on or off — new certificates (or another `minVersion`) are handed to the running listener,
 * which keeps its port and its connections.
 */
function sameListener(
  running: GatehouseConfig['gateways'][string] | undefined,
  next: GatehouseConfig['gateways'][string],
): boolean {
  if (!running) return false
  return isDeepStrictEqual({ ...running, tls: !!running.tls }, { ...next, tls: !!next.tls })
}

/** The digest the load made of `config`, or one made here. */
function digestOf(config: Readonly<GatehouseConfig>, source: ConfigSource | undefined): string {
  return source?.config === config && source.digest ? source.digest : configDigest(config)
}
