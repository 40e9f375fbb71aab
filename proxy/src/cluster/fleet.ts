/**
 * The workers of the cluster primary (`config.workers` above 1): forks one node:cluster worker per
 * slot, holds an IPC channel to each (`./ipc.ts`), restarts a worker that exits with a
 * growing delay (logged each time), and stops them all on shutdown, each draining its in-flight
 * requests before it exits.
 */
import cluster, { type Worker } from 'node:cluster'
import type { Logger } from 'pino'
import type { ClusterView, GatewayInfo, WorkerAnswer, WorkerInfo } from '../admin/context.js'
import { guardHandoffs } from './handoff.js'
import { IpcPeer } from './ipc.js'

/** Delays before restarting a slot whose worker exited, by the number of exits in a row. */
export const RESTART_BACKOFF_MS = [250, 500, 1_000, 2_000, 5_000, 10_000, 30_000] as const
/** A worker that served this long before it exited starts its slot's backoff over. */
const STABLE_MS = 60_000
/** Environment variable that tells a forked process its slot (logs, `/config_dump`). */
export const WORKER_ID_ENV = 'GATEHOUSE_WORKER_ID'

/** Options of {@link Fleet}. */
export interface FleetOptions {
  size: number
  log: Logger
  /** Registers what the workers may call on the primary (shared state) on a new channel. */
  serve(peer: IpcPeer): void
  /** Hears that a worker listens (a restarted one included). */
  onReady?(peer: IpcPeer): void
}

interface Slot {
  info: WorkerInfo
  worker?: Worker | undefined
  peer?: IpcPeer | undefined
  gateways?: GatewayInfo[] | undefined
  readyAt?: number | undefined
  /** Exits in a row (the backoff step). */
  exits: number
  restart?: NodeJS.Timeout | undefined
}

/** The primary's workers. */
export class Fleet implements ClusterView {
  readonly #o: FleetOptions
  readonly #slots: Slot[]
  readonly #notes = new Map<string, (worker: number, ...args: unknown[]) => void>()
  #stopping = false
  /** Settles the first start: every slot ready, or one failed. */
  #started?: { resolve(): void; reject(err: Error): void } | undefined

  constructor(options: FleetOptions) {
    this.#o = options
    this.#slots = Array.from({ length: options.size }, (_, i) => ({
      info: { id: i + 1, pid: null, state: 'exited', restarts: 0 },
      exits: 0,
    }))
  }

  /** Forks every worker; resolves once all listen, rejects when one exits before. */
  start(): Promise<void> {
    const started = new Promise<void>((resolve, reject) => {
      this.#started = { resolve, reject }
    })
    for (const slot of this.#slots) this.#fork(slot)
    return started
  }

  workers(): WorkerInfo[] {
    return this.#slots.map((s) => ({ ...s.info }))
  }

  /** The gateways as the first ready worker reported them. */
  gateways(): GatewayInfo[] {
    return this.#slots.find((s) => s.info.state === 'ready')?.gateways ?? []
  }

  async each<T>(
    method: string,
    args: unknown[] = [],
    timeoutMs?: number,
  ): Promise<WorkerAnswer<T>[]> {
    const ready = this.#slots.filter((s) => s.info.state === 'ready' && s.peer)
    return Promise.all(
      ready.map(async (s): Promise<WorkerAnswer<T>> => {
        const worker = { ...s.info }
        try {
          return { worker, value: await (s.peer as IpcPeer).call<T>(method, args, timeoutMs) }
        } catch (err) {
          return { worker, error: (err as Error).message }
        }
      }),
    )
  }

  notify(id: number | undefined, method: string, args: unknown[]): void {
    for (const s of this.#slots) {
      if (s.info.state === 'ready' && (id === undefined || s.info.id === id)) {
        s.peer?.notify(method, args)
      }
    }
  }

  onNote(method: string, handler: (worker: number, ...args: unknown[]) => void): void {
    this.#notes.set(method, handler)
    for (const s of this.#slots) if (s.peer) this.#listen(s, s.peer, method, handler)
  }

  /**
   * Asks every worker to stop (each drains for the configured time) and waits for them to exit;
   * one that has not exited `graceMs` later is killed.
   */
  async stop(reason: string, graceMs: number): Promise<void> {
    this.#stopping = true
    const exits: Promise<unknown>[] = []
    for (const s of this.#slots) {
      clearTimeout(s.restart)
      const worker = s.worker
      if (!worker || worker.isDead()) continue
      exits.push(
        new Promise<void>((resolve) => {
          const kill = setTimeout(() => worker.process.kill('SIGKILL'), graceMs)
          worker.once('exit', () => {
            clearTimeout(kill)
            resolve()
          })
        }),
      )
      // A worker that is still starting has no admin handler yet: a signal stops it.
      if (s.info.state === 'ready' && s.peer) {
        s.peer.call('admin.stop', [reason]).catch(() => worker.process.kill('SIGTERM'))
      } else worker.process.kill('SIGTERM')
    }
    await Promise.all(exits)
  }

  #fork(slot: Slot): void {
    const worker = cluster.fork({ [WORKER_ID_ENV]: String(slot.info.id) })
    // A connection on its way to this worker when it dies is closed, not held open for good.
    guardHandoffs(worker.process)
    // An 'error' event nobody listens to would end the primary: a channel error is logged, and
    // the worker's exit (handled below) restarts the slot.
    worker.on('error', (err: Error) =>
      this.#o.log.warn({ worker: slot.info.id, err: err.message }, 'worker channel error'),
    )
    const peer = new IpcPeer(worker)
    slot.worker = worker
    slot.peer = peer
    // Its predecessor's time does not count towards a stable run of this worker.
    slot.readyAt = undefined
    slot.info = {
      ...slot.info,
      pid: worker.process.pid ?? null,
      state: 'starting',
      startedAt: undefined,
    }
    this.#o.serve(peer)
    for (const [method, handler] of this.#notes) this.#listen(slot, peer, method, handler)
    peer.handle('worker.ready', (gateways: GatewayInfo[]) => {
      slot.gateways = gateways
      slot.readyAt = Date.now()
      slot.info = { ...slot.info, state: 'ready', startedAt: new Date().toISOString() }
      this.#o.log.info(
        { worker: slot.info.id, workerPid: slot.info.pid },
        `worker ${slot.info.id} (pid ${slot.info.pid}) ready`,
      )
      this.#o.onReady?.(peer)
      if (this.#slots.every((s) => s.info.state === 'ready')) {
        this.#started?.resolve()
        this.#started = undefined
      }
    })
    worker.once('exit', (code, signal) => this.#exited(slot, worker, code, signal))
  }

  #listen(
    slot: Slot,
    peer: IpcPeer,
    method: string,
    handler: (worker: number, ...args: unknown[]) => void,
  ): void {
    peer.handle(method, (...args: unknown[]) => handler(slot.info.id, ...args))
  }

  #exited(slot: Slot, worker: Worker, code: number | null, signal: string | null): void {
    if (slot.worker !== worker) return
    slot.peer?.close(`worker ${slot.info.id} exited`)
    slot.worker = undefined
    slot.peer = undefined
    const pid = slot.info.pid
    slot.info = { ...slot.info, pid: null, state: 'exited', startedAt: undefined }
    if (this.#stopping) return
    const how = signal ? `signal ${signal}` : `code ${code}`
    if (this.#started) {
      // The first start failed (the worker wrote why): nothing is left running.
      const started = this.#started
      this.#started = undefined
      void this.stop('a worker failed to start', 5_000).then(() =>
        started.reject(
          new Error(
            `worker ${slot.info.id} exited (${how}) before it was ready; its message is above`,
          ),
        ),
      )
      return
    }
    const stable = slot.readyAt !== undefined && Date.now() - slot.readyAt >= STABLE_MS
    slot.exits = stable ? 1 : slot.exits + 1
    const delay = RESTART_BACKOFF_MS[Math.min(slot.exits, RESTART_BACKOFF_MS.length) - 1] as number
    this.#o.log.error(
      { worker: slot.info.id, workerPid: pid, code, signal, restartInMs: delay },
      `worker ${slot.info.id} (pid ${pid}) exited (${how}); restarting it in ${delay} ms`,
    )
    slot.restart = setTimeout(() => {
      if (this.#stopping) return
      slot.info = { ...slot.info, restarts: slot.info.restarts + 1 }
      this.#fork(slot)
    }, delay)
  }
}
