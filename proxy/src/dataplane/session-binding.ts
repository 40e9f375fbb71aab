/**
 * MCP sessions bound to the user who opened them (MCP Security Best Practices, "Session
 * Hijacking": servers SHOULD bind session ids to user-specific information, "a key format like
 * `<user_id>:<session_id>`", the user id derived from the token, never from the client).
 *
 * The gateway sees the `Mcp-Session-Id` a backend issues (MCP 2025-06-18, Transports, "Session
 * Management") and records who received it: the verified token's issuer and subject, or
 * "anonymous" on a route without authentication. A later request naming that session is
 * forwarded only for the same principal; any other request naming a session — someone else's, one
 * never issued through the gateway, one expired or evicted here — is answered 404, as Transports
 * tells a server to answer a session id it does not hold (and the client then starts a new session
 * with `initialize`). The answer does not tell a stranger whether the session exists.
 *
 * {@link SessionBindings} is the interface the pipeline uses, so a store shared by several
 * workers or replicas can back it later; {@link MemorySessionBindings} keeps them in this process,
 * bounded in size and expiring when idle.
 */

import { createHash } from 'node:crypto'

/** Where bindings live. Asynchronous, so that a shared store can implement it. */
export interface SessionBindings {
  /** The principal a session is bound to, or `undefined` when it is not known here. */
  owner(session: string): Promise<string | undefined>
  /**
   * Binds a session the backend just issued to `principal`, unless it is already bound (a
   * binding is never moved to someone else). Resolves to the principal it is bound to, or
   * `undefined` when the store is full and refuses a new binding: bindings of other principals are
   * never evicted to make room, as an evicted session could then be adopted by whoever names it
   * first (the caller must not hand out a session it could not bind).
   */
  bind(session: string, principal: string): Promise<string | undefined>
  /** Forgets a session that ended (`DELETE` answered 2xx). */
  forget(session: string): Promise<void>
}

/** Limits of {@link MemorySessionBindings}. */
export interface MemorySessionBindingsOptions {
  /**
   * Sessions held at once (default 100 000); at it, a new binding is refused (after idle ones are
   * dropped), never made by forgetting another principal's.
   */
  maxSessions?: number
  /**
   * Sessions one principal holds at once (default 1 000); past it that principal's least recently
   * used is forgotten, so no user (nor the anonymous clients of an open route) can push everyone
   * else's sessions out.
   */
  maxPerPrincipal?: number
  /** A session unused this long is forgotten (default 8 hours). */
  idleMs?: number
  /** The clock (milliseconds). */
  now?: () => number
}

interface Entry {
  principal: string
  lastUsed: number
}

/** Bindings in this process's memory: bounded, idle ones expire. */
export class MemorySessionBindings implements SessionBindings {
  /** Insertion order is use order: the first entry is the least recently used. */
  readonly #sessions = new Map<string, Entry>()
  /** Sessions of each principal, least recently used first. */
  readonly #byPrincipal = new Map<string, Set<string>>()
  readonly #max: number
  readonly #maxPerPrincipal: number
  readonly #idleMs: number
  readonly #now: () => number

  constructor(options: MemorySessionBindingsOptions = {}) {
    this.#max = options.maxSessions ?? 100_000
    this.#maxPerPrincipal = options.maxPerPrincipal ?? 1000
    this.#idleMs = options.idleMs ?? 8 * 60 * 60_000
    this.#now = options.now ?? Date.now
  }

  /** Sessions held. */
  get size(): number {
    return this.#sessions.size
  }

  async owner(session: string): Promise<string | undefined> {
    const entry = this.#sessions.get(session)
    if (!entry) return undefined
    const now = this.#now()
    if (now - entry.lastUsed >= this.#idleMs) {
      this.#delete(session)
      return undefined
    }
    this.#touch(session, entry, now)
    return entry.principal
  }

  async bind(session: string, principal: string): Promise<string | undefined> {
    const current = await this.owner(session)
    if (current !== undefined) return current
    const mine = this.#byPrincipal.get(principal) ?? new Set<string>()
    // A principal at its quota makes room from its own sessions only.
    while (mine.size >= this.#maxPerPrincipal) this.#delete(first(mine))
    if (this.#sessions.size >= this.#max) {
      this.#sweep()
      // Full of live bindings: refuse rather than evict someone else's (docs/auth.md, "MCP
      // sessions bound to the user").
      if (this.#sessions.size >= this.#max) return undefined
    }
    this.#sessions.set(session, { principal, lastUsed: this.#now() })
    mine.add(session)
    this.#byPrincipal.set(principal, mine)
    this.#sweep()
    return principal
  }

  async forget(session: string): Promise<void> {
    this.#delete(session)
  }

  #touch(session: string, entry: Entry, now: number): void {
    entry.lastUsed = now
    this.#sessions.delete(session)
    this.#sessions.set(session, entry)
    const mine = this.#byPrincipal.get(entry.principal)
    mine?.delete(session)
    mine?.add(session)
  }

  #delete(session: string): void {
    const entry = this.#sessions.get(session)
    if (!entry) return
    this.#sessions.delete(session)
    const mine = this.#byPrincipal.get(entry.principal)
    mine?.delete(session)
    if (mine?.size === 0) this.#byPrincipal.delete(entry.principal)
  }

  /** Drops expired sessions from the least recently used end (bounded work per call). */
  #sweep(): void {
    const now = this.#now()
    let checked = 0
    for (const [session, entry] of this.#sessions) {
      if (checked++ >= 16 || now - entry.lastUsed < this.#idleMs) break
      this.#delete(session)
    }
  }
}

function first(items: Iterable<string>): string {
  for (const item of items) return item
  throw new Error('first() of an empty collection')
}

/**
 * The principal of a request: the verified token's issuer and subject, or `anonymous` when no
 * token was verified (a route without authentication). Hashed, so that a binding holds a fixed
 * 48 bytes whatever the claims, and no subject (personal data) sits in memory in clear.
 */
export function principalOf(claims: Readonly<Record<string, unknown>> | undefined): string {
  if (!claims) return 'anonymous'
  // The verifier's cache hands out one claims object per token: its hash is made once (docs/design/sessions.md).
  let principal = principals.get(claims)
  if (principal === undefined) {
    const id = JSON.stringify([String(claims.iss ?? ''), String(claims.sub ?? '')])
    principal = `jwt:${createHash('sha256').update(id).digest('base64url')}`
    principals.set(claims, principal)
  }
  return principal
}

/** Principals of claims objects already seen; claims are read-only, so one never goes stale. */
const principals = new WeakMap<object, string>()

/** The longest session id the gateway binds (a UUID is 36, a JWT-shaped id some hundreds). */
export const MAX_SESSION_ID_LENGTH = 1024

/**
 * Whether a session id a backend issued can be bound: MCP 2025-06-18 Transports, "Session
 * Management": it "MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E)"; and
 * at most {@link MAX_SESSION_ID_LENGTH} of them, so the store's size stays bounded in bytes too.
 * One that cannot is not bound, so the session is refused like an unknown one (fail closed).
 */
export function isBindableSessionId(id: string): boolean {
  return id.length > 0 && id.length <= MAX_SESSION_ID_LENGTH && /^[\x21-\x7e]+$/.test(id)
}
