/**
 * The bound on calls to the IdP for opaque tokens (docs/idp/opaque-tokens.md): a token neither
 * remembered nor being validated costs one introspection or UserInfo call, so a flood of random
 * tokens would be a flood of calls. Each client address may start at most `perSource` calls per
 * `windowMs` (fixed windows), and at most `maxInFlight` calls run at once over all sources. A
 * request past either bound is refused without asking the IdP (fail closed: 503 with
 * Retry-After, as when the IdP cannot answer). Remembered answers and joined calls cost nothing.
 */
import { LRUCache } from 'lru-cache'

/** Options of {@link IdpCallLimit}. */
export interface IdpCallLimitOptions {
  perSource: number
  windowMs: number
  maxInFlight: number
  /** Sources tracked at once (least recently seen forgotten first). Default 10,000. */
  maxSources?: number
  /** The clock. Default `Date.now`. */
  now?: () => number
}

/** Whether a call may start, and a `release` to call when it ends. */
export type IdpCallVerdict =
  | { ok: true; release: () => void }
  | { ok: false; cause: 'source' | 'in_flight'; retryAfterSeconds: number }

/** Counts IdP calls per source address and in flight. */
export class IdpCallLimit {
  readonly #o: Required<IdpCallLimitOptions>
  readonly #windows: LRUCache<string, { start: number; count: number }>
  #inFlight = 0

  constructor(options: IdpCallLimitOptions) {
    this.#o = { maxSources: 10_000, now: Date.now, ...options }
    // Sized by its entries, not allocated for all `maxSources` up front (as in opaque-cache.ts).
    this.#windows = new LRUCache({ maxSize: this.#o.maxSources, sizeCalculation: () => 1 })
  }

  /** Calls running now. */
  get inFlight(): number {
    return this.#inFlight
  }

  /** Counts one call from `source` (undefined: an unknown address, counted as one source). */
  take(source: string | undefined): IdpCallVerdict {
    const now = this.#o.now()
    const key = source ?? '(unknown)'
    let w = this.#windows.get(key)
    if (!w || now - w.start >= this.#o.windowMs) {
      w = { start: now, count: 0 }
      this.#windows.set(key, w)
    }
    if (w.count >= this.#o.perSource) {
      const left = Math.ceil((w.start + this.#o.windowMs - now) / 1000)
      return { ok: false, cause: 'source', retryAfterSeconds: Math.max(1, left) }
    }
    if (this.#inFlight >= this.#o.maxInFlight) {
      return { ok: false, cause: 'in_flight', retryAfterSeconds: 1 }
    }
    w.count++
    this.#inFlight++
    let released = false
    return {
      ok: true,
      release: () => {
        if (released) return
        released = true
        this.#inFlight--
      },
    }
  }
}
