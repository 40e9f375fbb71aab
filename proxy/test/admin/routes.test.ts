import { afterEach, describe, expect, it } from 'vitest'
import type { AdminContext } from '../../src/admin/context.js'
import { type AdminServer, startAdmin } from '../../src/admin/server.js'
import { fakeContext } from './context.js'
import { openTrace } from './helpers.js'

let admin: AdminServer | undefined
afterEach(async () => {
  await admin?.close()
  admin = undefined
})

async function start(ctx: AdminContext, traceKeepAliveMs?: number): Promise<string> {
  admin = await startAdmin('127.0.0.1:0', ctx, traceKeepAliveMs ? { traceKeepAliveMs } : {})
  return admin.url
}

/** Emits a small request trace on the context's bus. */
function traceOne(ctx: AdminContext, path: string): void {
  const t = ctx.traceBus.start(path)
  t?.event('request_started', { method: 'GET', path, gateway: 'default', headers: {} })
  t?.event('response', { status: 204 })
  t?.finish({ status: 204, durationMs: 1, outcome: { policy: 'no_policy' } })
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 5))
}

describe('GET /memory', () => {
  it('reports RSS, heap, external, array buffers and V8 heap spaces', async () => {
    const url = await start(fakeContext())
    const res = await fetch(`${url}/memory`)
    expect(res.status).toBe(200)
    const body = (await res.json()) as {
      process: Record<string, number>
      heap: Record<string, number>
      heapSpaces: Array<{ space_name: string }>
      resourceUsage: Record<string, number>
    }
    for (const k of ['rss', 'heapUsed', 'heapTotal', 'external', 'arrayBuffers']) {
      expect(body.process[k]).toBeGreaterThan(0)
    }
    expect(body.heap.total_heap_size).toBeGreaterThan(0)
    expect(body.heapSpaces.map((s) => s.space_name)).toContain('old_space')
    expect(body.resourceUsage.maxRSS).toBeGreaterThan(0)
  })
})

describe('GET /debug/tasks', () => {
  it('renders listeners, connections, requests with their stage, and active handles', async () => {
    const ctx = fakeContext()
    ctx.tasks.addListener('default', '127.0.0.1:3000')
    const conn = ctx.tasks.openConnection('default', '127.0.0.1:5555')
    const req = ctx.tasks.beginRequest('default', conn.id, 'POST', '/mcp')
    req.stage('upstream_wait')
    const url = await start(ctx)
    const body = (await (await fetch(`${url}/debug/tasks`)).json()) as {
      inFlight: number
      tree: Array<{ kind: string; children: Array<{ children: Array<Record<string, unknown>> }> }>
      activeResources: Record<string, number>
    }
    expect(body.inFlight).toBe(1)
    expect(body.tree[0]?.kind).toBe('listener')
    expect(body.tree[0]?.children[0]?.children[0]).toMatchObject({
      kind: 'request',
      name: 'POST /mcp',
      detail: { stage: 'upstream_wait' },
    })
    expect(body.activeResources.TCPServerWrap).toBeGreaterThan(0)
  })
})

describe('GET /debug/trace stream', () => {
  it('sends keep-alive comments while waiting and frames with the pinned shape', async () => {
    const ctx = fakeContext()
    const url = await start(ctx, 20)
    const trace = await openTrace(`${url}/debug/trace`)
    await until(() => ctx.traceBus.waiting === 1)
    // Let a few keep-alive intervals pass before the request comes.
    await new Promise((r) => setTimeout(r, 100))
    traceOne(ctx, '/mcp')
    const frames = await trace.rest()
    expect(frames.some((f) => f.comment === 'keep-alive')).toBe(true)
    const events = frames.filter((f) => f.event)
    expect(events.map((f) => f.event)).toEqual(['request_started', 'response', 'request_finished'])
    expect(JSON.parse(events[0]?.data ?? '{}')).toMatchObject({
      seq: 0,
      type: 'request_started',
      data: { path: '/mcp' },
    })
  })

  it('stops watching when the client disconnects', async () => {
    const ctx = fakeContext()
    const url = await start(ctx)
    const abort = new AbortController()
    await openTrace(`${url}/debug/trace`, { signal: abort.signal })
    expect(ctx.traceBus.waiting).toBe(1)
    abort.abort()
    await until(() => ctx.traceBus.waiting === 0)
    expect(ctx.traceBus.start('/mcp')).toBeUndefined()
  })
})
