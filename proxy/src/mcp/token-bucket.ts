/**
 * Token buckets in memory, one per key, as agentgateway's `localRateLimit` (fields `maxTokens`,
 * `tokensPerFill`, `fillInterval`): a bucket starts full with `maxTokens`, gains `tokensPerFill`
 * every `fillInterval` up to `maxTokens`, and each admitted unit takes one token.
 *
 * Buckets are per replica: replicas behind a load balancer each keep their own, so the effective
 * limit is the configured one times the replicas (docs/auth.md, "Rate limits"). The workers of one
 * replica (`config.workers`) share the primary's (`BucketTable` in `./rate-limit-decision.ts`). The key set is
 * bounded without ever handing out more than the limit (docs/design/hardening.md: dropping a used bucket
 * gave its key a full one again): beyond `maxKeys`, only full buckets are dropped — they hold
 * nothing a new bucket would not — and while none is full, new keys share one overflow bucket
 * with the same limit (fail closed for keys the table cannot hold; tracked keys keep theirs).
 * Looking for full buckets walks the table, so it is done at most once until a bucket can be
 * full again (about once per `fillInterval` under a flood of invented keys).
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
  /** The bucket shared by keys past `maxKeys` (made on first use). */
  #overflow: Bucket | undefined
  /** No bucket can be full before this time, so no walk can free room before it. */
  #nextFullAt = Number.NEGATIVE_INFINITY
  #walks = 0

  /**
   * @param now - a monotonic clock in milliseconds (default `performance.now`); tests pass their own.
   */
  constructor(spec: BucketSpec, options: { maxKeys?: number; now?: () => number } = {}) {
    this.spec = spec
    this.#maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS
    this.#now = options.now ?? (() => performance.now())
  }

  /** Number of keys tracked (the overflow bucket aside). */
  get size(): number {
    return this.#buckets.size
  }

  /** Times the table was walked for full buckets to drop. */
  get walks(): number {
    return this.#walks
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
      // The elapsed time first: `filledAt + interval - now` on a fractional clock can come out a
      // hair above the interval, which a whole-second header rounds up.
      nextFillMs: full ? 0 : Math.max(0, this.spec.fillIntervalMs - (now - bucket.filledAt)),
    }
  }

  /**
   * The bucket `key` uses: its own, a new one (`create`) when there is room or room can be made,
   * else the shared overflow bucket. `undefined`: no bucket yet (a full one for `peek`).
   */
  #bucketOf(key: string, now: number, create: boolean): Bucket | undefined {
    const own = this.#buckets.get(key)
    if (own) return own
    if (this.#buckets.size >= this.#maxKeys) this.#evict(now)
    if (this.#buckets.size < this.#maxKeys) {
      if (!create) return undefined
      const bucket = { tokens: this.spec.maxTokens, filledAt: now }
      this.#buckets.set(key, bucket)
      return bucket
    }
    if (!this.#overflow) {
      if (!create) return undefined
      this.#overflow = { tokens: this.spec.maxTokens, filledAt: now }
    }
    return this.#overflow
  }

  /** What `key` holds, without taking anything. */
  peek(key: string): BucketState {
    const now = this.#now()
    return this.#state(this.#bucketOf(key, now, false), now)
  }

  /**
   * Takes `n` tokens from `key`'s bucket. Callers check {@link peek} first when several buckets
   * must admit a request together; `take` itself never goes below zero.
   * @returns the state after taking.
   */
  take(key: string, n = 1): BucketState {
    const now = this.#now()
    const bucket = this.#bucketOf(key, now, true) as Bucket
    this.#refill(bucket, now)
    bucket.tokens = Math.max(0, bucket.tokens - n)
    return this.#state(bucket, now)
  }

  /** Drops every full bucket, at most once until one can be full again. */
  #evict(now: number): void {
    if (now < this.#nextFullAt) return
    this.#walks++
    const { maxTokens, tokensPerFill, fillIntervalMs } = this.spec
    // A bucket made after this walk takes a token at once: full again one interval later at best.
    let nextFullAt = now + fillIntervalMs
    for (const [key, bucket] of this.#buckets) {
      this.#refill(bucket, now)
      if (bucket.tokens >= maxTokens) {
        this.#buckets.delete(key)
        continue
      }
      const fills = Math.ceil((maxTokens - bucket.tokens) / tokensPerFill)
      nextFullAt = Math.min(nextFullAt, bucket.filledAt + fills * fillIntervalMs)
    }
    this.#nextFullAt = nextFullAt
  }
}
