/**
 * `npm run bench:store`: broker store operations per second for the three stores — memory,
 * SQLite (node:sqlite: needs Node 22.5+, else left out saying why) and Redis (a redis-server
 * started here on a free loopback port, if installed). Each store gets the same sequence: `put`
 * of fresh keys (a registration, a pending sign-in), `get` of live keys (a client lookup), and
 * `take` (a code redeemed), one call at a time (a request's latency) and 64 at once (a busy
 * gateway), for `--seconds` each (default 2). Run it on Node 22 to include SQLite:
 *
 *     node_modules/node-lts-22/bin/node --import tsx bench/store.ts
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { MemoryStore } from '@gatehouse/proxy/store/memory'
import { RedisStore } from '@gatehouse/proxy/store/redis'
import { SqliteStore } from '@gatehouse/proxy/store/sqlite'
import { sqliteAvailable } from '@gatehouse/proxy/store/sqlite-file'
import type { BrokerStore } from '@gatehouse/proxy/store/types'
import { redisSkipReason, startRedisServer } from '@gatehouse/proxy/testing/redis-server'

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '2' } } })
const SECONDS = Number(values.seconds)
const VALUE = {
  clientId: 'gh_0123456789abcdefghijkl',
  redirectUris: ['http://127.0.0.1:33418/callback'],
  tokenEndpointAuthMethod: 'none',
  source: 'registered',
}

type Op = 'put' | 'get' | 'take'

/** Runs `op` for SECONDS with `parallel` callers; returns operations per second. */
async function measure(store: BrokerStore, op: Op, parallel: number): Promise<number> {
  let n = 0
  let seq = 0
  const until = performance.now() + SECONDS * 1000
  const caller = async () => {
    while (performance.now() < until) {
      const key = `k${seq++ % 50_000}`
      if (op === 'put') await store.put('client', key, VALUE, 3_600_000)
      else if (op === 'get') await store.get('client', key)
      else {
        await store.put('code', key, VALUE, 60_000)
        await store.take('code', key)
      }
      n++
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: parallel }, caller))
  return n / ((performance.now() - started) / 1000)
}

async function bench(name: string, store: BrokerStore): Promise<string> {
  const cells: string[] = []
  for (const parallel of [1, 64]) {
    for (const op of ['put', 'get', 'take'] as const) {
      cells.push(String(Math.round(await measure(store, op, parallel))))
    }
  }
  await store.close()
  return `| ${name} | ${cells.join(' | ')} |`
}

const rows: string[] = []
const notes: string[] = []
rows.push(await bench('memory', new MemoryStore({ maxEntries: 100_000 })))
if (sqliteAvailable()) {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-sqlite-'))
  try {
    rows.push(
      await bench('sqlite', new SqliteStore({ path: join(dir, 'state.db'), maxEntries: 100_000 })),
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
} else {
  notes.push(`sqlite left out: node:sqlite needs Node 22.5+, this is ${process.version}`)
}
const redisSkip = redisSkipReason()
if (redisSkip) notes.push(`redis left out: ${redisSkip}`)
else {
  const server = await startRedisServer()
  try {
    rows.push(
      await bench(
        'redis (loopback)',
        new RedisStore({
          url: server.url,
          keyPrefix: 'bench:',
          maxEntries: 100_000,
          commandTimeoutMs: 2000,
        }),
      ),
    )
  } finally {
    await server.stop()
  }
}
process.stdout.write(
  `store operations per second, ${SECONDS} s each, Node ${process.version}\n` +
    '| store | put ×1 | get ×1 | put+take ×1 | put ×64 | get ×64 | put+take ×64 |\n' +
    '|---|---|---|---|---|---|---|\n' +
    `${rows.join('\n')}\n${notes.map((n) => `- ${n}\n`).join('')}`,
)
