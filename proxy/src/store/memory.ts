/**
 * The in-memory {@link BrokerStore}: one `Map` per namespace, for a single gatehouse replica (the
 * default). Values are kept as JSON text, so a caller never shares an object with the store (the
 * same semantics as the Redis store). Expired entries are dropped when read, when a full namespace
 * needs room, and by a periodic sweep; a full namespace refuses new keys, it never evicts live ones.
 * An owner at its own bound ({@link StoreGroup}) makes room from its own entries.
 */
import { StoreFullError, StoreUnavailableError } from './errors.js'
import {
  type BrokerStore,
  STORE_NAMESPACES,
  type StoreGroup,
  type StoreNamespace,
  type StoreValue,
} from './types.js'

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /** Entries per namespace (`store.memory.maxEntries`). */
  maxEntries: number
  /** Interval of the sweep that frees expired entries nobody reads. Default 60 s. */
  sweepIntervalMs?: number
  /** The clock, in milliseconds since the epoch. Default `Date.now`. */
  now?: () => number
}

interface Entry {
  json: string
  expiresAt: number
  /** The owner it counts against ({@link StoreGroup}), if any. */
  group?: string
}

/** One namespace: its entries and the earliest expiry among them (a lower bound). */
class Space {
  readonly entries = new Map<string, Entry>()
  /** The keys of each owner ({@link StoreGroup}), least recently stored first. */
  readonly groups = new Map<string, Set<string>>()
  /** No entry expires before this; `Infinity` when empty. Lets a full namespace refuse in O(1). */
  earliest = Number.POSITIVE_INFINITY

  live(key: string, now: number): Entry | undefined {
    const e = this.entries.get(key)
    if (!e) return undefined
    if (e.expiresAt <= now) {
      this.remove(key)
      return undefined
    }
    return e
  }

  /** Deletes an entry and its place in its owner's keys; the entry, if there was one. */
  remove(key: string): Entry | undefined {
    const e = this.entries.get(key)
    if (!e) return undefined
    this.entries.delete(key)
    if (e.group !== undefined) {
      const keys = this.groups.get(e.group)
      keys?.delete(key)
      if (keys?.size === 0) this.groups.delete(e.group)
    }
    return e
  }

  /** Makes room for a new key of `group`: its own least recently stored entries go. */
  makeRoom(group: StoreGroup, key: string, now: number): void {
    const keys = this.groups.get(group.id)
    if (!keys || keys.has(key)) return
    for (const k of keys) {
      if (keys.size < group.max) break
      this.remove(k)
    }
    // Expired ones do not count against the owner.
    for (const k of [...keys]) this.live(k, now)
  }

  sweep(now: number): void {
    if (now < this.earliest) return
    let earliest = Number.POSITIVE_INFINITY
    for (const [key, e] of this.entries) {
      if (e.expiresAt <= now) this.remove(key)
      else if (e.expiresAt < earliest) earliest = e.expiresAt
    }
    this.earliest = earliest
  }
}

/** A {@link BrokerStore} in this process's memory. */
export class MemoryStore implements BrokerStore {
  readonly #max: number
  readonly #now: () => number
  readonly #spaces = new Map<StoreNamespace, Space>()
  readonly #timer: NodeJS.Timeout
  #closed = false

  constructor(options: MemoryStoreOptions) {
    this.#max = options.maxEntries
    this.#now = options.now ?? Date.now
    for (const ns of STORE_NAMESPACES) this.#spaces.set(ns, new Space())
    this.#timer = setInterval(() => {
      const now = this.#now()
      for (const space of this.#spaces.values()) space.sweep(now)
    }, options.sweepIntervalMs ?? 60_000)
    this.#timer.unref()
  }

  /** Live entries in a namespace (expired ones not yet swept may be counted). */
  size(ns: StoreNamespace): number {
    return this.#space(ns).entries.size
  }

  async put(
    ns: StoreNamespace,
    key: string,
    value: StoreValue,
    ttlMs: number,
    group?: StoreGroup,
  ): Promise<void> {
    const space = this.#space(ns)
    const now = this.#now()
    if (!(ttlMs > 0)) throw new RangeError(`store ttl must be positive, got ${ttlMs}`)
    const json = JSON.stringify(value)
    if (group) space.makeRoom(group, key, now)
    if (!space.live(key, now) && space.entries.size >= this.#max) {
      space.sweep(now)
      if (space.entries.size >= this.#max) {
        // After the sweep `earliest` is exact: the first place that frees up.
        throw new StoreFullError(ns, this.#max, space.earliest - now)
      }
    }
    const expiresAt = now + ttlMs
    // Stored again: the most recent of its owner's.
    space.remove(key)
    space.entries.set(key, { json, expiresAt, ...(group ? { group: group.id } : {}) })
    if (group) {
      const keys = space.groups.get(group.id) ?? new Set<string>()
      keys.add(key)
      space.groups.set(group.id, keys)
    }
    if (expiresAt < space.earliest) space.earliest = expiresAt
  }

  async get(ns: StoreNamespace, key: string): Promise<StoreValue | undefined> {
    const e = this.#space(ns).live(key, this.#now())
    return e ? (JSON.parse(e.json) as StoreValue) : undefined
  }

  async take(ns: StoreNamespace, key: string): Promise<StoreValue | undefined> {
    // Read and delete in one synchronous step: no other caller runs in between.
    const space = this.#space(ns)
    const e = space.live(key, this.#now())
    if (!e) return undefined
    space.remove(key)
    return JSON.parse(e.json) as StoreValue
  }

  async delete(ns: StoreNamespace, key: string): Promise<void> {
    this.#space(ns).remove(key)
  }

  async close(): Promise<void> {
    this.#closed = true
    clearInterval(this.#timer)
    for (const space of this.#spaces.values()) {
      space.entries.clear()
      space.groups.clear()
    }
  }

  #space(ns: StoreNamespace): Space {
    if (this.#closed) throw new StoreUnavailableError('the store was closed')
    const space = this.#spaces.get(ns)
    if (!space) throw new RangeError(`unknown store namespace "${ns}"`)
    return space
  }
}
