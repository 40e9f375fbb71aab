/**
 * `/debug/trace?follow=1` (proxy/src/admin/trace.ts `follow`): every request from then on, side
 * by side when they overlap, until the watcher leaves. Over HTTP: server.test.ts and the UI's
 * browser tests.
 */
import { describe, expect, it } from 'vitest'
import { follow } from '../../src/admin/trace.js'
import { TraceBus, type TraceEvent } from '../../src/telemetry/trace-bus.js'

const done = { status: 200, durationMs: 1, outcome: { policy: 'no_policy' as const } }

describe('follow', () => {
  it('traces every request, overlapping ones included, until the signal aborts', async () => {
    const bus = new TraceBus()
    const abort = new AbortController()
    const seen: TraceEvent[] = []
    const reading = (async () => {
      for await (const e of follow(bus, { signal: abort.signal })) seen.push(e)
    })()
    const started = async (path: string) => {
      // The watcher for the next request is in place once the previous request's first event is read.
      await new Promise((r) => setImmediate(r))
      const t = bus.start(path)
      t?.event('request_started', { method: 'GET', path, gateway: 'g', headers: {} })
      return t
    }
    const a = await started('/a')
    const b = await started('/b')
    b?.finish(done)
    a?.finish(done)
    const c = await started('/c')
    c?.finish(done)
    await new Promise((r) => setImmediate(r))
    abort.abort()
    await reading
    expect(
      seen
        .filter((e) => e.type === 'request_started')
        .map((e) => (e.data as { path: string }).path),
    ).toEqual(['/a', '/b', '/c'])
    expect(seen.filter((e) => e.type === 'request_finished')).toHaveLength(3)
    expect(bus.waiting).toBe(0)
  })
})
