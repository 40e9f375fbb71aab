/**
 * The Redis {@link BrokerStore}, for several gatehouse replicas behind a load balancer (docs/design/stores.md
 * item 6). Needs Redis 6.2+ (GETDEL). Each entry is a string key with a PX expiry; each namespace
 * has an index (a sorted set of keys by expiry) that bounds its size, and an owner's entries
 * (StoreGroup) a sorted set of their own that bounds theirs. `put` and `take` are Lua
 * scripts, so they are atomic against every replica: a full namespace refuses new keys (after
 * dropping expired ones), and of concurrent `take`s of a one-time code exactly one gets it.
 *
 * The client is `@redis/client` (node-redis). Commands fail fast when the server is away (no
 * offline queue) and after `commandTimeout`; every failure is a `StoreUnavailableError` (503),
 * so a request never hangs on the store.
 */
import { createClient, type RedisClientType } from '@redis/client'
import type { BrokerRedisStoreConfig } from '../config/schema.js'
import { StoreFullError, StoreUnavailableError } from './errors.js'
import type { BrokerStore, StoreGroup, StoreNamespace, StoreValue } from './types.js'

/**
 * KEYS: entry, index, and the owner's keys (a sorted set by time stored) when the entry counts
 * against an owner (StoreGroup). ARGV: value, ttl ms, max entries, and the owner's bound. Returns
 * 1 stored, or, when full, the negated milliseconds until the earliest entry expires (at most -1).
 * An owner at its bound first loses its own least recently stored entries (expired ones, gone
 * already, are dropped from its set on the way); the owner's set is scored by the time of storing
 * in microseconds, since entries stored in the same millisecond would tie and a sorted set orders
 * ties by member, not by arrival.
 */
const PUT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if KEYS[3] and not redis.call('ZSCORE', KEYS[3], KEYS[1]) then
  while redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) do
    local oldest = redis.call('ZPOPMIN', KEYS[3])
    redis.call('DEL', oldest[1])
    redis.call('ZREM', KEYS[2], oldest[1])
  end
end
if not redis.call('ZSCORE', KEYS[2], KEYS[1]) and redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return -math.max(1, tonumber(first[2]) - now)
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), KEYS[1])
if KEYS[3] then
  redis.call('ZADD', KEYS[3], tonumber(t[1]) * 1000000 + tonumber(t[2]), KEYS[1])
  redis.call('PEXPIRE', KEYS[3], ARGV[2])
end
return 1
`

/** KEYS: entry, index. Returns the value (or nil), which no other caller can get any more. */
const TAKE = `
local v = redis.call('GETDEL', KEYS[1])
redis.call('ZREM', KEYS[2], KEYS[1])
return v
`

/** KEYS: entry, index. */
const DELETE = `
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], KEYS[1])
return 1
`

/** Options of {@link RedisStore}: `store.redis` from the configuration. */
export type RedisStoreOptions = Pick<
  BrokerRedisStoreConfig,
  'url' | 'username' | 'password' | 'keyPrefix' | 'maxEntries'
> & { commandTimeoutMs: number }

/** A {@link BrokerStore} in Redis, shared by every replica that names the same server and prefix. */
export class RedisStore implements BrokerStore {
  readonly #o: RedisStoreOptions
  readonly #client: RedisClientType
  /** Calls waiting for the connection; released by the client's 'ready' event. */
  readonly #readyWaiters = new Set<() => void>()
  #closed = false
  #lastError: string | undefined

  constructor(options: RedisStoreOptions) {
    this.#o = options
    this.#client = createClient({
      url: options.url,
      ...(options.username ? { username: options.username } : {}),
      ...(options.password ? { password: options.password } : {}),
      // Fail fast while disconnected instead of queueing: the caller answers 503 at once.
      disableOfflineQueue: true,
      commandOptions: { timeout: options.commandTimeoutMs },
      socket: {
        connectTimeout: options.commandTimeoutMs,
        reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2000),
      },
    }) as RedisClientType
    // node-redis emits 'error' on every failed (re)connection; without a listener the process
    // would exit. The error is kept for the next request's 503.
    this.#client.on('error', (err: Error) => {
      this.#lastError = err.message
    })
    this.#client.on('ready', () => {
      for (const done of this.#readyWaiters) done()
      this.#readyWaiters.clear()
    })
  }

  async put(
    ns: StoreNamespace,
    key: string,
    value: StoreValue,
    ttlMs: number,
    group?: StoreGroup,
  ): Promise<void> {
    if (!(ttlMs > 0)) throw new RangeError(`store ttl must be positive, got ${ttlMs}`)
    const ttl = String(Math.ceil(ttlMs))
    const keys = [this.#key(ns, key), this.#index(ns)]
    const args = [JSON.stringify(value), ttl, String(this.#o.maxEntries)]
    if (group) {
      keys.push(`${this.#o.keyPrefix}g:${ns}:${group.id}`)
      args.push(String(group.max))
    }
    const stored = await this.#run((c) => c.eval(PUT, { keys, arguments: args }))
    if (stored !== 1) throw new StoreFullError(ns, this.#o.maxEntries, -Number(stored))
  }

  async get(ns: StoreNamespace, key: string): Promise<StoreValue | undefined> {
    return parse(await this.#run((c) => c.get(this.#key(ns, key))))
  }

  async take(ns: StoreNamespace, key: string): Promise<StoreValue | undefined> {
    return parse(
      await this.#run((c) => c.eval(TAKE, { keys: [this.#key(ns, key), this.#index(ns)] })),
    )
  }

  async delete(ns: StoreNamespace, key: string): Promise<void> {
    await this.#run((c) => c.eval(DELETE, { keys: [this.#key(ns, key), this.#index(ns)] }))
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    if (this.#client.isOpen) await this.#client.close().catch(() => this.#client.destroy())
    else this.#client.destroy()
  }

  #key(ns: StoreNamespace, key: string): string {
    return `${this.#o.keyPrefix}e:${ns}:${key}`
  }

  #index(ns: StoreNamespace): string {
    return `${this.#o.keyPrefix}i:${ns}`
  }

  /**
   * Runs one command on a connected client; every failure becomes a StoreUnavailableError. The
   * whole call — waiting for the connection and the command — is bounded by `commandTimeout` with
   * a timer of its own: the client's per-command timeout does not fire while the server holds a
   * live socket but answers nothing (a stalled or SIGSTOPped server, `DEBUG SLEEP`), and
   * docs/auth.md promises a 503 then, never a hang. A command given up on may still run on the
   * server later; every broker operation is safe to lose or to complete late (a put refused to
   * the caller at worst leaves an entry that expires unused).
   */
  async #run<T>(command: (c: RedisClientType) => Promise<T>): Promise<T> {
    if (this.#closed) throw new StoreUnavailableError('the store was closed')
    const ms = this.#o.commandTimeoutMs
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new StoreUnavailableError(
              `Redis at ${this.#where()} did not answer within ${ms} ms (store.redis.commandTimeout)`,
            ),
          ),
        ms,
      )
    })
    const work = (async () => {
      await this.#connect()
      return await command(this.#client)
    })()
    // The loser of the race must not become an unhandled rejection.
    work.catch(() => undefined)
    try {
      return await Promise.race([work, deadline])
    } catch (err) {
      if (err instanceof StoreUnavailableError) throw err
      const message = err instanceof Error ? err.message : String(err)
      throw new StoreUnavailableError(`Redis at ${this.#where()}: ${message}`, { cause: err })
    } finally {
      clearTimeout(timer)
    }
  }

  /** Connects once; a call waits at most commandTimeout for the connection to be ready. */
  async #connect(): Promise<void> {
    if (this.#client.isReady) return
    if (!this.#client.isOpen) {
      // Rejects only when the client gives up, which it never does (reconnectStrategy); the
      // 'ready' event says when it is up.
      this.#client.connect().catch((err: Error) => {
        this.#lastError = err.message
      })
    }
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#readyWaiters.delete(done)
        const cause = this.#lastError ? ` (${this.#lastError})` : ''
        reject(new StoreUnavailableError(`Redis at ${this.#where()} is not connected${cause}`))
      }, this.#o.commandTimeoutMs)
      const done = () => {
        clearTimeout(timer)
        resolve()
      }
      this.#readyWaiters.add(done)
    })
  }

  /** The server, for messages: host and port, never credentials. */
  #where(): string {
    const u = new URL(this.#o.url)
    return `${u.hostname}:${u.port || '6379'}`
  }
}

function parse(raw: unknown): StoreValue | undefined {
  if (raw === null || raw === undefined) return undefined
  return JSON.parse(String(raw)) as StoreValue
}
