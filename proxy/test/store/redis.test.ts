/**
 * The Redis store against a real redis-server (Debian's package), started by the test on a free
 * port and stopped after it. Two RedisStore instances on one server stand for two replicas.
 */
import { createClient } from '@redis/client'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { StoreFullError, StoreUnavailableError } from '../../src/store/errors.js'
import { RedisStore, type RedisStoreOptions } from '../../src/store/redis.js'
import { storeContract } from './contract.js'
import { type RedisServer, redisSkipReason, startRedisServer } from './redis-server.js'

const skip = redisSkipReason()
let server: RedisServer
const stores: RedisStore[] = []
let prefixes = 0

beforeAll(async () => {
  if (!skip) server = await startRedisServer()
})
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()))
  await server?.stop()
})

/** A store on the test server under a prefix of its own (unless one is given). */
function store(o: Partial<RedisStoreOptions> = {}): RedisStore {
  const s = new RedisStore({
    url: server.url,
    keyPrefix: `t${++prefixes}:`,
    maxEntries: 1000,
    commandTimeoutMs: 2000,
    ...o,
  })
  stores.push(s)
  return s
}

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error('condition not reached')
}

describe.skipIf(skip !== undefined)(`RedisStore${skip ? ` (skipped: ${skip})` : ''}`, () => {
  storeContract(async (maxEntries) => store({ maxEntries }))

  it('returns what was put, keeps namespaces apart and deletes', async () => {
    const s = store()
    await s.put('client', 'k', { a: [1, 'x'], b: null, c: true }, 60_000)
    expect(await s.get('client', 'k')).toEqual({ a: [1, 'x'], b: null, c: true })
    expect(await s.get('grant', 'k')).toBeUndefined()
    await s.delete('client', 'k')
    expect(await s.get('client', 'k')).toBeUndefined()
  })

  it('gives each entry its TTL in Redis, and forgets it after', async () => {
    const s = store({ keyPrefix: 'ttl:' })
    await s.put('code', 'c', 'v', 30_000)
    const raw = createClient({ url: server.url })
    await raw.connect()
    try {
      const pttl = await raw.pTTL('ttl:e:code:c')
      expect(pttl).toBeGreaterThan(0)
      expect(pttl).toBeLessThanOrEqual(30_000)
    } finally {
      await raw.close()
    }
    await s.put('code', 'short', 'v', 1)
    await until(async () => (await s.get('code', 'short')) === undefined)
  })

  it('gives a code to exactly one of many concurrent takers on two replicas', async () => {
    const a = store({ keyPrefix: 'shared-take:' })
    const b = store({ keyPrefix: 'shared-take:' })
    await a.put('code', 'c', { sub: 'alice' }, 60_000)
    const got = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).take('code', 'c')),
    )
    expect(got.filter((v) => v !== undefined)).toEqual([{ sub: 'alice' }])
    expect(await b.get('code', 'c')).toBeUndefined()
  })

  it('shares entries between replicas with one prefix, and not across prefixes', async () => {
    const a = store({ keyPrefix: 'shared:' })
    const b = store({ keyPrefix: 'shared:' })
    const other = store({ keyPrefix: 'other:' })
    await a.put('client', 'gh_1', { clientId: 'gh_1' }, 60_000)
    expect(await b.get('client', 'gh_1')).toEqual({ clientId: 'gh_1' })
    expect(await other.get('client', 'gh_1')).toBeUndefined()
  })

  it('refuses a new key in a full namespace across replicas, without evicting', async () => {
    const a = store({ keyPrefix: 'full:', maxEntries: 100 })
    const b = store({ keyPrefix: 'full:', maxEntries: 100 })
    await Promise.all(
      Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).put('client', `c${i}`, i, 60_000)),
    )
    await expect(b.put('client', 'c100', 100, 60_000)).rejects.toBeInstanceOf(StoreFullError)
    // Replacing is not growth; other namespaces have their own bound.
    await a.put('client', 'c1', 'again', 60_000)
    await a.put('pending', 'p', 1, 60_000)
    expect(await b.get('client', 'c0')).toBe(0)
  })

  it('says truthfully when a full namespace frees a place: Retry-After is the earliest expiry', async () => {
    const s = store({ maxEntries: 100 })
    await Promise.all(Array.from({ length: 99 }, (_, i) => s.put('client', `k${i}`, i, 3_600_000)))
    await s.put('client', 'soon', 'x', 90_500)
    const err = await s.put('client', 'new', 'y', 60_000).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(StoreFullError)
    // 90.5 s less the time since the put: about 91 s, not a fixed 30.
    const seconds = (err as StoreFullError).retryAfterSeconds
    expect(seconds).toBeGreaterThan(80)
    expect(seconds).toBeLessThanOrEqual(91)
    expect((err as StoreFullError).headers).toEqual({ 'retry-after': String(seconds) })
  })

  it('makes room from expired entries in a full namespace', async () => {
    const s = store({ maxEntries: 100 })
    await Promise.all(Array.from({ length: 99 }, (_, i) => s.put('cimd', `k${i}`, i, 60_000)))
    await s.put('cimd', 'soon', 'x', 1)
    await until(async () => (await s.get('cimd', 'soon')) === undefined)
    await s.put('cimd', 'new', 'y', 60_000)
    expect(await s.get('cimd', 'new')).toBe('y')
  })

  it('answers StoreUnavailableError, naming the server but no password, when Redis is not there', async () => {
    const down = new RedisStore({
      url: 'redis://127.0.0.1:1',
      password: 'hunter2-secret',
      keyPrefix: 'x:',
      maxEntries: 100,
      commandTimeoutMs: 300,
    })
    const err = await down.get('client', 'k').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(StoreUnavailableError)
    expect((err as StoreUnavailableError).status).toBe(503)
    expect(String((err as Error).message)).toMatch(/127\.0\.0\.1:1/)
    expect(String((err as Error).message)).not.toContain('hunter2')
    await down.close()
  })

  it('fails later calls fast once the server goes away, and does not crash the process', async () => {
    const own = await startRedisServer()
    const s = new RedisStore({
      url: own.url,
      keyPrefix: 'gone:',
      maxEntries: 100,
      commandTimeoutMs: 500,
    })
    await s.put('grant', 'g', 1, 60_000)
    await own.stop()
    await expect(s.get('grant', 'g')).rejects.toBeInstanceOf(StoreUnavailableError)
    await s.close()
    await expect(s.get('grant', 'g')).rejects.toBeInstanceOf(StoreUnavailableError)
  })

  it('answers StoreUnavailableError within commandTimeout on every call while the server sleeps (DEBUG SLEEP)', async () => {
    const own = await startRedisServer()
    const s = new RedisStore({
      url: own.url,
      keyPrefix: 'slow:',
      maxEntries: 100,
      commandTimeoutMs: 1000,
    })
    const admin = createClient({ url: own.url })
    try {
      await s.put('client', 'c', 1, 60_000)
      await s.put('code', 'k', 1, 60_000)
      await admin.connect()
      // The server does nothing else for 4 s; each store call must give up after its 1 s.
      let slept = false
      const sleep = admin.sendCommand(['DEBUG', 'SLEEP', '4']).then(() => {
        slept = true
      })
      const calls = [
        s.get('client', 'c'),
        s.put('pending', 'p', 1, 60_000),
        s.take('code', 'k'),
        s.delete('grant', 'g'),
      ]
      for (const call of calls) {
        const err = await call.catch((e: unknown) => e)
        expect(err).toBeInstanceOf(StoreUnavailableError)
        expect(String((err as Error).message)).toMatch(/did not answer within 1000 ms/)
      }
      // Every call was answered while the server was still asleep.
      expect(slept).toBe(false)
      await sleep
    } finally {
      await admin.close().catch(() => undefined)
      await s.close()
      await own.stop()
    }
  })

  it('answers 200 parallel calls with StoreUnavailableError when the server is stopped (SIGSTOP), and recovers after SIGCONT', async () => {
    const own = await startRedisServer()
    const s = new RedisStore({
      url: own.url,
      keyPrefix: 'stop:',
      maxEntries: 1000,
      commandTimeoutMs: 500,
    })
    // Should the calls hang (the defect this guards), the server is woken and stopped anyway.
    onTestFinished(async () => {
      process.kill(own.pid, 'SIGCONT')
      await s.close()
      await own.stop()
    })
    try {
      await s.put('client', 'c', 'v', 60_000)
      process.kill(own.pid, 'SIGSTOP')
      try {
        const results = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            (i % 2 ? s.get('client', 'c') : s.put('pending', `p${i}`, i, 60_000)).then(
              () => 'answered',
              (e: unknown) => e,
            ),
          ),
        )
        expect(results).toHaveLength(200)
        for (const r of results) expect(r).toBeInstanceOf(StoreUnavailableError)
      } finally {
        process.kill(own.pid, 'SIGCONT')
      }
      await until(async () => (await s.get('client', 'c').catch(() => undefined)) === 'v')
    } finally {
      process.kill(own.pid, 'SIGCONT')
    }
  })
})
