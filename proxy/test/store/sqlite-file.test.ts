/**
 * The SQLite store's file (node:sqlite, Node 22.5+) on real files in a temporary directory,
 * opened through the store: created 0600 with WAL at the current schema version, a version 1
 * file migrated, and the errors at open for a damaged, locked or newer file. On a Node.js without
 * node:sqlite the suite is skipped with that cause (npm run test:lts runs it on Node 22 and 24).
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SqliteStore } from '../../src/store/sqlite.js'
import {
  loadSqlite,
  SQLITE_SCHEMA_VERSION,
  SqliteStoreError,
  sqliteAvailable,
} from '../../src/store/sqlite-file.js'

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-sqlite-file-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let files = 0
const file = () => join(dir, `s${++files}`, 'state.db')

const skip = sqliteAvailable()
  ? undefined
  : `node:sqlite needs Node.js 22.5+, this is ${process.version}; npm run test:lts runs this suite on Node 22 and 24`

describe.skipIf(skip !== undefined)(
  `the SQLite store's file${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    it('creates the file 0600 with WAL, at the current schema version', async () => {
      const path = file()
      const s = new SqliteStore({ path, maxEntries: 100 })
      await s.put('code', 'c', 1, 60_000)
      expect(statSync(path).mode & 0o777).toBe(0o600)
      expect(statSync(`${path}-wal`).mode & 0o777).toBe(0o600)
      await s.close()
      const Db = loadSqlite()
      const raw = new Db(path)
      expect(raw.prepare('PRAGMA user_version').get()?.user_version).toBe(SQLITE_SCHEMA_VERSION)
      expect(raw.prepare('PRAGMA journal_mode').get()?.journal_mode).toBe('wal')
      raw.close()
    })

    it('refuses at open, naming the file and what to do: a damaged file, a locked one, a newer schema', async () => {
      const damaged = file()
      const s0 = new SqliteStore({ path: damaged, maxEntries: 100 })
      await s0.close()
      writeFileSync(damaged, 'this is not a database, it is plain text '.repeat(200))
      expect(() => new SqliteStore({ path: damaged, maxEntries: 100 })).toThrow(
        /state store .*state\.db is not a usable SQLite database .*move it away/,
      )

      const locked = file()
      const holder = new SqliteStore({ path: locked, maxEntries: 100 })
      const err = (() => {
        try {
          return new SqliteStore({ path: locked, maxEntries: 100 })
        } catch (e) {
          return e
        }
      })()
      expect(err).toBeInstanceOf(SqliteStoreError)
      expect(String((err as Error).message)).toMatch(
        /in use by another process.*one gatehouse process per file/,
      )
      await holder.close()

      const newer = file()
      const s1 = new SqliteStore({ path: newer, maxEntries: 100 })
      await s1.close()
      const Db = loadSqlite()
      const raw = new Db(newer)
      raw.exec(`PRAGMA user_version = ${SQLITE_SCHEMA_VERSION + 1}`)
      raw.close()
      expect(() => new SqliteStore({ path: newer, maxEntries: 100 })).toThrow(
        `schema version ${SQLITE_SCHEMA_VERSION + 1}, newer than this gatehouse's ${SQLITE_SCHEMA_VERSION}`,
      )
    })

    it('migrates a version 1 file: its entries kept, owner bounds (StoreGroup) applied from then on', async () => {
      const path = file()
      mkdirSync(dirname(path), { recursive: true })
      const Db = loadSqlite()
      const raw = new Db(path)
      raw.exec(`CREATE TABLE entries (ns TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
      expires_at INTEGER NOT NULL, PRIMARY KEY (ns, key)) WITHOUT ROWID;
      CREATE INDEX entries_expiry ON entries (ns, expires_at);
      CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      PRAGMA user_version = 1;`)
      raw
        .prepare('INSERT INTO entries (ns, key, value, expires_at) VALUES (?, ?, ?, ?)')
        .run('session', 'old', '"kept"', Date.now() + 60_000)
      raw.close()
      const s = new SqliteStore({ path, maxEntries: 100 })
      expect(await s.get('session', 'old')).toBe('kept')
      const mallory = { id: 'mallory', max: 2 }
      for (const k of ['m1', 'm2', 'm3']) await s.put('session', k, k, 60_000, mallory)
      expect(await s.get('session', 'm1')).toBeUndefined()
      expect(await s.get('session', 'm3')).toBe('m3')
      expect(await s.get('session', 'old')).toBe('kept')
      expect(s.size('session')).toBe(3)
      await s.close()
    })
  },
)
