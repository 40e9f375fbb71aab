/**
 * The primary's admin endpoints with `config.workers` above 1: they answer for every worker by
 * calling it over IPC (`./worker-agent.ts`).
 *
 * - `/metrics`: every worker's registry, summed by prom-client's `AggregatorRegistry` (counters
 *   and histograms add up; a counter every worker keeps for itself, such as
 *   `gatehouse_config_reloads_total`, counts once per worker).
 * - `/config_dump`: the first ready worker's dump (they all run the same configuration), with
 *   `workers` listing each one: pid, state, restarts, requests handled, policy status.
 * - `/debug/trace`: the next request on whichever worker handles it first.
 * - `/logging` and `/reload`: applied to the primary and to every worker.
 */
import { AggregatorRegistry } from 'prom-client'
import { type TraceEvent, traceStream } from '../telemetry/trace-bus.js'
import type { ConfigDump } from './config-dump-schema.js'
import type { AdminContext, ClusterView, ReloadRecord, WorkerAnswer } from './context.js'
import { type LoggingAnswer, setLogFilter } from './logging.js'
import type { TasksReport } from './tasks.js'
import type { WorkerStatus } from './worker-agent.js'

/** Time a reload may take on a worker (key sets are fetched before it swaps). */
const RELOAD_TIMEOUT_MS = 120_000

/** The dump of the first worker that answered, with every worker's line. */
export async function clusterConfigDump(
  ctx: AdminContext,
  cluster: ClusterView,
): Promise<ConfigDump> {
  const [dumps, statuses] = await Promise.all([
    cluster.each<ConfigDump>('admin.configDump'),
    cluster.each<WorkerStatus>('admin.status'),
  ])
  const first = dumps.find((d) => d.value)?.value
  if (!first) throw new Error(`no worker answered: ${describeErrors(dumps)}`)
  const status = new Map(statuses.map((s) => [s.worker.id, s.value]))
  const dumpOf = new Map(dumps.map((d) => [d.worker.id, d.value]))
  return {
    ...first,
    version: { ...first.version, pid: process.pid },
    config: { ...first.config, logLevel: ctx.logging.filter() },
    ...(ctx.lastReload?.() ? { reload: { ...(ctx.lastReload() as ReloadRecord) } } : {}),
    workers: cluster.workers().map((w) => ({
      ...w,
      startedAt: w.startedAt ?? null,
      requests: status.get(w.id)?.requests ?? null,
      inFlight: status.get(w.id)?.inFlight ?? null,
      logLevel: status.get(w.id)?.logLevel ?? null,
      policies: Object.fromEntries(
        (dumpOf.get(w.id)?.policies ?? []).map((p) => [
          p.name,
          { programmed: p.status.programmed, reason: p.status.reason },
        ]),
      ),
    })),
  }
}

/** Every worker's metrics, summed. */
export async function clusterMetrics(
  cluster: ClusterView,
): Promise<{ contentType: string; body: string }> {
  const answers = await cluster.each<object[]>('admin.metrics')
  const registry = AggregatorRegistry.aggregate(answers.flatMap((a) => (a.value ? [a.value] : [])))
  return { contentType: registry.contentType, body: await registry.metrics() }
}

/** Sets the log filter on the primary, then on every worker. */
export async function clusterSetLogFilter(
  ctx: AdminContext,
  cluster: ClusterView,
  level: string | null,
  onChange: (from: string, to: string) => void,
): Promise<LoggingAnswer> {
  const answer = setLogFilter(ctx.logging, level, { onChange })
  if (answer.status !== 200) return answer
  const answers = await cluster.each<LoggingAnswer>('admin.logging', [level])
  const failed = answers.filter((a) => a.value?.status !== 200)
  if (failed.length === 0) return answer
  return {
    status: 500,
    text: `${answer.text} on the primary, but not on worker(s) ${describeErrors(failed)}`,
  }
}

/** Reloads every worker; the outcome is the worst of theirs. */
export async function clusterReload(cluster: ClusterView): Promise<'success' | 'unchanged'> {
  const answers = await cluster.each<ReloadRecord>('admin.reload', [], RELOAD_TIMEOUT_MS)
  const failed = answers.filter(
    (a) => a.value?.result !== 'success' && a.value?.result !== 'unchanged',
  )
  if (failed.length > 0) {
    throw new Error(
      `the reload failed on worker(s) ${failed.map((a) => `${a.worker.id}: ${a.value?.message ?? a.error}`).join('; ')}`,
    )
  }
  return answers.some((a) => a.value?.result === 'success') ? 'success' : 'unchanged'
}

/** Every worker's task tree. */
export async function clusterTasks(cluster: ClusterView): Promise<Record<string, unknown>> {
  const answers = await cluster.each<TasksReport>('admin.tasks')
  return {
    at: new Date().toISOString(),
    inFlight: answers.reduce((n, a) => n + (a.value?.inFlight ?? 0), 0),
    workers: answers.map((a) => ({
      id: a.worker.id,
      pid: a.worker.pid,
      ...(a.value ?? { error: a.error }),
    })),
  }
}

function describeErrors(answers: WorkerAnswer<unknown>[]): string {
  return answers.map((a) => `${a.worker.id} (${a.error ?? 'refused'})`).join(', ')
}

/**
 * `/debug/trace` across workers: every ready worker waits for the next request; the first whose
 * event arrives is followed to `request_finished`, the others stop waiting. Events cross the IPC
 * channel only while a watcher is connected.
 */
export class ClusterTrace {
  readonly #cluster: ClusterView
  readonly #watches = new Map<string, { owner?: number; push(e: TraceEvent | null): void }>()
  #next = 1

  constructor(cluster: ClusterView) {
    this.#cluster = cluster
    cluster.onNote('trace.event', (worker, watchId, event) => {
      const w = this.#watches.get(watchId as string)
      if (!w) return
      if (w.owner === undefined) {
        w.owner = worker
        for (const other of cluster.workers()) {
          if (other.id !== worker) cluster.notify(other.id, 'trace.cancel', [watchId])
        }
      }
      if (w.owner === worker) w.push(event as TraceEvent)
    })
    cluster.onNote('trace.end', (worker, watchId) => {
      const w = this.#watches.get(watchId as string)
      if (w?.owner === worker) w.push(null)
    })
  }

  /** As `TraceBus.watch`, over every worker. */
  watch(options: { pathPrefix?: string; signal?: AbortSignal } = {}): AsyncIterable<TraceEvent> {
    const watchId = `w${this.#next++}`
    return traceStream(options.signal, (push) => {
      this.#watches.set(watchId, { push })
      this.#cluster.notify(undefined, 'trace.watch', [watchId, options.pathPrefix ?? null])
      return () => {
        this.#watches.delete(watchId)
        this.#cluster.notify(undefined, 'trace.cancel', [watchId])
      }
    })
  }
}
