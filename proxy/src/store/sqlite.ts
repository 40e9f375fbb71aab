/**
 * The SQLite {@link BrokerStore}: the broker's state in one file on this machine, through Node's
 * built-in `node:sqlite` (Node 22.5+), so that a restart keeps registered clients, pending
 * sign-ins, codes, refresh grants and the broker's signing key. One process per file: the file is
 * opened in exclusive locking mode, so a second gatehouse on it is refused at start with a clear
 * error (several replicas share `store.redis` instead). WAL journal; the schema carries a version
 * (`PRAGMA user_version`) and is migrated at open; the file is created 0600 (store/sqlite-file.ts
 * opens and migrates it; this module is the store's operations on it).
 *
 * Every call is synchronous underneath (node:sqlite), a few microseconds on an indexed table, so
 * `take` is atomic as in the memory store. Expired rows are invisible at once and deleted by a
 * periodic sweep that removes at most {@link SWEEP_BATCH} rows per namespace per run (bounded work).
 */

import { StoreFullError, StoreUnavailableError } from './errors.js'
import { type Database, loadSqlite, openFile, type Statement } from './sqlite-file.js'
import {
  type BrokerStore,
  STORE_NAMESPACES,
  type StoreGroup,
  type StoreNamespace,
  type StoreValue,
} from './types.js'

/** Rows the periodic sweep deletes per namespace per run. */
export const SWEEP_BATCH = 1000

/** Options of {@link SqliteStore}. */
export interface SqliteStoreOptions {
  /** The database file (`store.sqlite.path`). */
  path: string
  /** Entries per namespace (`store.sqlite.maxEntries`). */
  maxEntries: number
  /** Interval of the expiry sweep. Default 60 s. */
  sweepIntervalMs?: number
  /** The clock, in milliseconds since the epoch. Default `Date.now`. */
  now?: () => number
}

/** A {@link BrokerStore} in a SQLite file. */
export class SqliteStore implements BrokerStore {
  readonly #o: SqliteStoreOptions
  readonly #now: () => number
  /** The order of the last put (the `stored` column): ties of the millisecond clock broken. */
  #stored = 0
  readonly #db: Database
  readonly #counts = new Map<StoreNamespace, number>()
  readonly #timer: NodeJS.Timeout
  readonly #q: {
    get: Statement
    exists: Statement
    upsert: Statement
    take: Statement
    del: Statement
    sweep: Statement
    earliest: Statement
    inGroup: Statement
    groupCount: Statement
    groupTrim: Statement
  }
  #closed = false

  /** Opens (creating, migrating) the file. @throws SqliteStoreError naming the file and the cause. */
  constructor(options: SqliteStoreOptions) {
    this.#o = options
    this.#now = options.now ?? Date.now
    const Db = loadSqlite()
    const path = options.path
    this.#db = openFile(Db, path)
    this.#q = {
      get: this.#db.prepare('SELECT value, expires_at FROM entries WHERE ns = ? AND key = ?'),
      exists: this.#db.prepare(
        'SELECT 1 AS x FROM entries WHERE ns = ? AND key = ? AND expires_at > ?',
      ),
      upsert: this.#db.prepare(
        'INSERT INTO entries (ns, key, value, expires_at, grp, stored) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (ns, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at, grp = excluded.grp, stored = excluded.stored',
      ),
      take: this.#db.prepare(
        'DELETE FROM entries WHERE ns = ? AND key = ? RETURNING value, expires_at',
      ),
      del: this.#db.prepare('DELETE FROM entries WHERE ns = ? AND key = ?'),
      sweep: this.#db.prepare(
        'DELETE FROM entries WHERE ns = ? AND key IN (SELECT key FROM entries WHERE ns = ? AND expires_at <= ? LIMIT ?)',
      ),
      earliest: this.#db.prepare('SELECT MIN(expires_at) AS t FROM entries WHERE ns = ?'),
      inGroup: this.#db.prepare(
        'SELECT 1 AS x FROM entries WHERE ns = ? AND key = ? AND grp = ? AND expires_at > ?',
      ),
      groupCount: this.#db.prepare(
        'SELECT COUNT(*) AS n FROM entries WHERE ns = ? AND grp = ? AND expires_at > ?',
      ),
      // The owner's expired entries, and its least recently stored live ones beyond the bound.
      groupTrim: this.#db.prepare(
        'DELETE FROM entries WHERE ns = ? AND key IN (SELECT key FROM entries WHERE ns = ? AND grp = ? AND expires_at <= ? UNION ALL SELECT key FROM (SELECT key FROM entries WHERE ns = ? AND grp = ? AND expires_at > ? ORDER BY stored LIMIT ?))',
      ),
    }
    this.#stored = Number(
      this.#db.prepare('SELECT COALESCE(MAX(stored), 0) AS s FROM entries').get()?.s ?? 0,
    )
    for (const ns of STORE_NAMESPACES) {
      const row = this.#db.prepare('SELECT COUNT(*) AS n FROM entries WHERE ns = ?').get(ns)
      this.#counts.set(ns, Number(row?.n ?? 0))
    }
    this.#timer = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 60_000)
    this.#timer.unref()
  }

  /** Rows in a namespace (expired ones not yet swept included). */
  size(ns: StoreNamespace): number {
    return this.#counts.get(ns) ?? 0
  }

  /** Deletes up to {@link SWEEP_BATCH} expired rows per namespace. */
  sweep(): void {
    if (this.#closed) return
    const now = this.#now()
    for (const ns of STORE_NAMESPACES) this.#sweepSpace(ns, now)
  }

  async put(
    ns: StoreNamespace,
    key: string,
    value: StoreValue,
    ttlMs: number,
    group?: StoreGroup,
  ): Promise<void> {
    this.#check(ns)
    if (!(ttlMs > 0)) throw new RangeError(`store ttl must be positive, got ${ttlMs}`)
    const now = this.#now()
    const json = JSON.stringify(value)
    if (group) this.#makeRoom(ns, key, group, now)
    const live = this.#q.exists.get(ns, key, now) !== undefined
    if (!live && this.size(ns) >= this.#o.maxEntries) {
      this.#sweepSpace(ns, now)
      if (this.size(ns) >= this.#o.maxEntries) {
        const t = Number(this.#q.earliest.get(ns)?.t ?? now)
        throw new StoreFullError(ns, this.#o.maxEntries, t - now)
      }
    }
    this.#run(() => {
      const existed = this.#q.get.get(ns, key) !== undefined
      this.#stored += 1
      this.#q.upsert.run(
        ns,
        key,
        json,
        now + Math.ceil(ttlMs),
        group ? group.id : null,
        this.#stored,
      )
      if (!existed) this.#counts.set(ns, this.size(ns) + 1)
    })
  }

  async get(ns: StoreNamespace, key: string): Promise<StoreValue | undefined> {
    this.#check(ns)
    const row = this.#run(() => this.#q.get.get(ns, key))
    if (!row || Number(row.expires_at) <= this.#now()) return undefined
    return JSON.parse(String(row.value)) as StoreValue
  }

  async take(ns: StoreNamespace, key: string): Promise<StoreValue | undefined> {
    this.#check(ns)
    // One statement: read and delete at once, so of concurrent callers one gets it.
    const row = this.#run(() => this.#q.take.get(ns, key))
    if (!row) return undefined
    this.#counts.set(ns, Math.max(0, this.size(ns) - 1))
    if (Number(row.expires_at) <= this.#now()) return undefined
    return JSON.parse(String(row.value)) as StoreValue
  }

  async delete(ns: StoreNamespace, key: string): Promise<void> {
    this.#check(ns)
    const { changes } = this.#run(() => this.#q.del.run(ns, key))
    this.#counts.set(ns, Math.max(0, this.size(ns) - Number(changes)))
  }

  /**
   * A value kept in the file under `name`, created by `create` the first time (the broker's
   * signing key when `mcp.broker.secret` is not set, so that CSRF tokens, states and consent
   * cookies issued before a restart still verify after it).
   */
  persistent(name: string, create: () => string): string {
    if (this.#closed) throw new StoreUnavailableError('the store was closed')
    const row = this.#db.prepare('SELECT value FROM meta WHERE name = ?').get(name)
    if (row) return String(row.value)
    const value = create()
    this.#db.prepare('INSERT INTO meta (name, value) VALUES (?, ?)').run(name, value)
    return value
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    clearInterval(this.#timer)
    this.#db.close()
  }

  /** Room for a new key of `group`: its own expired and least recently stored entries go. */
  #makeRoom(ns: StoreNamespace, key: string, group: StoreGroup, now: number): void {
    this.#run(() => {
      if (this.#q.inGroup.get(ns, key, group.id, now) !== undefined) return
      const held = Number(this.#q.groupCount.get(ns, group.id, now)?.n ?? 0)
      const over = Math.max(0, held - group.max + 1)
      const { changes } = this.#q.groupTrim.run(ns, ns, group.id, now, ns, group.id, now, over)
      if (Number(changes) > 0) this.#counts.set(ns, Math.max(0, this.size(ns) - Number(changes)))
    })
  }

  #sweepSpace(ns: StoreNamespace, now: number): void {
    const { changes } = this.#run(() => this.#q.sweep.run(ns, ns, now, SWEEP_BATCH))
    if (Number(changes) > 0) this.#counts.set(ns, Math.max(0, this.size(ns) - Number(changes)))
  }

  #check(ns: StoreNamespace): void {
    if (this.#closed) throw new StoreUnavailableError('the store was closed')
    if (!this.#counts.has(ns)) throw new RangeError(`unknown store namespace "${ns}"`)
  }

  /** Runs a statement; a SQLite failure (disk full, I/O error) is a 503, never a crash. */
  #run<T>(statement: () => T): T {
    try {
      return statement()
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err)
      throw new StoreUnavailableError(`SQLite store ${this.#o.path}: ${message}`, { cause: err })
    }
  }
}
