import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  ClusterTrace,
  clusterConfigDump,
  clusterMetrics,
  clusterReload,
  clusterSetLogFilter,
  clusterTasks,
} from '../../src/admin/cluster.js'
import type {
  AdminContext,
  ClusterView,
  ReloadRecord,
  WorkerAnswer,
  WorkerInfo,
} from '../../src/admin/context.js'
import { serveAdminOverIpc } from '../../src/admin/worker-agent.js'
import { IpcPeer } from '../../src/cluster/ipc.js'
import { createLogging } from '../../src/telemetry/logging.js'
import { Metrics } from '../../src/telemetry/metrics.js'
import type { TraceEvent } from '../../src/telemetry/trace-bus.js'
import { channel, type TestEndpoint } from '../ipc-channel.js'
import { fakeContext, fakePolicy, PROGRAMMED } from './context.js'

interface TestWorker {
  info: WorkerInfo
  ctx: AdminContext
  metrics: Metrics
  peer: IpcPeer
  /** The primary's end of its channel. */
  end: TestEndpoint
}

/** Polls `check` until it passes (generous: the machine may be loaded). */
function waitFor(check: () => void): Promise<void> {
  return vi.waitFor(check, { timeout: 5_000, interval: 5 })
}

const metricsToClose: Metrics[] = []
afterEach(() => {
  for (const m of metricsToClose.splice(0)) m.close()
})

/**
 * A cluster of in-process workers, each a real worker agent over its own channel: the primary's
 * view calls them as `Fleet` does (every ready worker, an error as the answer of the one that
 * failed).
 */
function testCluster(
  size: number,
  setup: (id: number) => Partial<AdminContext> = () => ({}),
): { cluster: ClusterView; workers: TestWorker[]; notified: Array<[number, string, unknown[]]> } {
  const workers: TestWorker[] = []
  const notified: Array<[number, string, unknown[]]> = []
  for (let id = 1; id <= size; id++) {
    const [end, workerEnd] = channel()
    const metrics = new Metrics({ defaultMetrics: false })
    metricsToClose.push(metrics)
    const ctx: AdminContext = { ...fakeContext(), metrics, ...setup(id) }
    serveAdminOverIpc(new IpcPeer(workerEnd), ctx)
    const info: WorkerInfo = { id, pid: 1000 + id, state: 'ready', restarts: 0, startedAt: 'then' }
    workers.push({ info, ctx, metrics, peer: new IpcPeer(end), end })
  }
  const cluster: ClusterView = {
    workers: () => workers.map((w) => ({ ...w.info })),
    each: <T>(method: string, args: unknown[] = [], timeoutMs?: number) =>
      Promise.all(
        workers.map(async (w): Promise<WorkerAnswer<T>> => {
          try {
            return { worker: w.info, value: await w.peer.call<T>(method, args, timeoutMs) }
          } catch (err) {
            return { worker: w.info, error: (err as Error).message }
          }
        }),
      ),
    notify(id, method, args) {
      for (const w of workers) {
        if (id === undefined || w.info.id === id) {
          notified.push([w.info.id, method, args])
          w.peer.notify(method, args)
        }
      }
    },
    onNote(method, handler) {
      for (const w of workers) {
        w.peer.handle(method, (...args: unknown[]) => handler(w.info.id, ...args))
      }
    },
  }
  return { cluster, workers, notified }
}

/** Makes a worker's channel fail as it does once its process is gone. */
function gone(w: TestWorker): void {
  w.end.closed = true
}

const labels = { gateway: 'default', route: 'main', method: 'GET', outcome: 'allowed' }

describe('clusterMetrics', () => {
  it('sums every worker counter', async () => {
    const { cluster, workers } = testCluster(3)
    workers.forEach((w, i) => {
      w.metrics.requests.inc({ ...labels, status: '200' }, i + 1)
    })
    const { body, contentType } = await clusterMetrics(cluster)
    expect(contentType).toMatch(/^text\/plain/)
    expect(body).toMatch(/^gatehouse_requests_total\{[^}]*status="200"[^}]*\} 6$/m)
  })

  it('sums the workers that answered when one does not', async () => {
    const { cluster, workers } = testCluster(2)
    for (const w of workers) w.metrics.requests.inc({ ...labels, status: '200' }, 4)
    gone(workers[1] as TestWorker)
    const { body } = await clusterMetrics(cluster)
    expect(body).toMatch(/^gatehouse_requests_total\{[^}]*\} 4$/m)
  })
})

describe('clusterConfigDump', () => {
  it('shows one dump with the primary pid and log filter, and a line per worker', async () => {
    const { cluster, workers } = testCluster(2, (id) => ({
      policies: () =>
        new Map([
          [
            'object',
            fakePolicy(
              'object',
              id === 1 ? PROGRAMMED : { ...PROGRAMMED, programmed: false, reason: 'Pending' },
            ),
          ],
        ]),
      logging: createLogging({ filter: id === 1 ? 'info' : 'debug' }),
    }))
    ;(workers[1] as TestWorker).metrics.requests.inc({ ...labels, status: '200' }, 7)
    const ctx = fakeContext({ logging: createLogging({ filter: 'warn' }) })
    const dump = (await clusterConfigDump(ctx, cluster)) as unknown as {
      version: { pid: number }
      config: { logLevel: string }
      workers: Array<Record<string, unknown>>
    }
    expect(dump.version.pid).toBe(process.pid)
    expect(dump.config.logLevel).toBe('warn')
    expect(dump.workers).toEqual([
      {
        id: 1,
        pid: 1001,
        state: 'ready',
        restarts: 0,
        startedAt: 'then',
        requests: 0,
        inFlight: 0,
        logLevel: 'info',
        policies: {
          object: { programmed: true, reason: 'Programmed' },
          string: { programmed: false, reason: 'NotCompiled' },
        },
      },
      {
        id: 2,
        pid: 1002,
        state: 'ready',
        restarts: 0,
        startedAt: 'then',
        requests: 7,
        inFlight: 0,
        logLevel: 'debug',
        policies: {
          object: { programmed: false, reason: 'Pending' },
          string: { programmed: false, reason: 'NotCompiled' },
        },
      },
    ])
  })

  it('takes the dump of a worker that answers and shows nulls for one that does not', async () => {
    const { cluster, workers } = testCluster(2)
    gone(workers[0] as TestWorker)
    const dump = await clusterConfigDump(fakeContext(), cluster)
    expect(dump.workers?.[0]).toMatchObject({ id: 1, requests: null, logLevel: null })
    expect(dump.workers?.[1]).toMatchObject({ id: 2, requests: 0, logLevel: 'off' })
  })

  it('fails naming every worker and why when none answers', async () => {
    const { cluster, workers } = testCluster(2)
    workers.forEach(gone)
    await expect(clusterConfigDump(fakeContext(), cluster)).rejects.toThrow(
      'no worker answered: 1 (channel closed), 2 (channel closed)',
    )
  })
})

describe('clusterSetLogFilter', () => {
  it('sets the filter on the primary and every worker', async () => {
    const { cluster, workers } = testCluster(2)
    const ctx = fakeContext({ logging: createLogging({ filter: 'info' }) })
    const onChange = vi.fn()
    const answer = await clusterSetLogFilter(ctx, cluster, 'debug', onChange)
    expect(answer).toEqual({ status: 200, text: 'current log level is debug' })
    expect(onChange).toHaveBeenCalledWith('info', 'debug')
    expect(workers.map((w) => w.ctx.logging.filter())).toEqual(['debug', 'debug'])
  })

  it('refuses a bad filter without asking the workers', async () => {
    const { cluster, workers } = testCluster(1)
    const answer = await clusterSetLogFilter(fakeContext(), cluster, 'loud', () => undefined)
    expect(answer.status).toBe(400)
    expect(workers[0]?.ctx.logging.filter()).toBe('off')
  })

  it('answers 500 naming a worker it could not reach', async () => {
    const { cluster, workers } = testCluster(2)
    gone(workers[1] as TestWorker)
    const answer = await clusterSetLogFilter(fakeContext(), cluster, 'debug', () => undefined)
    expect(answer).toEqual({
      status: 500,
      text: 'current log level is debug on the primary, but not on worker(s) 2 (channel closed)',
    })
  })
})

describe('clusterReload', () => {
  const record = (result: ReloadRecord['result'], message: string = result): ReloadRecord => ({
    at: 'now',
    trigger: 'admin',
    result,
    message,
  })

  it('is a success when one worker changed, unchanged when none did', async () => {
    const results: ReloadRecord['result'][] = ['unchanged', 'success']
    const mixed = testCluster(2, (id) => ({ reload: async () => record(results[id - 1]!) }))
    expect(await clusterReload(mixed.cluster)).toBe('success')
    const same = testCluster(2, () => ({ reload: async () => record('unchanged') }))
    expect(await clusterReload(same.cluster)).toBe('unchanged')
  })

  it('fails naming each worker that failed and why', async () => {
    const { cluster, workers } = testCluster(3, (id) => ({
      reload: async () => record(id === 1 ? 'success' : 'failure', 'bad route'),
    }))
    gone(workers[2] as TestWorker)
    await expect(clusterReload(cluster)).rejects.toThrow(
      'the reload failed on worker(s) 2: bad route; 3: channel closed',
    )
  })
})

describe('clusterTasks', () => {
  it('adds up in-flight requests and lists each worker, with the error of one that is gone', async () => {
    const { cluster, workers } = testCluster(3)
    for (const w of workers.slice(0, 2)) {
      w.ctx.tasks.addListener('default', '127.0.0.1:3000')
      const conn = w.ctx.tasks.openConnection('default', '127.0.0.1:1')
      w.ctx.tasks.beginRequest('default', conn.id, 'GET', '/mcp')
    }
    gone(workers[2] as TestWorker)
    const report = (await clusterTasks(cluster)) as {
      inFlight: number
      workers: Array<Record<string, unknown>>
    }
    expect(report.inFlight).toBe(2)
    expect(report.workers.map((w) => [w.id, w.pid, w.inFlight ?? w.error])).toEqual([
      [1, 1001, 1],
      [2, 1002, 1],
      [3, 1003, 'channel closed'],
    ])
  })
})

describe('ClusterTrace', () => {
  const finish = { status: 200, durationMs: 1, outcome: { policy: 'allowed' } } as never

  it('follows the worker whose request comes first and cancels the others', async () => {
    const { cluster, workers, notified } = testCluster(2)
    const events = new ClusterTrace(cluster).watch({ pathPrefix: '/mcp' })
    const seen: TraceEvent[] = []
    const done = (async () => {
      for await (const e of events) seen.push(e)
    })()
    const [w1, w2] = workers as [TestWorker, TestWorker]
    await waitFor(() => expect(w1.ctx.traceBus.waiting + w2.ctx.traceBus.waiting).toBe(2))
    w2.ctx.traceBus.start('/mcp/b')?.finish(finish)
    await done
    expect(seen.map((e) => e.type)).toEqual(['request_finished'])
    // Worker 2's first event cancels worker 1 only; the end of the watch then cancels it on all.
    expect(notified).toEqual([
      [1, 'trace.watch', ['w1', '/mcp']],
      [2, 'trace.watch', ['w1', '/mcp']],
      [1, 'trace.cancel', ['w1']],
      [1, 'trace.cancel', ['w1']],
      [2, 'trace.cancel', ['w1']],
    ])
    // Worker 1 stopped waiting: its next request is not traced.
    await waitFor(() => expect(w1.ctx.traceBus.waiting).toBe(0))
    expect(w1.ctx.traceBus.start('/mcp/a')).toBeUndefined()
  })

  it('ignores the events of a worker it is not following', async () => {
    const { cluster, workers } = testCluster(2)
    const trace = new ClusterTrace(cluster)
    const seen: string[] = []
    const done = (async () => {
      for await (const e of trace.watch()) seen.push(e.requestId)
    })()
    const [w1, w2] = workers as [TestWorker, TestWorker]
    await waitFor(() => expect(w1.ctx.traceBus.waiting + w2.ctx.traceBus.waiting).toBe(2))
    // Both start a request before either hears of the other: only the first is followed.
    const t1 = w1.ctx.traceBus.start('/mcp/a')
    const t2 = w2.ctx.traceBus.start('/mcp/b')
    t1?.event('request_started' as never, {} as never)
    t2?.finish(finish)
    t1?.finish(finish)
    await done
    expect(seen).toEqual([t1?.requestId, t1?.requestId])
  })

  it('cancels the watch on every worker when the watcher goes away', async () => {
    const { cluster, workers, notified } = testCluster(2)
    const abort = new AbortController()
    const done = (async () => {
      for await (const _ of new ClusterTrace(cluster).watch({ signal: abort.signal })) {
        // no request comes
      }
    })()
    await waitFor(() => expect(workers.map((w) => w.ctx.traceBus.waiting)).toEqual([1, 1]))
    abort.abort()
    await done
    expect(notified.filter(([, m]) => m === 'trace.cancel').map(([id]) => id)).toEqual([1, 2])
    await waitFor(() => expect(workers.map((w) => w.ctx.traceBus.waiting)).toEqual([0, 0]))
  })

  it('ends at once, and leaves no watch on the workers, for a signal already aborted', async () => {
    const { cluster, workers, notified } = testCluster(2)
    const seen: unknown[] = []
    for await (const e of new ClusterTrace(cluster).watch({ signal: AbortSignal.abort() })) {
      seen.push(e)
    }
    expect(seen).toEqual([])
    expect(notified.filter(([, m]) => m === 'trace.cancel').map(([id]) => id)).toEqual([1, 2])
    await waitFor(() => expect(workers.map((w) => w.ctx.traceBus.waiting)).toEqual([0, 0]))
  })
})
