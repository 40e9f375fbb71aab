/**
 * A per-source limit on an unauthenticated endpoint (the broker's registration endpoint): at most
 * `limit` requests per `windowMs` from one client address, in fixed windows. The table of sources
 * is bounded; when it is full of live windows a new source is refused too (fail closed) rather
 * than evicting a source whose window is used up, which would hand it a fresh allowance.
 */

/** Options of {@link SourceLimit}. */
export interface SourceLimitOptions {
  limit: number
  windowMs: number
  /** Sources tracked at once. Default 10,000. */
  maxSources?: number
  /** The clock. Default `Date.now`. */
  now?: () => number
}

/** The verdict on one request. */
export type SourceVerdict = { ok: true } | { ok: false; retryAfterSeconds: number }

interface Window {
  start: number
  count: number
}

/** Counts requests per source address. */
export class SourceLimit {
  readonly #o: Required<SourceLimitOptions>
  readonly #windows = new Map<string, Window>()

  constructor(options: SourceLimitOptions) {
    this.#o = { maxSources: 10_000, now: Date.now, ...options }
  }

  /** Counts one request from `source` and says whether it is within the limit. */
  take(source: string): SourceVerdict {
    const now = this.#o.now()
    let w = this.#windows.get(source)
    if (w && now - w.start >= this.#o.windowMs) {
      this.#windows.delete(source)
      w = undefined
    }
    if (!w) {
      if (this.#windows.size >= this.#o.maxSources) this.#prune(now)
      if (this.#windows.size >= this.#o.maxSources) {
        const oldest = this.#windows.values().next().value as Window
        return { ok: false, retryAfterSeconds: this.#retryAfter(oldest, now) }
      }
      w = { start: now, count: 0 }
      this.#windows.set(source, w)
    }
    if (w.count >= this.#o.limit) return { ok: false, retryAfterSeconds: this.#retryAfter(w, now) }
    w.count++
    return { ok: true }
  }

  #retryAfter(w: Window, now: number): number {
    return Math.max(1, Math.ceil((w.start + this.#o.windowMs - now) / 1000))
  }

  /** Drops windows that are over (Map order is insertion order, i.e. by window start). */
  #prune(now: number): void {
    for (const [source, w] of this.#windows) {
      if (now - w.start < this.#o.windowMs) break
      this.#windows.delete(source)
    }
  }
}
