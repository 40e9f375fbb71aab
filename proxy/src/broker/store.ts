/**
 * The broker store a policy's `mcp.broker.store` names: memory, SQLite or Redis; without one,
 * SQLite in the state directory (docs/auth.md, "Where the broker keeps its state").
 */
import { join, resolve } from 'node:path'
import { BrokerMemoryStoreSchema, BrokerSqliteStoreSchema } from '../config/schema/broker.js'
import type { BrokerConfig } from '../config/schema.js'
import { MemoryStore } from '../store/memory.js'
import { SqliteStore } from '../store/sqlite.js'
import type { BrokerStore } from '../store/types.js'

/** A `store` block as validated (one of memory, sqlite, redis). */
export type BrokerStoreConfig = NonNullable<BrokerConfig['store']>

/** The file of the default store in a state directory. */
export const DEFAULT_STORE_FILE = 'state.sqlite'

/**
 * The store a broker uses: the configured one; without a `store` block, SQLite in
 * `<stateDir>/state.sqlite`. A process given no state directory (the library API used without
 * `stateDir`, where there is no configuration file to put the state beside) keeps the state in
 * memory; the `gatehouse` command always has one.
 */
export function effectiveStore(
  configured: BrokerConfig['store'],
  stateDir: string | undefined,
): BrokerStoreConfig {
  if (configured) return configured
  if (stateDir !== undefined) {
    return { sqlite: BrokerSqliteStoreSchema.parse({ path: join(stateDir, DEFAULT_STORE_FILE) }) }
  }
  return { memory: BrokerMemoryStoreSchema.parse({}) }
}

/** A store that can keep a value across restarts (the broker's signing key). */
export interface PersistentStore extends BrokerStore {
  persistent(name: string, create: () => string): string
}

/** SQLite files open in this process, shared by the brokers (and reloads) that name them. */
const openFiles = new Map<string, { store: SqliteStore; users: number }>()

/**
 * The SQLite store of a file, opened once per process: a reload builds the new policy's broker
 * before the old one closes, and the file admits one connection (exclusive locking).
 * @throws SqliteStoreError when the file cannot be used (the message says why and what to do)
 */
function sharedSqlite(path: string, maxEntries: number): PersistentStore {
  const file = resolve(path)
  let open = openFiles.get(file)
  if (!open) {
    open = { store: new SqliteStore({ path: file, maxEntries }), users: 0 }
    openFiles.set(file, open)
  }
  open.users++
  const entry = open
  let closed = false
  return {
    put: (ns, key, value, ttlMs) => entry.store.put(ns, key, value, ttlMs),
    get: (ns, key) => entry.store.get(ns, key),
    take: (ns, key) => entry.store.take(ns, key),
    delete: (ns, key) => entry.store.delete(ns, key),
    persistent: (name, create) => entry.store.persistent(name, create),
    close: async () => {
      if (closed) return
      closed = true
      if (--entry.users > 0) return
      openFiles.delete(file)
      await entry.store.close()
    },
  }
}

/**
 * Opens the configured store (Redis connects on first use, so start-up never waits for it). The
 * Redis client is imported then too: a proxy without a Redis store never loads it (about 8 MiB of
 * heap, docs/design/performance.md).
 */
export function createStore(config: BrokerStoreConfig): BrokerStore {
  if ('redis' in config) {
    const r = config.redis
    let opened: Promise<BrokerStore> | undefined
    const store = () => {
      opened ??= import('../store/redis.js').then(
        ({ RedisStore }) =>
          new RedisStore({
            url: r.url,
            username: r.username,
            password: r.password,
            keyPrefix: r.keyPrefix,
            maxEntries: r.maxEntries,
            commandTimeoutMs: r.commandTimeout.ms,
          }),
      )
      return opened
    }
    return {
      put: async (ns, key, value, ttlMs) => (await store()).put(ns, key, value, ttlMs),
      get: async (ns, key) => (await store()).get(ns, key),
      take: async (ns, key) => (await store()).take(ns, key),
      delete: async (ns, key) => (await store()).delete(ns, key),
      close: async () => {
        if (opened) await (await opened).close()
      },
    }
  }
  if ('sqlite' in config) return sharedSqlite(config.sqlite.path, config.sqlite.maxEntries)
  return new MemoryStore({ maxEntries: config.memory.maxEntries })
}
