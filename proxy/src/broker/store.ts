/** The broker store a policy's `mcp.broker.store` names: memory (default) or Redis. */
import type { BrokerConfig } from '../config/schema.js'
import { MemoryStore } from '../store/memory.js'
import { RedisStore } from '../store/redis.js'
import type { BrokerStore } from '../store/types.js'

/** Opens the configured store (Redis connects on first use, so start-up never waits for it). */
export function createStore(config: BrokerConfig['store']): BrokerStore {
  if ('redis' in config) {
    const r = config.redis
    return new RedisStore({
      url: r.url,
      username: r.username,
      password: r.password,
      keyPrefix: r.keyPrefix,
      maxEntries: r.maxEntries,
      commandTimeoutMs: r.commandTimeout.ms,
    })
  }
  return new MemoryStore({ maxEntries: config.memory.maxEntries })
}
