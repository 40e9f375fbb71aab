import { describe, expect, it } from 'vitest'
import { StoreFullError, StoreUnavailableError } from '../../src/store/errors.js'
import { MemoryStore } from '../../src/store/memory.js'
import { storeContract } from './contract.js'

function clock(start = 1_000_000) {
  const c = { t: start, now: () => c.t }
  return c
}

describe('MemoryStore', () => {
  storeContract(async (maxEntries) => new MemoryStore({ maxEntries }))

  it('returns what was put, as a copy, until its TTL passes', async () => {
    const c = clock()
    const s = new MemoryStore({ maxEntries: 100, now: c.now })
    const value = { a: [1, 'x'], b: null }
    await s.put('client', 'k', value, 1000)
    value.a.push(2)
    expect(await s.get('client', 'k')).toEqual({ a: [1, 'x'], b: null })
    c.t += 999
    expect(await s.get('client', 'k')).toBeDefined()
    c.t += 1
    expect(await s.get('client', 'k')).toBeUndefined()
    await s.close()
  })

  it('keeps namespaces apart', async () => {
    const s = new MemoryStore({ maxEntries: 100 })
    await s.put('code', 'k', 'code', 1000)
    expect(await s.get('grant', 'k')).toBeUndefined()
    expect(await s.get('code', 'k')).toBe('code')
    await s.close()
  })

  it('gives a value to exactly one of many concurrent takers', async () => {
    const s = new MemoryStore({ maxEntries: 100 })
    await s.put('code', 'c', { sub: 'alice' }, 60_000)
    const got = await Promise.all(Array.from({ length: 50 }, () => s.take('code', 'c')))
    expect(got.filter((v) => v !== undefined)).toEqual([{ sub: 'alice' }])
    expect(await s.get('code', 'c')).toBeUndefined()
    await s.close()
  })

  it('does not hand out an expired value on take', async () => {
    const c = clock()
    const s = new MemoryStore({ maxEntries: 100, now: c.now })
    await s.put('code', 'c', 1, 10)
    c.t += 10
    expect(await s.take('code', 'c')).toBeUndefined()
    await s.close()
  })

  it('refuses a new key in a full namespace without evicting live entries', async () => {
    const s = new MemoryStore({ maxEntries: 3 })
    for (const k of ['a', 'b', 'c']) await s.put('pending', k, k, 60_000)
    await expect(s.put('pending', 'd', 'd', 60_000)).rejects.toBeInstanceOf(StoreFullError)
    await expect(s.put('pending', 'd', 'd', 60_000)).rejects.toMatchObject({
      code: 'GW_ERR_STORE_FULL',
      status: 503,
    })
    expect(await s.get('pending', 'a')).toBe('a')
    // Replacing an existing key is not growth; other namespaces have their own bound.
    await s.put('pending', 'a', 'a2', 60_000)
    await s.put('client', 'd', 'd', 60_000)
    expect(s.size('pending')).toBe(3)
    await s.close()
  })

  it('makes room from expired entries when a namespace is full', async () => {
    const c = clock()
    const s = new MemoryStore({ maxEntries: 2, now: c.now })
    await s.put('cimd', 'a', 'a', 100)
    await s.put('cimd', 'b', 'b', 10_000)
    await expect(s.put('cimd', 'c', 'c', 100)).rejects.toBeInstanceOf(StoreFullError)
    c.t += 100
    await s.put('cimd', 'c', 'c', 100)
    expect(await s.get('cimd', 'b')).toBe('b')
    expect(s.size('cimd')).toBe(2)
    await s.close()
  })

  it('says truthfully when a full namespace frees a place: Retry-After is the earliest expiry', async () => {
    const c = clock()
    const s = new MemoryStore({ maxEntries: 2, now: c.now })
    await s.put('client', 'a', 'a', 3_600_000)
    await s.put('client', 'b', 'b', 90_500)
    const err = await s.put('client', 'c', 'c', 60_000).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(StoreFullError)
    expect((err as StoreFullError).retryAfterSeconds).toBe(91)
    expect((err as StoreFullError).headers).toEqual({ 'retry-after': '91' })
    // It comes true: after that many seconds the new entry is taken.
    c.t += 91_000
    await s.put('client', 'c', 'c', 60_000)
    expect(await s.get('client', 'c')).toBe('c')
    await s.close()
  })

  it('deletes, and refuses every call once closed', async () => {
    const s = new MemoryStore({ maxEntries: 10 })
    await s.put('consent', 'k', true, 1000)
    await s.delete('consent', 'k')
    expect(await s.get('consent', 'k')).toBeUndefined()
    await s.close()
    await expect(s.get('consent', 'k')).rejects.toBeInstanceOf(StoreUnavailableError)
  })

  it('refuses a TTL that is not positive', async () => {
    const s = new MemoryStore({ maxEntries: 10 })
    await expect(s.put('code', 'k', 1, 0)).rejects.toThrow(/ttl must be positive/)
    await s.close()
  })
})
