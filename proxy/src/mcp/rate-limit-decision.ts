/**
 * The decision of the local rate limits (`traffic.localRateLimit`, ./local-rate-limit.ts) over
 * token buckets: a request is admitted only when every bucket it needs holds enough tokens, and
 * then takes them all; otherwise nothing is taken. Decided in this process or, for limits shared
 * across `config.workers`, by the cluster primary's {@link BucketTable}; the decision is written
 * as RateLimit headers ({@link rateLimitHeaders}).
 */
import { type BucketState, TokenBuckets } from './token-bucket.js'

/** What a decision reads of a limit: its name and its bucket's settings. */
export interface LimitSettings {
  /** Name in the RateLimit headers and metrics. */
  name: string
  maxTokens: number
  tokensPerFill: number
  fillIntervalMs: number
}

/** One limit's part in a decision, for the RateLimit headers. */
export interface LimitOutcome {
  name: string
  maxTokens: number
  /** Seconds to refill an empty bucket (RateLimit-Policy `w`). */
  windowSec: number
  /** Tokens left in the emptiest bucket the request used. */
  remaining: number
  /** Seconds until that bucket gains tokens again (0 when full). */
  resetSec: number
  /** Whether this limit refused the request. */
  exceeded: boolean
}

/** The decision for one request. */
export interface RateLimitDecision {
  admitted: boolean
  /** Seconds to wait before retrying (Retry-After), when refused. */
  retryAfterSec: number
  /** The limits that selected at least one message. */
  limits: LimitOutcome[]
}

/** Seconds to refill an empty bucket of `config` (RateLimit-Policy `w`). */
function windowSecOf(config: LimitSettings): number {
  const { maxTokens, tokensPerFill, fillIntervalMs } = config
  return Math.ceil((Math.ceil(maxTokens / tokensPerFill) * fillIntervalMs) / 1000)
}

/** Milliseconds until a bucket of `config` in `state` holds `n` tokens (Infinity: it never can). */
function waitMs(config: LimitSettings, state: BucketState, n: number): number {
  const { maxTokens, tokensPerFill, fillIntervalMs } = config
  if (n > maxTokens) return Number.POSITIVE_INFINITY
  const missing = n - state.tokens
  if (missing <= 0) return 0
  return state.nextFillMs + (Math.ceil(missing / tokensPerFill) - 1) * fillIntervalMs
}

/** One limit's part of a request: the tokens each of its keys must give. */
export interface LimitWant {
  /** Names the limit across processes (route and position), with its settings. */
  id: string
  config: LimitSettings
  /** Bucket key and tokens wanted from it. */
  keys: Array<[string, number]>
}

/**
 * Decides for one request over the buckets that hold its limits' keys: admitted only when every
 * bucket holds enough, and then every bucket gives its tokens; otherwise nothing is taken.
 */
export function decide(
  wanted: ReadonlyArray<{
    config: LimitSettings
    buckets: TokenBuckets
    keys: Iterable<[string, number]>
  }>,
): RateLimitDecision {
  let retryMs = 0
  const refused = new Set<number>()
  wanted.forEach(({ config, buckets, keys }, i) => {
    for (const [key, n] of keys) {
      const wait = waitMs(config, buckets.peek(key), n)
      if (wait > 0) {
        refused.add(i)
        retryMs = Math.max(retryMs, wait)
      }
    }
  })
  const admitted = refused.size === 0
  const outcomes: LimitOutcome[] = wanted.map(({ config, buckets, keys }, i) => {
    let remaining = Number.POSITIVE_INFINITY
    let resetMs = 0
    for (const [key, n] of keys) {
      const state = admitted ? buckets.take(key, n) : buckets.peek(key)
      if (state.tokens < remaining) {
        remaining = state.tokens
        resetMs = state.nextFillMs
      }
    }
    return {
      name: config.name,
      maxTokens: config.maxTokens,
      windowSec: windowSecOf(config),
      remaining: refused.has(i) ? 0 : remaining,
      resetSec: Math.ceil(resetMs / 1000),
      exceeded: refused.has(i),
    }
  })
  const retryAfterSec = admitted
    ? 0
    : Number.isFinite(retryMs)
      ? Math.max(1, Math.ceil(retryMs / 1000))
      : Math.max(...outcomes.filter((o) => o.exceeded).map((o) => o.windowSec), 1)
  return { admitted, retryAfterSec, limits: outcomes }
}

/**
 * Buckets of limits named by id, for processes that share them: the cluster primary holds one
 * table and decides for every worker (`config.workers`), so a limit of N admits N in total.
 * A limit whose settings change gets new buckets.
 */
export class BucketTable {
  readonly #tables = new Map<string, TokenBuckets>()
  readonly #now: (() => number) | undefined

  constructor(now?: () => number) {
    this.#now = now
  }

  /** Decides for one request (see {@link decide}). */
  decide(wants: readonly LimitWant[]): RateLimitDecision {
    return decide(
      wants.map((w) => ({ config: w.config, buckets: this.#bucketsOf(w), keys: w.keys })),
    )
  }

  /** Keys tracked by the limit `id`. */
  size(id: string): number {
    let n = 0
    for (const [k, t] of this.#tables) if (k.startsWith(`${id}\u0000`)) n += t.size
    return n
  }

  #bucketsOf(w: LimitWant): TokenBuckets {
    const { maxTokens, tokensPerFill, fillIntervalMs } = w.config
    const k = `${w.id}\u0000${maxTokens}/${tokensPerFill}/${fillIntervalMs}`
    let t = this.#tables.get(k)
    if (!t) {
      t = new TokenBuckets(
        { maxTokens, tokensPerFill, fillIntervalMs },
        this.#now ? { now: this.#now } : {},
      )
      this.#tables.set(k, t)
    }
    return t
  }
}

/**
 * The RateLimit-Policy and RateLimit fields (draft-ietf-httpapi-ratelimit-headers-10 §3, §4) of a
 * decision, plus Retry-After (RFC 9110 §10.2.3) when it refused the request.
 */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  if (decision.limits.length === 0) return {}
  const q = (name: string) => `"${name.replace(/["\\]/g, '')}"`
  const headers: Record<string, string> = {
    'ratelimit-policy': decision.limits
      .map((l) => `${q(l.name)};q=${l.maxTokens};w=${l.windowSec}`)
      .join(', '),
    ratelimit: decision.limits
      .map((l) => `${q(l.name)};r=${l.remaining};t=${l.resetSec}`)
      .join(', '),
  }
  if (!decision.admitted) headers['retry-after'] = String(decision.retryAfterSec)
  return headers
}
