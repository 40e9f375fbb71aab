/**
 * The admin interface of a cluster worker (`config.workers` above 1): a worker binds no admin
 * address; the primary's admin endpoints reach it through these IPC methods instead
 * (`./cluster.ts` on the primary's side). Trace events cross the channel only while a watcher is
 * connected to the primary's `/debug/trace`.
 */
import type { IpcPeer } from '../cluster/ipc.js'
import { buildConfigDump } from './config-dump.js'
import type { AdminContext } from './context.js'
import { readiness } from './health.js'
import { setLogFilter } from './logging.js'
import { tasksReport } from './tasks.js'

/** What a worker reports of itself. */
export interface WorkerStatus {
  pid: number
  /** Requests it handled (the sum of `gatehouse_requests_total`). */
  requests: number
  inFlight: number
  /** Its log filter now. */
  logLevel: string
}

/** Answers the primary's admin calls with this worker's state. */
export function serveAdminOverIpc(primary: IpcPeer, ctx: AdminContext): void {
  const traces = new Map<string, AbortController>()
  primary.handle('admin.configDump', () => buildConfigDump(ctx))
  primary.handle('admin.metrics', () => ctx.metrics?.registry.getMetricsAsJSON() ?? [])
  primary.handle('admin.status', async (): Promise<WorkerStatus> => {
    const requests = (
      await ctx.metrics?.registry.getSingleMetric('gatehouse_requests_total')?.get()
    )?.values.reduce((n, v) => n + v.value, 0)
    return {
      pid: process.pid,
      requests: requests ?? 0,
      inFlight: ctx.tasks.inFlight(),
      logLevel: ctx.logging.filter(),
    }
  })
  primary.handle('admin.tasks', () => tasksReport(ctx.tasks))
  primary.handle('admin.readiness', () => readiness(ctx))
  primary.handle('admin.logging', (level: string) => setLogFilter(ctx.logging, level))
  primary.handle('admin.reload', async () => {
    if (!ctx.reload) throw new Error('this worker was started without a configuration to reload')
    return ctx.reload()
  })
  primary.handle('admin.stop', (reason: string) => {
    // Answered at once; the primary watches the process exit once it has drained.
    void ctx.shutdown(reason)
    return true
  })
  primary.handle('trace.watch', async (watchId: string, pathPrefix: string | null) => {
    const abort = new AbortController()
    traces.set(watchId, abort)
    try {
      const events = ctx.traceBus.watch({
        ...(pathPrefix ? { pathPrefix } : {}),
        signal: abort.signal,
      })
      for await (const e of events) primary.notify('trace.event', [watchId, e])
    } finally {
      traces.delete(watchId)
      primary.notify('trace.end', [watchId])
    }
  })
  primary.handle('trace.cancel', (watchId: string) => traces.get(watchId)?.abort())
}
