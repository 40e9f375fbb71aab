import { getHeapSpaceStatistics } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { lastResortCollection, startIdleTrim } from '../../src/telemetry/memory-trim.js'

/** A gateway's counters the test moves by hand. */
function gateway() {
  const g = { activity: 0, inFlight: 0, collections: 0 }
  const trim = startIdleTrim({
    activity: () => g.activity,
    inFlight: () => g.inFlight,
    firstMs: 1000,
    intervalMs: 5000,
    collect: () => {
      g.collections++
    },
  })
  return { g, trim }
}

describe('startIdleTrim', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('collects once after start-up when nothing happened, and not again while idle', () => {
    const { g, trim } = gateway()
    vi.advanceTimersByTime(999)
    expect(g.collections).toBe(0)
    vi.advanceTimersByTime(1)
    expect(g.collections).toBe(1)
    vi.advanceTimersByTime(60_000)
    expect(g.collections).toBe(1)
    trim.stop()
  })

  it('waits while requests are in flight (a held event stream is not idle)', () => {
    const { g, trim } = gateway()
    g.inFlight = 1
    vi.advanceTimersByTime(31_000)
    expect(g.collections).toBe(0)
    g.inFlight = 0
    vi.advanceTimersByTime(5000)
    expect(g.collections).toBe(1)
    trim.stop()
  })

  it('waits while work keeps arriving, collects once it stops, and again after the next burst', () => {
    const { g, trim } = gateway()
    for (let i = 0; i < 6; i++) {
      g.activity++
      vi.advanceTimersByTime(i === 0 ? 1000 : 5000)
    }
    expect(g.collections).toBe(0)
    vi.advanceTimersByTime(5000)
    expect(g.collections).toBe(1)
    g.activity += 10
    vi.advanceTimersByTime(5000)
    expect(g.collections).toBe(1)
    vi.advanceTimersByTime(5000)
    expect(g.collections).toBe(2)
    trim.stop()
  })

  it('reports each collection with its duration and the RSS around it', () => {
    const trims: { ms: number; rssBefore: number; rssAfter: number }[] = []
    const trim = startIdleTrim({
      activity: () => 0,
      inFlight: () => 0,
      collect: () => {},
      onTrim: (t) => trims.push(t),
    })
    vi.advanceTimersByTime(1000)
    expect(trims).toHaveLength(1)
    expect(trims[0]?.rssBefore).toBeGreaterThan(0)
    expect(trims[0]?.rssAfter).toBeGreaterThan(0)
    expect(trims[0]?.ms).toBeGreaterThanOrEqual(0)
    trim.stop()
  })

  it('stops looking once stopped', () => {
    const { g, trim } = gateway()
    trim.stop()
    vi.advanceTimersByTime(60_000)
    expect(g.collections).toBe(0)
  })
})

describe('lastResortCollection', () => {
  const newSpace = () =>
    getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0

  it('shrinks the young generation that allocation grew', () => {
    const collect = lastResortCollection()
    // Survivors across scavenges make V8 grow the young generation.
    let keep: object[] = []
    for (let i = 0; i < 600_000; i++) {
      keep.push({ i, s: `x${i}` })
      if (keep.length > 100_000) keep = []
    }
    const grown = newSpace()
    keep = []
    collect()
    expect(newSpace()).toBeLessThan(grown)
  })

  it('leaves no gc function in this context nor in contexts created afterwards', () => {
    lastResortCollection()
    expect(Reflect.has(globalThis, 'gc')).toBe(false)
    expect(runInNewContext('typeof gc')).toBe('undefined')
  })
})
