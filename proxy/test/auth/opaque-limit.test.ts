import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { IdpCallLimit } from '../../src/auth/opaque-limit.js'

function limit(
  o: { perSource?: number; windowMs?: number; maxInFlight?: number; maxSources?: number } = {},
) {
  const clock = { t: 0 }
  const l = new IdpCallLimit({
    perSource: 3,
    windowMs: 10_000,
    maxInFlight: 100,
    ...o,
    now: () => clock.t,
  })
  return { l, clock }
}

describe('IdpCallLimit', () => {
  it('lets one source start perSource calls per window, then says when to retry', () => {
    const { l, clock } = limit()
    for (let i = 0; i < 3; i++) expect(l.take('a')).toMatchObject({ ok: true })
    clock.t = 2_500
    expect(l.take('a')).toEqual({ ok: false, cause: 'source', retryAfterSeconds: 8 })
    expect(l.take('b')).toMatchObject({ ok: true })
    clock.t = 10_000
    expect(l.take('a')).toMatchObject({ ok: true })
  })

  it('holds memory for the sources it saw, not for maxSources up front', () => {
    // Regression: the window cache allocated its arrays for 10,000 sources when built.
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    setFlagsFromString('--no-expose-gc')
    const held: IdpCallLimit[] = []
    gc()
    const before = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers
    for (let i = 0; i < 50; i++) {
      const { l } = limit()
      expect(l.take('a')).toMatchObject({ ok: true })
      held.push(l)
    }
    gc()
    const after = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers
    expect((after - before) / held.length / 1024).toBeLessThan(32)
  })

  it('counts calls whose address is unknown as one source', () => {
    const { l } = limit({ perSource: 1 })
    expect(l.take(undefined)).toMatchObject({ ok: true })
    expect(l.take(undefined)).toMatchObject({ ok: false, cause: 'source' })
  })

  it('lets at most maxInFlight calls run at once; a release frees one, once', () => {
    const { l } = limit({ maxInFlight: 2, perSource: 100 })
    const a = l.take('a')
    const b = l.take('b')
    expect(l.take('c')).toEqual({ ok: false, cause: 'in_flight', retryAfterSeconds: 1 })
    if (!a.ok || !b.ok) throw new Error('expected both admitted')
    a.release()
    a.release()
    expect(l.inFlight).toBe(1)
    expect(l.take('c')).toMatchObject({ ok: true })
    expect(l.take('d')).toMatchObject({ ok: false, cause: 'in_flight' })
  })

  it('a refused call is not counted against the source', () => {
    const { l } = limit({ maxInFlight: 1, perSource: 2 })
    const first = l.take('a')
    expect(l.take('a')).toMatchObject({ ok: false, cause: 'in_flight' })
    if (first.ok) first.release()
    expect(l.take('a')).toMatchObject({ ok: true })
    expect(l.take('a')).toMatchObject({ ok: false, cause: 'source' })
  })
})
