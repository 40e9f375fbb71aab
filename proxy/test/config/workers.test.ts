/** `config.workers` (docs/design/performance.md): its values, and what a configuration needs for several. */
import { availableParallelism } from 'node:os'
import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config/load.js'
import { workerCount } from '../../src/config/workers.js'
import { ConfigError } from '../../src/errors.js'
import { authConfig } from '../auth/config.js'

const BASE = { idpPort: 9000, backendPort: 9001, issuer: 'http://127.0.0.1:9000/oauth2/default' }
const SECRET = 'a-signing-secret-of-at-least-32-characters'

function parse(workers: unknown, broker?: Record<string, unknown>) {
  const config = { ...authConfig({ ...BASE, ...(broker ? { broker } : {}) }), config: { workers } }
  return parseConfig(JSON.stringify(config), 'test.yaml', {})
}

function issues(workers: unknown, broker?: Record<string, unknown>) {
  try {
    parse(workers, broker)
    return []
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    return err.issues
  }
}

describe('config.workers', () => {
  it('defaults to 1, and "auto" runs one worker per available CPU', () => {
    expect(workerCount(parse(undefined))).toBe(1)
    expect(parse(undefined).config.workers).toBe(1)
    expect(workerCount(parse('auto'))).toBe(Math.min(64, availableParallelism()))
    expect(workerCount(parse(4))).toBe(4)
  })

  it('refuses 0, fractions, more than 64 and other words, naming the path', () => {
    for (const bad of [0, 1.5, 65, 'all']) {
      expect(issues(bad).map((i) => i.path)).toEqual(['config.workers'])
    }
  })

  it('refuses a broker memory store with several workers, and says to use store.redis', () => {
    const found = issues(2, {})
    expect(found.map((i) => i.path)).toEqual([
      'policies.mcp-auth.traffic.jwtAuthentication.mcp.broker.store',
    ])
    expect(found[0]?.message).toMatch(
      /config.workers is 2: .*Use store.redis .*or set config.workers: 1/,
    )
    expect(issues('auto', {}).map((i) => i.path)).toHaveLength(1)
    expect(issues(1, {})).toEqual([])
    // A SQLite file admits one process.
    expect(issues(2, { store: { sqlite: { path: 'state.db' } } }).map((i) => i.path)).toHaveLength(
      1,
    )
    expect(
      issues(2, { secret: SECRET, store: { redis: { url: 'redis://127.0.0.1:6379' } } }),
    ).toEqual([])
  })
})
