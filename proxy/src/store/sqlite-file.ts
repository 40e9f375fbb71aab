/**
 * The file under the SQLite store (store/sqlite.ts): loading `node:sqlite` (Node 22.5+), opening
 * the file in exclusive locking mode with a WAL journal, created 0600, and migrating its schema
 * (`PRAGMA user_version`) at open. Every failure names the file and what to do.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'

/** The schema version this code writes; older files are migrated at open, newer ones refused. */
export const SQLITE_SCHEMA_VERSION = 3
/** The part of node:sqlite's `StatementSync` used here. */
export interface Statement {
  run(...params: (string | number | null)[]): { changes: number | bigint }
  get(...params: (string | number)[]): Record<string, unknown> | undefined
  all(...params: (string | number)[]): Record<string, unknown>[]
}

/** The part of node:sqlite's `DatabaseSync` used here. */
export interface Database {
  exec(sql: string): void
  prepare(sql: string): Statement
  close(): void
}

export type DatabaseConstructor = new (path: string) => Database

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
  // The order entries were stored in: an owner at its bound loses its least recently stored
  // entries, and entries stored in the same millisecond have the same expiry (the table has no
  // rowid to tell them apart; ties on expires_at came back in key order).
  3: `
    ALTER TABLE entries ADD COLUMN stored INTEGER NOT NULL DEFAULT 0;
  `,
}

/** Opens, locks and migrates the file; every failure names the file and what to do. */
export function openFile(Db: DatabaseConstructor, path: string): Database {
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
