import { describe, expect, it } from 'vitest'
import { SourceLimit } from '../../src/broker/source-limit.js'

describe('SourceLimit', () => {
  it('admits limit requests per source and window, then says when to come back', () => {
    const clock = { t: 0 }
    const l = new SourceLimit({ limit: 2, windowMs: 60_000, now: () => clock.t })
    expect(l.take('a')).toEqual({ ok: true })
    expect(l.take('a')).toEqual({ ok: true })
    expect(l.take('a')).toEqual({ ok: false, retryAfterSeconds: 60 })
    expect(l.take('b')).toEqual({ ok: true })
    clock.t = 59_500
    expect(l.take('a')).toEqual({ ok: false, retryAfterSeconds: 1 })
    clock.t = 60_000
    expect(l.take('a')).toEqual({ ok: true })
  })

  it('refuses a new source when the table is full of live windows, without resetting any', () => {
    const clock = { t: 0 }
    const l = new SourceLimit({ limit: 1, windowMs: 1000, maxSources: 3, now: () => clock.t })
    for (const s of ['a', 'b', 'c']) expect(l.take(s).ok).toBe(true)
    expect(l.take('d').ok).toBe(false)
    // The used-up sources stay used up (no eviction hands them a fresh allowance).
    expect(l.take('a').ok).toBe(false)
    clock.t = 1000
    expect(l.take('d').ok).toBe(true)
  })
})
