/**
 * The SQLite {@link BrokerStore}: the broker's state in one file on this machine, through Node's
 * built-in `node:sqlite` (Node 22.5+), so that a restart keeps registered clients, pending
 * sign-ins, codes, refresh grants and the broker's signing key. One process per file: the file is
 * opened in exclusive locking mode, so a second gatehouse on it is refused at start with a clear
 * error (several replicas share `store.redis` instead). WAL journal; the schema carries a version
 * (`PRAGMA user_version`) and is migrated at open; the file is created 0600.
 *
 * Every call is synchronous underneath (node:sqlite), a few microseconds on an indexed table, so
 * `take` is atomic as in the memory store. Expired rows are invisible at once and deleted by a
 * periodic sweep that removes at most {@link SWEEP_BATCH} rows per namespace per run (bounded work).
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { StoreFullError, StoreUnavailableError } from './errors.js'
import {
  type BrokerStore,
  STORE_NAMESPACES,
  type StoreGroup,
  type StoreNamespace,
  type StoreValue,
} from './types.js'

/** The schema version this code writes; older files are migrated at open, newer ones refused. */
export const SQLITE_SCHEMA_VERSION = 2
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

/** The part of node:sqlite's `StatementSync` used here. */
interface Statement {
  run(...params: (string | number | null)[]): { changes: number | bigint }
  get(...params: (string | number)[]): Record<string, unknown> | undefined
  all(...params: (string | number)[]): Record<string, unknown>[]
}

/** The part of node:sqlite's `DatabaseSync` used here. */
interface Database {
  exec(sql: string): void
  prepare(sql: string): Statement
  close(): void
}

type DatabaseConstructor = new (path: string) => Database

/** A store file that cannot be used: damaged, locked by another process, or from a newer version. */
export class SqliteStoreError extends Error {
  override readonly name = 'SqliteStoreError'
}

let loaded: DatabaseConstructor | undefined

/**
 * node:sqlite's `DatabaseSync`, loaded on first use (a proxy with another store never loads it).
 * Node prints an ExperimentalWarning when the module loads; it says nothing to an operator
 * (the store is tested on every supported line), so that one warning is not emitted.
 * @throws SqliteStoreError on a Node.js without node:sqlite (before 22.5)
 */
export function loadSqlite(): DatabaseConstructor {
  if (loaded) return loaded
  const emit = process.emitWarning
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string })?.type
    if ((type === 'ExperimentalWarning' || warning instanceof Error) && /SQLite/i.test(text)) {
      return
    }
    return (emit as (...a: unknown[]) => void).call(process, warning, ...rest)
  }) as typeof process.emitWarning
  try {
    const mod = createRequire(import.meta.url)('node:sqlite') as {
      DatabaseSync: DatabaseConstructor
    }
    loaded = mod.DatabaseSync
    return loaded
  } catch (err) {
    throw new SqliteStoreError(
      `the SQLite store (the broker's default store when no store is configured) needs node:sqlite, which Node.js ${process.version} does not have (it needs Node.js 22.5 or later): run gatehouse on Node 22 or 24 (the repository ships them: npm start and the installed commands use node_modules/node-lts-22/bin/node), or configure mcp.broker.store: {memory: {}} (state lost on restart) or store: {redis: …}`,
      { cause: err },
    )
  } finally {
    process.emitWarning = emit
  }
}

/** Whether this Node.js has node:sqlite. */
export function sqliteAvailable(): boolean {
  try {
    loadSqlite()
    return true
  } catch {
    return false
  }
}

const MIGRATIONS: Record<number, string> = {
  1: `
    CREATE TABLE entries (
      ns TEXT NOT NULL,
      key TEXT NOT NULL,
      value TEXT NOT NULL,
      expires_at INTEGER NOT NULL,
      PRIMARY KEY (ns, key)
    ) WITHOUT ROWID;
    CREATE INDEX entries_expiry ON entries (ns, expires_at);
    CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  `,
  // The owner an entry counts against (StoreGroup: the MCP session bindings of one principal).
  2: `
    ALTER TABLE entries ADD COLUMN grp TEXT;
    CREATE INDEX entries_group ON entries (ns, grp, expires_at) WHERE grp IS NOT NULL;
  `,
}

/** A {@link BrokerStore} in a SQLite file. */
export class SqliteStore implements BrokerStore {
  readonly #o: SqliteStoreOptions
  readonly #now: () => number
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
        'INSERT INTO entries (ns, key, value, expires_at, grp) VALUES (?, ?, ?, ?, ?) ON CONFLICT (ns, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at, grp = excluded.grp',
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
        'DELETE FROM entries WHERE ns = ? AND key IN (SELECT key FROM entries WHERE ns = ? AND grp = ? AND expires_at <= ? UNION ALL SELECT key FROM (SELECT key FROM entries WHERE ns = ? AND grp = ? AND expires_at > ? ORDER BY expires_at LIMIT ?))',
      ),
    }
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
      this.#q.upsert.run(ns, key, json, now + Math.ceil(ttlMs), group ? group.id : null)
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

/** Opens, locks and migrates the file; every failure names the file and what to do. */
function openFile(Db: DatabaseConstructor, path: string): Database {
  const fresh = !existsSync(path)
  if (fresh) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
    // Created 0600 before SQLite opens it: the file holds refresh tokens of the IdP.
    closeSync(openSync(path, 'a', 0o600))
  }
  chmodSync(path, 0o600)
  let db: Database
  try {
    db = new Db(path)
  } catch (err) {
    throw new SqliteStoreError(
      `cannot open the state store ${path}: ${(err as Error).message}; check the path and its permissions (store.sqlite.path)`,
      { cause: err },
    )
  }
  try {
    // Exclusive: this process alone uses the file; a second one fails at once (busy_timeout 0).
    db.exec('PRAGMA busy_timeout = 0; PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL;')
    db.exec('PRAGMA synchronous = NORMAL;')
    migrate(db, path)
  } catch (err) {
    db.close()
    if (err instanceof SqliteStoreError) throw err
    const message = (err as Error).message
    if (/locked|busy/i.test(message)) {
      throw new SqliteStoreError(
        `the state store ${path} is in use by another process (${message}): one gatehouse process per file; stop the other one, or give each its own store.sqlite.path (several replicas share store.redis)`,
        { cause: err },
      )
    }
    throw new SqliteStoreError(
      `the state store ${path} is not a usable SQLite database (${message}): it is damaged or not a gatehouse store; move it away (gatehouse then starts with an empty store: clients register again and users sign in again) or point store.sqlite.path elsewhere`,
      { cause: err },
    )
  }
  for (const extra of [`${path}-wal`, `${path}-shm`]) {
    if (existsSync(extra)) chmodSync(extra, 0o600)
  }
  return db
}

/** Brings the schema to {@link SQLITE_SCHEMA_VERSION}, one migration per version, in a transaction. */
function migrate(db: Database, path: string): void {
  db.exec('BEGIN IMMEDIATE')
  try {
    const version = Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0)
    if (version > SQLITE_SCHEMA_VERSION) {
      throw new SqliteStoreError(
        `the state store ${path} has schema version ${version}, newer than this gatehouse's ${SQLITE_SCHEMA_VERSION}: it was written by a later version; run that version, or point store.sqlite.path elsewhere`,
      )
    }
    for (let v = version + 1; v <= SQLITE_SCHEMA_VERSION; v++) {
      const sql = MIGRATIONS[v]
      if (sql) db.exec(sql)
    }
    db.exec(`PRAGMA user_version = ${SQLITE_SCHEMA_VERSION}`)
    db.exec('COMMIT')
  } catch (err) {
    try {
      db.exec('ROLLBACK')
    } catch {
      // No transaction left to roll back: the error that ended it is the one to report.
    }
    throw err
  }
}
