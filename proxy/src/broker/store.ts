/** The broker store a policy's `mcp.broker.store` names: memory (default) or Redis. */
import type { BrokerConfig } from '../config/schema.js'
import { MemoryStore } from '../store/memory.js'
import type { BrokerStore } from '../store/types.js'

/**
 * Opens the configured store (Redis connects on first use, so start-up never waits for it). The
 * Redis client is imported then too: a proxy without a Redis store never loads it (about 8 MiB of
 * heap, issue 26).
 */
export function createStore(config: BrokerConfig['store']): BrokerStore {
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
  return new MemoryStore({ maxEntries: config.memory.maxEntries })
}
