/**
 * RefreshingDocument (proxy/src/auth/refreshing-document.ts): the lifetime clamp, shared
 * in-flight fetches, last-known-good, backoff and the refresh loop, with a fetch function the test
 * scripts and fake timers (no server: the cache logic itself is the unit).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  type Fetched,
  RefreshingDocument,
  type RefreshingDocumentOptions,
} from '../../src/auth/refreshing-document.js'
import { TaskRegistry } from '../../src/telemetry/tasks.js'

type Step = Fetched<string> | Error

function doc(
  steps: Step[],
  options: Partial<RefreshingDocumentOptions<string>> = {},
  initial?: string,
) {
  let calls = 0
  const failures: Array<{ cause: string; retryInMs: number }> = []
  const d = new RefreshingDocument<string>(
    {
      task: 'test_fetch',
      taskDetails: {},
      tasks: new TaskRegistry(),
      fetch: async () => {
        const step = steps[Math.min(calls++, steps.length - 1)] as Step
        if (step instanceof Error) throw step
        return step
      },
      defaultTtlMs: 300_000,
      minTtlMs: 60_000,
      maxTtlMs: 86_400_000,
      retryMinMs: 1000,
      retryMaxMs: 8000,
      onFailure: (cause, retryInMs) => failures.push({ cause, retryInMs }),
      ...options,
    },
    initial,
  )
  return { d, calls: () => calls, failures }
}

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('RefreshingDocument', () => {
  it('shares one fetch among concurrent callers', async () => {
    const { d, calls } = doc([{ value: 'v1', maxAgeMs: undefined }])
    const all = await Promise.all([d.current(), d.current(), d.refresh('x'), d.current()])
    expect(all).toEqual(['v1', 'v1', true, 'v1'])
    expect(calls()).toBe(1)
  })

  it('uses the default lifetime, then fetches again on demand once it ends', async () => {
    const { d, calls } = doc([
      { value: 'v1', maxAgeMs: undefined },
      { value: 'v2', maxAgeMs: undefined },
    ])
    expect(await d.current()).toBe('v1')
    vi.advanceTimersByTime(299_000)
    expect(await d.current()).toBe('v1')
    expect(calls()).toBe(1)
    vi.advanceTimersByTime(2000)
    expect(d.stale).toBe(true)
    expect(await d.current()).toBe('v2')
    expect(calls()).toBe(2)
  })

  it("clamps the IdP's max-age into [min, max]", async () => {
    const short = doc([{ value: 'v', maxAgeMs: 1000 }])
    await short.d.current()
    vi.advanceTimersByTime(59_000)
    expect(short.d.stale).toBe(false) // 1 s asked, 60 s given
    const long = doc([{ value: 'v', maxAgeMs: 30 * 86_400_000 }])
    await long.d.current()
    vi.advanceTimersByTime(86_400_000 + 1)
    expect(long.d.stale).toBe(true) // 30 days asked, 24 h given
  })

  it('keeps the last-known-good document when a refresh fails', async () => {
    const { d, failures } = doc([{ value: 'v1', maxAgeMs: undefined }, new Error('HTTP 500')])
    await d.current()
    expect(await d.refresh('test')).toBe(false)
    expect(d.value).toBe('v1')
    expect(d.lastError).toBe('HTTP 500')
    expect(failures).toEqual([{ cause: 'HTTP 500', retryInMs: 1000 }])
  })

  it('backs off after failures, doubling up to the maximum, and resets on success', async () => {
    const { d, calls, failures } = doc([
      new Error('down'),
      new Error('down'),
      new Error('down'),
      new Error('down'),
      new Error('down'),
      { value: 'up', maxAgeMs: undefined },
    ])
    expect(await d.current()).toBeUndefined()
    expect(await d.current()).toBeUndefined() // within the backoff: no new fetch
    expect(calls()).toBe(1)
    for (let i = 0; i < 4; i++) {
      vi.advanceTimersByTime(failures.at(-1)?.retryInMs ?? 0)
      await d.current()
    }
    expect(failures.map((f) => f.retryInMs)).toEqual([1000, 2000, 4000, 8000, 8000])
    vi.advanceTimersByTime(8000)
    expect(await d.current()).toBe('up')
    expect(d.lastError).toBeUndefined()
  })

  it('refreshes on a timer with refreshLoop, and stops when told', async () => {
    const { d, calls } = doc(
      [
        { value: 'v1', maxAgeMs: 60_000 },
        { value: 'v2', maxAgeMs: 60_000 },
      ],
      { refreshLoop: true },
    )
    await d.refresh('start')
    await vi.advanceTimersByTimeAsync(60_000)
    expect(calls()).toBe(2)
    expect(d.value).toBe('v2')
    d.stop()
    await vi.advanceTimersByTimeAsync(600_000)
    expect(calls()).toBe(2)
  })
})

describe('RefreshingDocument: edges of the lifetime and the backoff', () => {
  it('is stale, and fetched again, exactly when its lifetime ends', async () => {
    const { d, calls } = doc([
      { value: 'v1', maxAgeMs: 120_000 },
      { value: 'v2', maxAgeMs: undefined },
    ])
    await d.current()
    vi.advanceTimersByTime(119_999)
    expect(d.stale).toBe(false)
    expect(await d.current()).toBe('v1')
    vi.advanceTimersByTime(1)
    expect(d.stale).toBe(true)
    expect(await d.current()).toBe('v2')
    expect(calls()).toBe(2)
  })

  it('asks again exactly when the wait after a failure ends', async () => {
    const { d, calls } = doc([new Error('down'), { value: 'up', maxAgeMs: undefined }])
    await d.current()
    vi.advanceTimersByTime(999)
    expect(await d.current()).toBeUndefined()
    expect(calls()).toBe(1)
    vi.advanceTimersByTime(1)
    expect(await d.current()).toBe('up')
  })

  it('starts the backoff from the minimum again after a success', async () => {
    const { d, failures } = doc([
      new Error('down'),
      new Error('down'),
      { value: 'up', maxAgeMs: undefined },
      new Error('down again'),
    ])
    await d.refresh('x')
    await d.refresh('x')
    await d.refresh('x')
    await d.refresh('x')
    expect(failures).toEqual([
      { cause: 'down', retryInMs: 1000 },
      { cause: 'down', retryInMs: 2000 },
      { cause: 'down again', retryInMs: 1000 },
    ])
  })

  it('forgets the wait after a failure once a refresh succeeds', async () => {
    // A lifetime shorter than the wait, so that a wait left over would be seen.
    const { d, calls } = doc(
      [
        new Error('down'),
        { value: 'v1', maxAgeMs: undefined },
        { value: 'v2', maxAgeMs: undefined },
      ],
      { defaultTtlMs: 100, minTtlMs: 100, retryMinMs: 5000 },
    )
    await d.current()
    expect(await d.refresh('x')).toBe(true)
    vi.advanceTimersByTime(100)
    expect(await d.current()).toBe('v2')
    expect(calls()).toBe(3)
  })

  it('serves an initial document without fetching, and never counts it stale', async () => {
    const { d, calls } = doc([{ value: 'fetched', maxAgeMs: undefined }], {}, 'initial')
    vi.advanceTimersByTime(365 * 86_400_000)
    expect(d.stale).toBe(false)
    expect(await d.current()).toBe('initial')
    expect(calls()).toBe(0)
  })

  it('tells onUpdate the new document, the one it replaced and the reason', async () => {
    const updates: unknown[] = []
    const { d } = doc(
      [
        { value: 'v1', maxAgeMs: undefined },
        { value: 'v2', maxAgeMs: undefined },
      ],
      { onUpdate: (value, previous, reason) => updates.push({ value, previous, reason }) },
    )
    await d.refresh('start')
    await d.refresh('interval')
    expect(updates).toEqual([
      { value: 'v1', previous: undefined, reason: 'start' },
      { value: 'v2', previous: 'v1', reason: 'interval' },
    ])
  })

  it('shows a fetch in flight as a background task with its details and reason, gone when done', async () => {
    const tasks = new TaskRegistry()
    let release: (v: Fetched<string>) => void = () => {}
    const d = new RefreshingDocument<string>({
      task: 'jwks_fetch',
      taskDetails: { issuer: 'https://idp.example' },
      tasks,
      fetch: () => new Promise((r) => (release = r)),
      defaultTtlMs: 300_000,
      minTtlMs: 60_000,
      maxTtlMs: 86_400_000,
      retryMinMs: 1000,
      retryMaxMs: 8000,
    })
    const pending = d.refresh('start')
    expect(d.inflight).toBe(pending)
    expect(tasks.tree()).toEqual([
      expect.objectContaining({
        kind: 'background',
        name: 'jwks_fetch',
        detail: { issuer: 'https://idp.example', reason: 'start' },
      }),
    ])
    release({ value: 'v', maxAgeMs: undefined })
    expect(await pending).toBe(true)
    expect(d.inflight).toBeUndefined()
    expect(tasks.tree()).toEqual([])
    expect(d.lastFetchAt?.getTime()).toBe(Date.now())
  })
})

describe('RefreshingDocument: the refresh loop', () => {
  it('retries on the backoff after a failure', async () => {
    const { d, calls } = doc([new Error('down'), { value: 'up', maxAgeMs: undefined }], {
      refreshLoop: true,
    })
    await d.refresh('start')
    await vi.advanceTimersByTimeAsync(999)
    expect(calls()).toBe(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(calls()).toBe(2)
    expect(d.value).toBe('up')
    d.stop()
  })

  it('an explicit refresh moves the next timed one rather than adding another', async () => {
    const { d, calls } = doc([{ value: 'v', maxAgeMs: 60_000 }], { refreshLoop: true })
    await d.refresh('start')
    await vi.advanceTimersByTimeAsync(30_000)
    await d.refresh('unknown kid')
    expect(calls()).toBe(2)
    await vi.advanceTimersByTimeAsync(59_999)
    expect(calls()).toBe(2)
    await vi.advanceTimersByTimeAsync(1)
    expect(calls()).toBe(3)
    d.stop()
  })

  it('schedules nothing more after stop, even when refreshed by hand', async () => {
    const { d, calls } = doc([{ value: 'v', maxAgeMs: 60_000 }], { refreshLoop: true })
    d.stop()
    await d.refresh('by hand')
    await vi.advanceTimersByTimeAsync(600_000)
    expect(calls()).toBe(1)
  })

  it('without refreshLoop, fetches only when asked', async () => {
    const { d, calls } = doc([{ value: 'v', maxAgeMs: 60_000 }])
    await d.refresh('start')
    await vi.advanceTimersByTimeAsync(600_000)
    expect(calls()).toBe(1)
  })
})

describe('RefreshingDocument: reasons and optional callbacks', () => {
  it("names its own fetches: 'on demand' from current(), 'interval' from the loop", async () => {
    const reasons: string[] = []
    const { d } = doc(
      [
        { value: 'v1', maxAgeMs: 60_000 },
        { value: 'v2', maxAgeMs: 60_000 },
      ],
      { refreshLoop: true, onUpdate: (_v, _p, reason) => reasons.push(reason) },
    )
    await d.current()
    await vi.advanceTimersByTimeAsync(60_000)
    expect(reasons).toEqual(['on demand', 'interval'])
    d.stop()
  })

  it('fails quietly without an onFailure callback: refresh resolves false, the error is kept', async () => {
    const { d } = doc([new Error('HTTP 503')], { onFailure: undefined })
    expect(await d.refresh('x')).toBe(false)
    expect(d.lastError).toBe('HTTP 503')
  })
})
