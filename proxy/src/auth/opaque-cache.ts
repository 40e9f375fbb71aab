/**
 * The memory of opaque-token validations (docs/idp/opaque-tokens.md): accepted tokens are
 * remembered by their SHA-256 — the token itself is never kept, so a heap dump or a debugger shows
 * no credential — for at most the configured duration and never past the token's `exp`, in a
 * bounded LRU. Concurrent requests carrying the same token that is not remembered yet share one
 * call to the IdP (single flight): a client that opens many requests at once with a fresh token
 * costs the IdP one introspection, not one per request.
 *
 * Refusals by the IdP (an inactive token, or one failing a check) are remembered briefly
 * (`refusalCacheDuration`), by hash too, in a bounded LRU of their own so that a flood of
 * refused tokens never evicts an accepted one: the same bad token sent again costs no call. An IdP
 * that could not answer is never remembered: the token is asked about again on its next request,
 * so an outage ends for every client as soon as the IdP is back.
 */
import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'

/** A validation that may be remembered: `ttlMs` how long (0 or less: not at all). */
export interface Rememberable<T> {
  value: T
  /** Milliseconds the result stays valid; `undefined`: not remembered (the IdP did not answer). */
  ttlMs: number | undefined
  /** A refusal: remembered among the refusals, for at most their duration. */
  refused?: boolean
}

/** The SHA-256 of a token, base64url: the only form of it the cache holds. */
export function tokenKey(token: string): string {
  return createHash('sha256').update(token).digest('base64url')
}

/** Remembered validations by token hash, with single-flight lookups. */
export class OpaqueTokenCache<T> {
  // Expiry is kept in the entry, by the wall clock, rather than in lru-cache's TTL (which reads
  // performance.now): a token's exp is wall-clock time too.
  readonly #entries: LRUCache<string, { value: T; expiresAt: number }>
  readonly #refusals: LRUCache<string, { value: T; expiresAt: number }>
  readonly #maxTtlMs: number
  readonly #refusalTtlMs: number
  readonly #inFlight = new Map<string, Promise<T>>()

  /**
   * @param max - entries remembered at most (accepted tokens; refusals as many again)
   * @param maxTtlMs - the longest an entry is remembered (`cacheDuration`); 0 remembers nothing
   * @param refusalTtlMs - the longest a refusal is remembered (`refusalCacheDuration`); default 0
   */
  constructor(max: number, maxTtlMs: number, refusalTtlMs = 0) {
    // `maxSize` with every entry counted 1, not `max`: lru-cache allocates its arrays for all of
    // `max` up front; this way they grow with the entries (docs/design/performance.md).
    this.#entries = new LRUCache({ maxSize: max, sizeCalculation: () => 1 })
    this.#refusals = new LRUCache({ maxSize: max, sizeCalculation: () => 1 })
    this.#maxTtlMs = maxTtlMs
    this.#refusalTtlMs = refusalTtlMs
  }

  /**
   * The remembered result for `token`, or the one `validate` gives; a validation already running
   * for the same token is joined rather than started again.
   */
  async get(token: string, validate: () => Promise<Rememberable<T>>): Promise<T> {
    const key = tokenKey(token)
    for (const memory of [this.#entries, this.#refusals]) {
      const hit = memory.get(key)
      if (hit && hit.expiresAt > Date.now()) return hit.value
      if (hit) memory.delete(key)
    }
    const running = this.#inFlight.get(key)
    if (running) return running
    const started = validate().then(
      (result) => {
        const memory = result.refused ? this.#refusals : this.#entries
        const cap = result.refused ? this.#refusalTtlMs : this.#maxTtlMs
        const ttl = Math.min(result.ttlMs ?? 0, cap)
        if (ttl > 0) memory.set(key, { value: result.value, expiresAt: Date.now() + ttl })
        return result.value
      },
      // Joined callers see the same failure; nothing is remembered.
    )
    this.#inFlight.set(key, started)
    try {
      return await started
    } finally {
      this.#inFlight.delete(key)
    }
  }

  /** Accepted tokens remembered now (for the policy dump). */
  get size(): number {
    return this.#entries.size
  }

  /** Refusals remembered now (for the policy dump). */
  get refusals(): number {
    return this.#refusals.size
  }

  /** Validations in flight now. */
  get pending(): number {
    return this.#inFlight.size
  }

  /** Forgets every entry. */
  clear(): void {
    this.#entries.clear()
    this.#refusals.clear()
  }
}
