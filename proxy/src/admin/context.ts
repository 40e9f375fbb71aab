/**
 * What the admin interface sees of a running gatehouse. The admin server reads the compiled
 * runtime through this interface only; it never reaches into the dataplane.
 */
import type { AuthPolicy } from '../auth/types.js'
import type { GatehouseConfig } from '../config/schema.js'
import type { Logging } from '../telemetry/logging.js'
import type { Metrics } from '../telemetry/metrics.js'
import type { TaskRegistry } from '../telemetry/tasks.js'
import type { TraceBus } from '../telemetry/trace-bus.js'
import type { ResourceStatus } from './resource-status.js'

/** What asked for a reload. */
export type ReloadTrigger = 'watch' | 'SIGHUP' | 'admin' | 'api'

/** The outcome of one reload. */
export interface ReloadRecord {
  /** When it finished (RFC 3339). */
  at: string
  trigger: ReloadTrigger
  /** `success`: a new configuration serves; `unchanged`: it was the same; `failure`: the old one still serves. */
  result: 'success' | 'unchanged' | 'failure'
  /** What changed, or why it failed (every problem, located). */
  message: string
  /** After a failure: why, as a condition reason (`Unauthenticated`, else `Invalid`). */
  reason?: string
}

/** A listening gateway. */
export interface GatewayInfo {
  name: string
  /** Bind address as configured. */
  address: string
  /** The port actually bound (differs from config when it was 0 in tests). */
  port: number
  /** `http://address:port`. */
  url: string
  /** Names of the routes attached to it. */
  routes: string[]
}

/** A data-plane worker, as the cluster primary sees it (`config.workers` above 1). */
export interface WorkerInfo {
  /** Its slot, 1..workers (a restarted worker takes the slot of the one it replaces). */
  id: number
  /** Its process id; `null` while none runs in the slot. */
  pid: number | null
  /** `starting` until its gateways listen, `ready`, `exited` until it is restarted. */
  state: 'starting' | 'ready' | 'exited'
  /** Times the slot's worker was restarted after it exited. */
  restarts: number
  /** When the running worker became ready (RFC 3339). */
  startedAt?: string | undefined
}

/** One worker's answer to a call the primary made to every worker. */
export interface WorkerAnswer<T> {
  worker: WorkerInfo
  /** The answer, when it came. */
  value?: T
  /** Why it did not. */
  error?: string
}

/** The workers behind the primary's admin interface: what reaches each of them over IPC. */
export interface ClusterView {
  workers(): WorkerInfo[]
  /** Calls an admin method (`./worker-agent.ts`) on every ready worker. */
  each<T>(method: string, args?: unknown[], timeoutMs?: number): Promise<WorkerAnswer<T>[]>
  /** Sends a note to one worker (`undefined`: every ready worker). */
  notify(id: number | undefined, method: string, args: unknown[]): void
  /** Hears a note from the workers. */
  onNote(method: string, handler: (worker: number, ...args: unknown[]) => void): void
}

/** The running proxy, as the admin interface sees it. */
export interface AdminContext {
  /** The validated configuration in force (contains secrets: redact before showing). */
  config(): Readonly<GatehouseConfig>
  /** Compiled policies by name, with their live status. */
  policies(): ReadonlyMap<string, AuthPolicy>
  gateways(): readonly GatewayInfo[]
  /** Reloads the configuration (`POST /reload`); absent: the endpoint answers 503. */
  reload?(): Promise<ReloadRecord>
  /** The last reload, if any. */
  lastReload?(): ReloadRecord | undefined
  /** Kubernetes resources and their Gateway API status (absent or empty: a standalone file). */
  resources?(): readonly ResourceStatus[]
  readonly traceBus: TraceBus
  readonly logging: Logging
  readonly tasks: TaskRegistry
  /** Prometheus metrics served at `/metrics` (docs/observability.md); absent: the endpoint answers 503. */
  readonly metrics?: Metrics | undefined
  readonly startedAt: Date
  /** Product version (package.json of the proxy). */
  readonly version: string
  /**
   * The cluster primary's view of its workers: present only in the primary of `config.workers`
   * above 1, whose admin endpoints then answer for every worker.
   */
  readonly cluster?: ClusterView | undefined
  /** Whether a graceful shutdown has begun (`/ready` answers 503 from then on). */
  draining?(): boolean
  /** Graceful shutdown of the whole proxy: stop accepting, drain, then resolve. */
  shutdown(reason: string): Promise<void>
}
