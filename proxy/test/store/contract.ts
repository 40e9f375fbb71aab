/**
 * The contract every BrokerStore keeps (proxy/src/store/types.ts), run against each
 * implementation by its own test file (memory.test.ts, redis.test.ts, sqlite.test.ts): values as
 * copies, namespaces apart, one taker per value, a full namespace refusing new keys without
 * evicting and saying truthfully when a place frees up, an owner's bound (StoreGroup) evicting
 * only that owner's entries, and every call refused once closed.
 */
import { expect, it } from 'vitest'
import { StoreFullError, StoreUnavailableError } from '../../src/store/errors.js'
import type { BrokerStore } from '../../src/store/types.js'

/** Opens a fresh, empty store holding at most `maxEntries` per namespace. */
export type OpenStore = (maxEntries: number) => Promise<BrokerStore>

/** Registers the contract's tests in the calling `describe`. */
export function storeContract(open: OpenStore): void {
  it('contract: returns a copy of what was put, keeps namespaces apart, deletes', async () => {
    const s = await open(100)
    const value = { a: [1, 'x'], b: null, c: true }
    await s.put('client', 'k', value, 60_000)
    value.a.push(2)
    expect(await s.get('client', 'k')).toEqual({ a: [1, 'x'], b: null, c: true })
    expect(await s.get('grant', 'k')).toBeUndefined()
    await s.put('client', 'k', 'replaced', 60_000)
    expect(await s.get('client', 'k')).toBe('replaced')
    await s.delete('client', 'k')
    expect(await s.get('client', 'k')).toBeUndefined()
    await s.close()
  })

  it('contract: gives a value to exactly one of many concurrent takers', async () => {
    const s = await open(100)
    await s.put('code', 'c', { sub: 'alice' }, 60_000)
    const got = await Promise.all(Array.from({ length: 40 }, () => s.take('code', 'c')))
    expect(got.filter((v) => v !== undefined)).toEqual([{ sub: 'alice' }])
    expect(await s.get('code', 'c')).toBeUndefined()
    await s.close()
  })

  it('contract: a full namespace refuses a new key (not a replaced one), evicts nothing, and says when a place frees up', async () => {
    const s = await open(100)
    await Promise.all(Array.from({ length: 99 }, (_, i) => s.put('request', `k${i}`, i, 3_600_000)))
    await s.put('request', 'soonest', 'x', 90_500)
    const err = await s.put('request', 'new', 'y', 60_000).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(StoreFullError)
    const seconds = (err as StoreFullError).retryAfterSeconds
    expect(seconds).toBeGreaterThan(80)
    expect(seconds).toBeLessThanOrEqual(91)
    await s.put('request', 'k0', 'replaced', 60_000)
    await s.put('pending', 'other namespace', 1, 60_000)
    expect(await s.get('request', 'k1')).toBe(1)
    await s.close()
  })

  it('contract: an owner at its bound makes room from its own least recently stored entries, never from another owner', async () => {
    const s = await open(100)
    const alice = { id: 'alice', max: 3 }
    const mallory = { id: 'mallory', max: 3 }
    await s.put('session', 'a1', 1, 60_000, alice)
    await s.put('session', 'a2', 2, 60_000, alice)
    for (let i = 0; i < 50; i++) await s.put('session', `m${i}`, i, 60_000, mallory)
    expect(await s.get('session', 'a1')).toBe(1)
    expect(await s.get('session', 'a2')).toBe(2)
    const mine = await Promise.all(Array.from({ length: 50 }, (_, i) => s.get('session', `m${i}`)))
    expect(mine.flatMap((v, i) => (v === undefined ? [] : [i]))).toEqual([47, 48, 49])
    // Stored again (a renewal): no eviction, and it becomes the most recent.
    await s.put('session', 'm47', 'renewed', 60_000, mallory)
    await s.put('session', 'm50', 50, 60_000, mallory)
    expect(await s.get('session', 'm47')).toBe('renewed')
    expect(await s.get('session', 'm48')).toBeUndefined()
    // A deleted entry no longer counts against its owner.
    await s.delete('session', 'a1')
    await s.put('session', 'a3', 3, 60_000, alice)
    await s.put('session', 'a4', 4, 60_000, alice)
    expect(await Promise.all(['a2', 'a3', 'a4'].map((k) => s.get('session', k)))).toEqual([2, 3, 4])
    await s.close()
  })

  it('contract: refuses a TTL that is not positive, and every call once closed', async () => {
    const s = await open(100)
    await expect(s.put('code', 'k', 1, 0)).rejects.toBeInstanceOf(RangeError)
    await s.close()
    await expect(s.get('code', 'k')).rejects.toBeInstanceOf(StoreUnavailableError)
    await expect(s.put('code', 'k', 1, 1000)).rejects.toBeInstanceOf(StoreUnavailableError)
  })
}
