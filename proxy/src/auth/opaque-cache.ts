/**
 * The memory of opaque-token validations (docs/idp/opaque-tokens.md): accepted tokens are
 * remembered by their SHA-256 — the token itself is never kept, so a heap dump or a debugger shows
 * no credential — for at most the configured duration and never past the token's `exp`, in a
 * bounded LRU. Concurrent requests carrying the same token that is not remembered yet share one
 * call to the IdP (single flight): a client that opens many requests at once with a fresh token
 * costs the IdP one introspection, not one per request.
 *
 * Refusals are not remembered: a token refused now (inactive, or the IdP unreachable) is asked
 * about again on its next request, so an outage ends for every client as soon as the IdP is back.
 */
import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'

/** A validation that may be remembered: `ttlMs` how long (0 or less: not at all). */
export interface Rememberable<T> {
  value: T
  /** Milliseconds the result stays valid; `undefined` for a refusal (never remembered). */
  ttlMs: number | undefined
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
  readonly #maxTtlMs: number
  readonly #inFlight = new Map<string, Promise<T>>()

  /**
   * @param max - entries remembered at most
   * @param maxTtlMs - the longest an entry is remembered (`cacheDuration`); 0 remembers nothing
   */
  constructor(max: number, maxTtlMs: number) {
    this.#entries = new LRUCache({ max })
    this.#maxTtlMs = maxTtlMs
  }

  /**
   * The remembered result for `token`, or the one `validate` gives; a validation already running
   * for the same token is joined rather than started again.
   */
  async get(token: string, validate: () => Promise<Rememberable<T>>): Promise<T> {
    const key = tokenKey(token)
    const hit = this.#entries.get(key)
    if (hit && hit.expiresAt > Date.now()) return hit.value
    if (hit) this.#entries.delete(key)
    const running = this.#inFlight.get(key)
    if (running) return running
    const started = validate().then(
      (result) => {
        const ttl = Math.min(result.ttlMs ?? 0, this.#maxTtlMs)
        if (ttl > 0) this.#entries.set(key, { value: result.value, expiresAt: Date.now() + ttl })
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

  /** Entries remembered now (for the policy dump). */
  get size(): number {
    return this.#entries.size
  }

  /** Validations in flight now. */
  get pending(): number {
    return this.#inFlight.size
  }

  /** Forgets every entry. */
  clear(): void {
    this.#entries.clear()
  }
}
