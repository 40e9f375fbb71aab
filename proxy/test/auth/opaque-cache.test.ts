/**
 * The opaque-token cache (proxy/src/auth/opaque-cache.ts), in process with a fake clock: entries
 * keyed by the token's SHA-256, their lifetime bounded by the configured duration and the entry's
 * own TTL, the size bound, refusals never remembered, and one validation per token in flight.
 */
import { createHash } from 'node:crypto'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { OpaqueTokenCache, tokenKey } from '../../src/auth/opaque-cache.js'

afterEach(() => {
  vi.useRealTimers()
})

/** A validation that counts its calls and accepts with `ttlMs`. */
function counting(ttlMs: number | undefined, value = 'ok') {
  const calls = { n: 0 }
  const validate = async () => {
    calls.n++
    return { value: `${value}-${calls.n}`, ttlMs }
  }
  return { calls, validate }
}

describe('tokenKey', () => {
  it('is the SHA-256 of the token, base64url, never the token', () => {
    const token = 'opaque-token-value'
    const key = tokenKey(token)
    expect(key).toBe(createHash('sha256').update(token).digest('base64url'))
    expect(key).not.toContain(token)
  })
})

describe('OpaqueTokenCache', () => {
  it('remembers an accepted token for its TTL and asks again once it is over', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const cache = new OpaqueTokenCache<string>(10, 60_000)
    const { calls, validate } = counting(30_000)
    expect(await cache.get('t', validate)).toBe('ok-1')
    vi.advanceTimersByTime(29_999)
    expect(await cache.get('t', validate)).toBe('ok-1')
    expect(calls.n).toBe(1)
    vi.advanceTimersByTime(1)
    expect(await cache.get('t', validate)).toBe('ok-2')
    expect(calls.n).toBe(2)
  })

  it('never remembers past the configured duration, however long the token lives', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const cache = new OpaqueTokenCache<string>(10, 5_000)
    const { calls, validate } = counting(3_600_000)
    await cache.get('t', validate)
    vi.advanceTimersByTime(4_999)
    await cache.get('t', validate)
    expect(calls.n).toBe(1)
    vi.advanceTimersByTime(1)
    await cache.get('t', validate)
    expect(calls.n).toBe(2)
  })

  it('remembers nothing with a configured duration of 0', async () => {
    const cache = new OpaqueTokenCache<string>(10, 0)
    const { calls, validate } = counting(60_000)
    await cache.get('t', validate)
    await cache.get('t', validate)
    expect(calls.n).toBe(2)
    expect(cache.size).toBe(0)
  })

  it('does not remember a refusal (no TTL) or an already expired token (TTL <= 0)', async () => {
    const cache = new OpaqueTokenCache<string>(10, 60_000)
    const refused = counting(undefined, 'no')
    await cache.get('a', refused.validate)
    await cache.get('a', refused.validate)
    expect(refused.calls.n).toBe(2)
    const expired = counting(-1, 'old')
    await cache.get('b', expired.validate)
    await cache.get('b', expired.validate)
    expect(expired.calls.n).toBe(2)
    expect(cache.size).toBe(0)
  })

  it('keeps at most its size, evicting the least recently used', async () => {
    const cache = new OpaqueTokenCache<string>(2, 60_000)
    const a = counting(60_000, 'a')
    const b = counting(60_000, 'b')
    const c = counting(60_000, 'c')
    await cache.get('a', a.validate)
    await cache.get('b', b.validate)
    await cache.get('a', a.validate) // a is now the most recently used
    await cache.get('c', c.validate) // evicts b
    expect(cache.size).toBe(2)
    await cache.get('a', a.validate)
    await cache.get('b', b.validate)
    expect(a.calls.n).toBe(1)
    expect(b.calls.n).toBe(2)
  })

  it('holds memory for what it remembers, not for its size up front', async () => {
    // Regression: both memories allocated their arrays for `cacheSize` entries when built.
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    setFlagsFromString('--no-expose-gc')
    const held: OpaqueTokenCache<string>[] = []
    gc()
    const before = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers
    for (let i = 0; i < 50; i++) {
      const cache = new OpaqueTokenCache<string>(10_000, 60_000, 60_000)
      await cache.get('a', counting(60_000, 'a').validate)
      held.push(cache)
    }
    gc()
    const after = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers
    expect((after - before) / held.length / 1024).toBeLessThan(32)
  })

  it('runs one validation for concurrent requests with the same token (single flight)', async () => {
    const cache = new OpaqueTokenCache<string>(10, 60_000)
    let release: (v: { value: string; ttlMs: number }) => void = () => {}
    let calls = 0
    const validate = () => {
      calls++
      return new Promise<{ value: string; ttlMs: number }>((r) => {
        release = r
      })
    }
    const all = Promise.all(Array.from({ length: 1000 }, () => cache.get('fresh', validate)))
    expect(cache.pending).toBe(1)
    release({ value: 'claims', ttlMs: 60_000 })
    const results = await all
    expect(calls).toBe(1)
    expect(new Set(results)).toEqual(new Set(['claims']))
    expect(cache.pending).toBe(0)
  })

  it('lets every joined caller see a failed validation, and forgets it for the next request', async () => {
    const cache = new OpaqueTokenCache<string>(10, 60_000)
    let calls = 0
    const failing = async () => {
      calls++
      throw new Error('idp down')
    }
    const results = await Promise.allSettled([cache.get('t', failing), cache.get('t', failing)])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected'])
    expect(calls).toBe(1)
    await expect(cache.get('t', failing)).rejects.toThrow('idp down')
    expect(calls).toBe(2)
  })

  it('keeps different tokens apart', async () => {
    const cache = new OpaqueTokenCache<string>(10, 60_000)
    expect(await cache.get('one', async () => ({ value: '1', ttlMs: 1000 }))).toBe('1')
    expect(await cache.get('two', async () => ({ value: '2', ttlMs: 1000 }))).toBe('2')
    cache.clear()
    expect(cache.size).toBe(0)
  })

  it('remembers a refusal for at most the refusal duration, apart from accepted tokens', async () => {
    vi.useFakeTimers()
    const cache = new OpaqueTokenCache<string>(2, 60_000, 10_000)
    let calls = 0
    const accept = async () => ({ value: `ok-${++calls}`, ttlMs: 60_000 })
    const refuse = async () => ({ value: `no-${++calls}`, ttlMs: 3_600_000, refused: true })
    expect(await cache.get('good', accept)).toBe('ok-1')
    // A flood of refusals fills only the refusals' memory: the accepted token stays remembered.
    for (let i = 0; i < 10; i++) await cache.get(`bad-${i}`, refuse)
    expect(await cache.get('good', accept)).toBe('ok-1')
    expect(cache.refusals).toBe(2)
    expect(await cache.get('bad-9', refuse)).toBe('no-11')
    vi.advanceTimersByTime(10_001)
    expect(await cache.get('bad-9', refuse)).toBe('no-12')
  })

  it('remembers no refusal without a refusal duration (the default)', async () => {
    const cache = new OpaqueTokenCache<string>(10, 60_000)
    let calls = 0
    const refuse = async () => ({ value: `no-${++calls}`, ttlMs: 10_000, refused: true })
    await cache.get('bad', refuse)
    expect(await cache.get('bad', refuse)).toBe('no-2')
  })
})
