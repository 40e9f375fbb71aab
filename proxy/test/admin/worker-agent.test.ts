import { afterEach, describe, expect, it, vi } from 'vitest'
import type { AdminContext, ReloadRecord } from '../../src/admin/context.js'
import { serveAdminOverIpc, type WorkerStatus } from '../../src/admin/worker-agent.js'
import { IpcPeer } from '../../src/cluster/ipc.js'
import { createLogging } from '../../src/telemetry/logging.js'
import { Metrics } from '../../src/telemetry/metrics.js'
import type { TraceEvent } from '../../src/telemetry/trace-bus.js'
import { channel } from '../ipc-channel.js'
import { fakeContext, SECRETS } from './context.js'

const metricsToClose: Metrics[] = []
afterEach(() => {
  for (const m of metricsToClose.splice(0)) m.close()
})

/** A worker agent serving `ctx`, and the primary's end of its channel. */
function agent(ctx: AdminContext): { primary: IpcPeer; notes: Array<[string, unknown[]]> } {
  const [a, b] = channel()
  const primary = new IpcPeer(a)
  serveAdminOverIpc(new IpcPeer(b), ctx)
  const notes: Array<[string, unknown[]]> = []
  for (const method of ['trace.event', 'trace.end']) {
    primary.handle(method, (...args: unknown[]) => void notes.push([method, args]))
  }
  return { primary, notes }
}

async function until(check: () => boolean): Promise<void> {
  await vi.waitFor(() => expect(check()).toBe(true), { timeout: 5_000, interval: 5 })
}

describe('serveAdminOverIpc', () => {
  it('reports its pid, the requests it counted, its in-flight tasks and its log filter', async () => {
    const metrics = new Metrics({ defaultMetrics: false })
    metricsToClose.push(metrics)
    const labels = { gateway: 'default', route: 'main', method: 'GET', outcome: 'allowed' }
    metrics.requests.inc({ ...labels, status: '200' }, 3)
    metrics.requests.inc({ ...labels, status: '401' }, 2)
    const ctx = {
      ...fakeContext({ logging: createLogging({ filter: 'warn' }) }),
      metrics,
    }
    const { primary } = agent(ctx)
    const status = await primary.call<WorkerStatus>('admin.status')
    expect(status).toEqual({ pid: process.pid, requests: 5, inFlight: 0, logLevel: 'warn' })
    // Its registry, as JSON that prom-client's AggregatorRegistry sums on the primary.
    const json = await primary.call<Array<{ name: string }>>('admin.metrics')
    expect(json.map((m) => m.name)).toContain('gatehouse_requests_total')
  })

  it('reports zero requests and no metrics when it keeps none', async () => {
    const { primary } = agent(fakeContext())
    expect((await primary.call<WorkerStatus>('admin.status')).requests).toBe(0)
    expect(await primary.call('admin.metrics')).toEqual([])
  })

  it('sends its config dump redacted', async () => {
    const { primary } = agent(fakeContext())
    const dump = await primary.call<{ config: unknown }>('admin.configDump')
    expect(dump.config).toBeDefined()
    const text = JSON.stringify(dump)
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret)
  })

  it('applies a log filter, and refuses a bad one with the reason', async () => {
    const ctx = fakeContext({ logging: createLogging({ filter: 'info' }) })
    const { primary } = agent(ctx)
    expect(await primary.call('admin.logging', ['debug'])).toEqual({
      status: 200,
      text: 'current log level is debug',
    })
    expect(ctx.logging.filter()).toBe('debug')
    const bad = await primary.call<{ status: number; text: string }>('admin.logging', ['loud'])
    expect(bad.status).toBe(400)
    expect(ctx.logging.filter()).toBe('debug')
  })

  it('reloads when it can, and says why when it was started without a configuration', async () => {
    const record: ReloadRecord = {
      at: 'now',
      trigger: 'admin',
      result: 'unchanged',
      message: 'same configuration',
    }
    const ctx = { ...fakeContext(), reload: vi.fn(async () => record) }
    expect(await agent(ctx).primary.call('admin.reload')).toEqual(record)
    expect(ctx.reload).toHaveBeenCalledOnce()
    await expect(agent(fakeContext()).primary.call('admin.reload')).rejects.toThrow(
      /started without a configuration to reload/,
    )
  })

  it('answers a stop at once and shuts down with the reason', async () => {
    const shutdown = vi.fn(() => new Promise<void>(() => {}))
    const { primary } = agent(fakeContext({ shutdown }))
    expect(await primary.call('admin.stop', ['rolling restart'])).toBe(true)
    expect(shutdown).toHaveBeenCalledWith('rolling restart')
  })

  it('forwards trace events only while the primary watches, and ends on request_finished', async () => {
    const ctx = fakeContext()
    const { primary, notes } = agent(ctx)
    // Nobody watches: a request is not traced and nothing crosses the channel.
    expect(ctx.traceBus.start('/mcp')).toBeUndefined()
    primary.notify('trace.watch', ['w1', '/mcp'])
    await until(() => ctx.traceBus.waiting === 1)
    expect(ctx.traceBus.start('/other')).toBeUndefined()
    const trace = ctx.traceBus.start('/mcp/x')
    expect(trace).toBeDefined()
    trace?.finish({ status: 200, durationMs: 1, outcome: { policy: 'allowed' } } as never)
    await until(() => notes.some(([m]) => m === 'trace.end'))
    expect(notes.map(([m, [id]]) => `${m} ${id}`)).toEqual(['trace.event w1', 'trace.end w1'])
    expect((notes[0]?.[1]?.[1] as TraceEvent | undefined)?.type).toBe('request_finished')
    expect(ctx.traceBus.waiting).toBe(0)
  })

  it('stops waiting when the primary cancels a watch', async () => {
    const ctx = fakeContext()
    const { primary, notes } = agent(ctx)
    primary.notify('trace.watch', ['w2', null])
    await until(() => ctx.traceBus.waiting === 1)
    primary.notify('trace.cancel', ['w2'])
    await until(() => notes.length === 1)
    expect(notes).toEqual([['trace.end', ['w2']]])
    expect(ctx.traceBus.waiting).toBe(0)
    expect(ctx.traceBus.start('/mcp')).toBeUndefined()
  })
})
