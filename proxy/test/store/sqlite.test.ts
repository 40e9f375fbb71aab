/**
 * The SQLite store (node:sqlite, Node 22.5+) on real files in a temporary directory: the store
 * contract, persistence across a reopen and bounded sweeps (the file's mode, schema version,
 * migration and the errors at open: sqlite-file.test.ts). On a Node.js without node:sqlite the
 * suite is skipped with that cause (npm run test:lts runs it on Node 22 and 24).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SqliteStore, SWEEP_BATCH } from '../../src/store/sqlite.js'
import { sqliteAvailable } from '../../src/store/sqlite-file.js'
import { storeContract } from './contract.js'

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-sqlite-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let files = 0
const file = () => join(dir, `s${++files}`, 'state.db')

const skip = sqliteAvailable()
  ? undefined
  : `node:sqlite needs Node.js 22.5+, this is ${process.version}; npm run test:lts runs this suite on Node 22 and 24`

describe.skipIf(skip !== undefined)(`SqliteStore${skip ? ` (skipped: ${skip})` : ''}`, () => {
  storeContract(async (maxEntries) => new SqliteStore({ path: file(), maxEntries }))

  it('keeps its entries, and their expiry, across a close and reopen (a restart)', async () => {
    const path = file()
    let now = 1_000_000
    const a = new SqliteStore({ path, maxEntries: 100, now: () => now })
    await a.put('client', 'gh_1', { clientId: 'gh_1' }, 60_000)
    await a.put('grant', 'g', { secret: 'd' }, 1000)
    const key = a.persistent('signing-key', () => 'k1')
    await a.close()
    now += 1000
    const b = new SqliteStore({ path, maxEntries: 100, now: () => now })
    expect(await b.get('client', 'gh_1')).toEqual({ clientId: 'gh_1' })
    expect(await b.get('grant', 'g')).toBeUndefined()
    expect(b.persistent('signing-key', () => 'k2')).toBe(key)
    expect(b.size('client')).toBe(1)
    await b.close()
  })

  it('an owner at its bound loses its least recently stored entries when all were stored in the same millisecond, and after a reopen', async () => {
    // Regression: the owner's trim ordered by expiry alone, so entries stored in one millisecond
    // (the same expiry) came back in key order: m10…m19 went before m2.
    const path = file()
    const mallory = { id: 'mallory', max: 3 }
    const a = new SqliteStore({ path, maxEntries: 100, now: () => 1_000_000 })
    for (let i = 0; i < 12; i++) await a.put('session', `m${i}`, i, 60_000, mallory)
    const kept = async (s: SqliteStore, n: number) =>
      (await Promise.all(Array.from({ length: n }, (_, i) => s.get('session', `m${i}`)))).flatMap(
        (v, i) => (v === undefined ? [] : [i]),
      )
    expect(await kept(a, 12)).toEqual([9, 10, 11])
    await a.close()
    const b = new SqliteStore({ path, maxEntries: 100, now: () => 1_000_000 })
    await b.put('session', 'm12', 12, 60_000, mallory)
    expect(await kept(b, 13)).toEqual([10, 11, 12])
    await b.close()
  })

  it('sweeps at most SWEEP_BATCH expired rows per namespace per run', async () => {
    let now = 0
    const s = new SqliteStore({ path: file(), maxEntries: 10 * SWEEP_BATCH, now: () => now })
    for (let i = 0; i < SWEEP_BATCH + 10; i++) await s.put('cimd', `k${i}`, i, 10)
    now = 10
    s.sweep()
    expect(s.size('cimd')).toBe(10)
    s.sweep()
    expect(s.size('cimd')).toBe(0)
    await s.close()
  })
})
