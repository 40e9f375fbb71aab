/**
 * `traffic.localRateLimit` (docs/auth.md; fields after agentgateway's `localRateLimit`): token
 * buckets keyed by a CEL expression over the verified claims (`jwt`) and the MCP request (`mcp`),
 * e.g. `jwt.sub + "/" + mcp.tool.name` for a limit per user and tool, applied to the messages a
 * `when` expression selects (default: every message).
 *
 * Each JSON-RPC message of a `POST /mcp` takes one token from each limit that selects it (a batch
 * of five calls takes five); a request with no message (GET, DELETE) counts as one message with
 * `mcp.method == ""`. A request is admitted only when every bucket it needs holds enough tokens,
 * and then takes them all; otherwise nothing is taken and it is answered 429.
 *
 * Fail closed: a `when` that cannot be evaluated selects the message, and a `key` that cannot be
 * evaluated (a missing claim) counts against one shared bucket of that limit, so a request never
 * escapes a limit by lacking what its key reads.
 *
 * This module computes which buckets a request wants; ./rate-limit-decision.ts decides over them
 * (here, or in the cluster primary's `BucketTable`) and writes the RateLimit headers.
 */
import { createHash } from 'node:crypto'
import { type CelCompiler, type CelProgram, newCelCompiler } from '../config/cel.js'
import { MAX_CACHED_NAME, type McpCelValue, mcpCelValue } from './authorization.js'
import type { McpMessage } from './json-rpc.js'
import {
  decide,
  type LimitSettings,
  type LimitWant,
  type RateLimitDecision,
} from './rate-limit-decision.js'
import { TokenBuckets } from './token-bucket.js'

/** A configured limit, validated: its bucket's settings and what selects and keys it. */
export interface LocalRateLimitConfig extends LimitSettings {
  /** CEL; default: one bucket for the route. */
  key?: string | undefined
  /** CEL; default: every message. */
  when?: string | undefined
}

/** The CEL activation of one message. */
type Activation = {
  jwt: Readonly<Record<string, unknown>>
  mcp: McpCelValue
}

/** Bucket key of a message whose `key` expression failed: shared by all such messages. */
const UNKEYED = '\u0000unkeyed'

/** Compiles `key` (any value) or `when` (a boolean), once per compilation (`config/cel.ts`). */
function compile(
  cel: CelCompiler,
  expression: string,
  field: 'key' | 'when',
  index: number,
): CelProgram {
  try {
    return cel.compile(expression, 'mcp', field === 'when' ? 'bool' : 'any')
  } catch (err) {
    throw new Error(`[${index}].${field}: ${(err as Error).message}`, { cause: err })
  }
}

function keyText(v: unknown): string | undefined {
  let text: string | undefined
  if (typeof v === 'string') text = v
  else if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean')
    text = String(v)
  if (text === undefined) return undefined
  // Long keys are hashed: the key is attacker-influenced (a tool name), memory is not.
  return text.length <= 256 ? text : `#${createHash('sha256').update(text).digest('base64url')}`
}

class Limit {
  readonly config: LocalRateLimitConfig
  readonly buckets: TokenBuckets
  readonly #key: CelProgram | undefined
  readonly #when: CelProgram | undefined
  /**
   * The bucket key (or `null`: not selected) per claims object (one per cached token) and
   * message: `when` and `key` see nothing else, unless they read tool arguments.
   */
  readonly #cache: WeakMap<object, Map<string, string | null>> | undefined

  constructor(config: LocalRateLimitConfig, index: number, cel: CelCompiler, now?: () => number) {
    this.config = config
    this.buckets = new TokenBuckets(config, now ? { now } : {})
    this.#key = config.key ? compile(cel, config.key, 'key', index) : undefined
    this.#when = config.when ? compile(cel, config.when, 'when', index) : undefined
    const usesArguments = `${config.key ?? ''} ${config.when ?? ''}`.includes('arguments')
    this.#cache = usesArguments ? undefined : new WeakMap()
  }

  /** The bucket key of a message, or `null` when `when` does not select it. */
  keyFor(claims: Readonly<Record<string, unknown>>, m: McpMessage): string | null {
    const slot = `${m.method}\u0000${m.target?.kind ?? ''}\u0000${m.target?.name ?? ''}`
    // A long name is keyed afresh: 1024 names of 4 MiB cached would hold gigabytes.
    if (slot.length > 2 * MAX_CACHED_NAME) {
      const a: Activation = { jwt: claims, mcp: mcpCelValue(m.method, m.target) }
      return this.selects(a) ? this.keyOf(a) : null
    }
    let byMessage = this.#cache?.get(claims)
    const hit = byMessage?.get(slot)
    if (hit !== undefined) return hit
    const a: Activation = { jwt: claims, mcp: mcpCelValue(m.method, m.target) }
    const key = this.selects(a) ? this.keyOf(a) : null
    if (this.#cache) {
      if (!byMessage) {
        byMessage = new Map()
        this.#cache.set(claims, byMessage)
      }
      // Bounded: a client sending many names cannot grow it without end.
      if (byMessage.size >= 1024) byMessage.clear()
      byMessage.set(slot, key)
    }
    return key
  }

  selects(a: Activation): boolean {
    if (!this.#when) return true
    try {
      return this.#when.run(a) !== false
    } catch {
      return true
    }
  }

  keyOf(a: Activation): string {
    if (!this.#key) return ''
    try {
      return keyText(this.#key.run(a)) ?? UNKEYED
    } catch {
      return UNKEYED
    }
  }
}

/** Where another process keeps the buckets (the cluster primary). */
export interface SharedBuckets {
  decide(wants: LimitWant[]): Promise<RateLimitDecision>
}

/** Limits whose buckets may live elsewhere: the decision may be asynchronous. */
export interface Limiter {
  readonly limits: readonly LocalRateLimitConfig[]
  /** Decides for one request and, when admitted, takes its tokens. */
  admit(
    claims: Readonly<Record<string, unknown>>,
    messages: readonly McpMessage[],
  ): RateLimitDecision | Promise<RateLimitDecision>
  /** Keys tracked per limit in this process (`/config_dump`). */
  sizes(): Record<string, number>
}

/** The compiled limits of a route (every policy on it), with their buckets in this process. */
export interface RateLimiter extends Limiter {
  admit(
    claims: Readonly<Record<string, unknown>>,
    messages: readonly McpMessage[],
  ): RateLimitDecision
}

const NO_MESSAGE: readonly McpMessage[] = [
  { type: 'request', id: undefined, method: '', target: undefined },
]

/** The keys a request wants from each limit, and how many tokens of each. */
function wantsOf(
  limits: readonly Limit[],
  claims: Readonly<Record<string, unknown>>,
  messages: readonly McpMessage[],
): Map<Limit, Map<string, number>> {
  const wanted = new Map<Limit, Map<string, number>>()
  for (const m of messages.length > 0 ? messages : NO_MESSAGE) {
    for (const limit of limits) {
      const key = limit.keyFor(claims, m)
      if (key === null) continue
      let keys = wanted.get(limit)
      if (!keys) {
        keys = new Map()
        wanted.set(limit, keys)
      }
      keys.set(key, (keys.get(key) ?? 0) + 1)
    }
  }
  return wanted
}

/**
 * Compiles limits.
 * @param now - clock for the buckets (tests).
 * @param cel - the compilation's CEL compiler (`CompiledConfig.cel`), which holds the programs.
 * @throws Error `[i].key: invalid CEL "…"` naming the first expression that does not compile.
 */
export function compileRateLimits(
  configs: readonly LocalRateLimitConfig[],
  now?: () => number,
  cel: CelCompiler = newCelCompiler(),
): RateLimiter {
  const limits = configs.map((c, i) => new Limit(c, i, cel, now))
  return {
    limits: configs,
    admit(claims, messages) {
      return decide(
        [...wantsOf(limits, claims, messages)].map(([limit, keys]) => ({
          config: limit.config,
          buckets: limit.buckets,
          keys,
        })),
      )
    },
    sizes() {
      return Object.fromEntries(limits.map((l) => [l.config.name, l.buckets.size]))
    },
  }
}

/**
 * Compiles limits whose buckets another process holds (`shared`, the cluster primary): keys are
 * computed here, the decision is made there. `scope` names them there (the route). `cel` is the
 * compilation's CEL compiler (`CompiledConfig.cel`).
 */
export function compileSharedRateLimits(
  configs: readonly LocalRateLimitConfig[],
  shared: SharedBuckets,
  scope: string,
  cel: CelCompiler = newCelCompiler(),
): Limiter {
  const limits = configs.map((c, i) => new Limit(c, i, cel))
  const ids = new Map(limits.map((l, i) => [l, `${scope}\u0000${i}`]))
  return {
    limits: configs,
    admit(claims, messages) {
      const wanted = wantsOf(limits, claims, messages)
      // No limit selects the request: nothing to ask the primary.
      if (wanted.size === 0) return { admitted: true, retryAfterSec: 0, limits: [] }
      return shared.decide(
        [...wanted].map(([limit, keys]) => ({
          id: ids.get(limit) as string,
          config: limit.config,
          keys: [...keys],
        })),
      )
    },
    // The buckets are the primary's; this process tracks none.
    sizes: () => Object.fromEntries(configs.map((c) => [c.name, 0])),
  }
}
