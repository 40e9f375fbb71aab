/**
 * MCP session bindings kept in a broker store that persists (SQLite, Redis), for the routes of a
 * broker policy whose `mcp.broker.store` is one (docs/auth.md, "MCP sessions bound to the user"):
 * a restart of the gateway, or another replica on the same Redis, knows who a session belongs to,
 * so the adoption window of an unknown session id does not open on a restart.
 *
 * Entries live in the store's `session` namespace under a SHA-256 of the backend and session id
 * (the id is a credential of sorts: a dump of the store holds no usable one), for `idleMs` since
 * last use (the TTL is renewed when a quarter of it has passed, so a busy session costs one write
 * per quarter). The namespace's bound is the store's `maxEntries`: a full one refuses new
 * bindings (`bind` resolves `undefined`), it never evicts one. Each principal may hold
 * `maxPerPrincipal` of them (a `StoreGroup`): past it, its own least recently used binding is
 * forgotten, so that one principal cannot fill the store for the others; and no principal's
 * binding is ever evicted for another's (a store full of many principals' bindings refuses). Of two principals racing to bind
 * the same id on two replicas at the same instant, the later write wins; within one process the
 * first keeps it.
 */
import { createHash } from 'node:crypto'
import { StoreFullError } from './errors.js'
import type { BrokerStore, StoreGroup } from './types.js'

/** Options of {@link StoredSessionBindings}. */
export interface StoredSessionBindingsOptions {
  store: BrokerStore
  /**
   * Sessions one principal holds at once (default 1 000, as in memory); past it that principal's
   * least recently used is forgotten, so that no principal fills the store for the others.
   */
  maxPerPrincipal?: number
  /** A session unused this long is forgotten (default 8 hours). */
  idleMs?: number
  /** The clock (milliseconds). */
  now?: () => number
}

/** Session bindings in a {@link BrokerStore}. */
export class StoredSessionBindings {
  readonly #store: BrokerStore
  readonly #idleMs: number
  readonly #maxPerPrincipal: number
  readonly #now: () => number
  /** Binds in flight in this process, by key: the first one decides. */
  readonly #binding = new Map<string, Promise<string | undefined>>()

  constructor(options: StoredSessionBindingsOptions) {
    this.#store = options.store
    this.#idleMs = options.idleMs ?? 8 * 60 * 60_000
    this.#maxPerPrincipal = options.maxPerPrincipal ?? 1000
    this.#now = options.now ?? Date.now
  }

  async owner(session: string): Promise<string | undefined> {
    const key = keyOf(session)
    const value = await this.#store.get('session', key)
    if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined
    const { p, t } = value
    if (typeof p !== 'string' || typeof t !== 'number') return undefined
    const now = this.#now()
    if (now - t >= this.#idleMs / 4) {
      await this.#store
        .put('session', key, { p, t: now }, this.#idleMs, this.#group(p))
        .catch(() => undefined)
    }
    return p
  }

  bind(session: string, principal: string): Promise<string | undefined> {
    const key = keyOf(session)
    const inFlight = this.#binding.get(key)
    if (inFlight) return inFlight
    const done = this.#bind(session, key, principal).finally(() => this.#binding.delete(key))
    this.#binding.set(key, done)
    return done
  }

  async forget(session: string): Promise<void> {
    await this.#store.delete('session', keyOf(session))
  }

  async #bind(session: string, key: string, principal: string): Promise<string | undefined> {
    const current = await this.owner(session)
    if (current !== undefined) return current
    try {
      const value = { p: principal, t: this.#now() }
      await this.#store.put('session', key, value, this.#idleMs, this.#group(principal))
    } catch (err) {
      if (err instanceof StoreFullError) return undefined
      throw err
    }
    return principal
  }

  /** A principal's bindings, bounded by `maxPerPrincipal` (docs/reliability.md). */
  #group(principal: string): StoreGroup {
    return { id: principal, max: this.#maxPerPrincipal }
  }
}

function keyOf(session: string): string {
  return createHash('sha256').update(session).digest('base64url')
}
