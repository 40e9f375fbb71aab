/**
 * Token buckets in memory, one per key, as agentgateway's `localRateLimit` (fields `maxTokens`,
 * `tokensPerFill`, `fillInterval`): a bucket starts full with `maxTokens`, gains `tokensPerFill`
 * every `fillInterval` up to `maxTokens`, and each admitted unit takes one token.
 *
 * Buckets are per process: replicas behind a load balancer each keep their own, so the effective
 * limit is the configured one times the replicas (docs/auth.md, "Rate limits"). The key set is
 * bounded: beyond `maxKeys`, full buckets (which hold nothing worth keeping) are dropped first,
 * then the least recently used (a tenth at a time).
 */

/** The shape of one limit. */
export interface BucketSpec {
  /** Capacity, and the tokens a new bucket starts with. */
  maxTokens: number
  /** Tokens added each interval. */
  tokensPerFill: number
  /** Milliseconds between fills. */
  fillIntervalMs: number
}

interface Bucket {
  tokens: number
  /** When the last fill was due (a multiple of the interval after the bucket was made). */
  filledAt: number
}

/** What a key's bucket holds now. */
export interface BucketState {
  tokens: number
  /** Milliseconds until the next fill (0 when full). */
  nextFillMs: number
}

/** Default bound on the number of keys one limit tracks. */
export const DEFAULT_MAX_KEYS = 100_000

/** The buckets of one limit. */
export class TokenBuckets {
  readonly spec: BucketSpec
  readonly #buckets = new Map<string, Bucket>()
  readonly #maxKeys: number
  readonly #now: () => number

  /**
   * @param now - a monotonic clock in milliseconds (default `performance.now`); tests pass their own.
   */
  constructor(spec: BucketSpec, options: { maxKeys?: number; now?: () => number } = {}) {
    this.spec = spec
    this.#maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS
    this.#now = options.now ?? (() => performance.now())
  }

  /** Number of keys tracked. */
  get size(): number {
    return this.#buckets.size
  }

  #refill(bucket: Bucket, now: number): void {
    const { maxTokens, tokensPerFill, fillIntervalMs } = this.spec
    const fills = Math.floor((now - bucket.filledAt) / fillIntervalMs)
    if (fills <= 0) return
    bucket.tokens = Math.min(maxTokens, bucket.tokens + fills * tokensPerFill)
    bucket.filledAt += fills * fillIntervalMs
  }

  #state(bucket: Bucket | undefined, now: number): BucketState {
    if (!bucket) return { tokens: this.spec.maxTokens, nextFillMs: 0 }
    this.#refill(bucket, now)
    const full = bucket.tokens >= this.spec.maxTokens
    return {
      tokens: bucket.tokens,
      nextFillMs: full ? 0 : Math.max(0, bucket.filledAt + this.spec.fillIntervalMs - now),
    }
  }

  /** What `key` holds, without taking anything. */
  peek(key: string): BucketState {
    return this.#state(this.#buckets.get(key), this.#now())
  }

  /**
   * Takes `n` tokens from `key`'s bucket. Callers check {@link peek} first when several buckets
   * must admit a request together; `take` itself never goes below zero.
   * @returns the state after taking.
   */
  take(key: string, n = 1): BucketState {
    const now = this.#now()
    let bucket = this.#buckets.get(key)
    if (bucket) {
      // Most recently used last: Map keeps insertion order, which eviction walks.
      this.#buckets.delete(key)
    } else {
      bucket = { tokens: this.spec.maxTokens, filledAt: now }
      this.#evict(now)
    }
    this.#refill(bucket, now)
    bucket.tokens = Math.max(0, bucket.tokens - n)
    this.#buckets.set(key, bucket)
    return this.#state(bucket, now)
  }

  /** Makes room for one more key. */
  #evict(now: number): void {
    if (this.#buckets.size < this.#maxKeys) return
    for (const [key, bucket] of this.#buckets) {
      this.#refill(bucket, now)
      if (bucket.tokens >= this.spec.maxTokens) this.#buckets.delete(key)
      if (this.#buckets.size < this.#maxKeys * 0.9) return
    }
    // Still full of partly used buckets (many keys in use, or a client inventing keys): drop the
    // least recently used tenth at once, so the next new keys do not each pay for a walk.
    for (const key of this.#buckets.keys()) {
      this.#buckets.delete(key)
      if (this.#buckets.size < this.#maxKeys * 0.9) return
    }
  }
}
