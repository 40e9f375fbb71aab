/**
 * The broker's state behind one interface (docs/design/stores.md): registered clients, pending
 * authorizations, one-time codes, refresh grants, consents and the Client ID Metadata Document
 * cache. Implementations: `./memory.ts` (one replica) and `./redis.ts` (replicas sharing a Redis
 * server). Nothing else in the data plane knows which one runs.
 *
 * Every entry has a TTL, and every namespace a size bound: a full namespace refuses new entries
 * with `StoreFullError` (`./errors.ts`) rather than evict live ones (an attacker who fills the store must not
 * push out other users' pending authorizations or codes).
 */

/** JSON-serialisable value. */
export type StoreValue =
  | string
  | number
  | boolean
  | null
  | StoreValue[]
  | { [k: string]: StoreValue }

/**
 * Namespaces with their own TTL and size bound. `request`: authorization requests waiting for
 * consent (short-lived, per-address limited); `pending`: requests consented to, waiting for the
 * IdP's return — apart, so that unanswered requests cannot crowd out users signing in.
 * `session`: MCP session bindings, in a store that persists (`./session-bindings.ts`).
 */
export type StoreNamespace =
  | 'client'
  | 'request'
  | 'pending'
  | 'code'
  | 'grant'
  | 'consent'
  | 'cimd'
  | 'session'

/** Every namespace, for implementations that keep per-namespace structures. */
export const STORE_NAMESPACES: readonly StoreNamespace[] = [
  'client',
  'request',
  'pending',
  'code',
  'grant',
  'consent',
  'cimd',
  'session',
]

/**
 * A bound on the entries one owner holds inside a namespace: the MCP session bindings of one
 * principal (`./session-bindings.ts`), so that no principal fills the namespace for the others.
 */
export interface StoreGroup {
  /** The owner (a principal). */
  id: string
  /**
   * Entries the owner may hold. Storing a new key when it holds this many first deletes its own
   * least recently stored entries (never another owner's).
   */
  max: number
}

/** The broker's state store. */
export interface BrokerStore {
  /**
   * Stores under ns/key for ttlMs (replacing an entry with that key); rejects with a typed
   * `StoreFullError` when ns is at its bound and the key is new. With `group`, the entry counts
   * against that owner's bound ({@link StoreGroup}), which is applied first: an owner at its
   * bound makes room from its own entries only, and a full namespace still refuses.
   */
  put(
    ns: StoreNamespace,
    key: string,
    value: StoreValue,
    ttlMs: number,
    group?: StoreGroup,
  ): Promise<void>
  /** The live value, or `undefined` when absent or expired. */
  get(ns: StoreNamespace, key: string): Promise<StoreValue | undefined>
  /** Reads and deletes atomically: of concurrent callers at most one gets the value (one-time codes). */
  take(ns: StoreNamespace, key: string): Promise<StoreValue | undefined>
  /** Removes the entry, if any. */
  delete(ns: StoreNamespace, key: string): Promise<void>
  /** Releases timers and connections; later calls reject. */
  close(): Promise<void>
}
