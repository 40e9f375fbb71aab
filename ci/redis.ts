/**
 * redis-server for the broker's Redis store tests (docs/design/stores.md). `npm run setup:test-tools` installs
 * Debian's redis-server package where it can; the tests start their own server on a free port in a
 * temporary directory (`proxy/test/store/redis-server.ts`) and stop it.
 */
import { existsSync } from 'node:fs'

/** Where the tests look for redis-server: `REDIS_SERVER_PATH`, else `/usr/bin/redis-server`. */
export function redisServerPath(): string {
  return process.env.REDIS_SERVER_PATH ?? '/usr/bin/redis-server'
}

/** Whether a redis-server binary is where {@link redisServerPath} says. */
export function hasRedisServer(): boolean {
  return existsSync(redisServerPath())
}
