/**
 * The `tool` label of `gatehouse_mcp_tool_calls_total` (docs/design/hardening.md). Tool names come from
 * clients, so the label set must stay bounded — yet a client inventing 200 names must not push the
 * real tools into `__other__` until a restart, as a first-come cap did. So:
 *
 * - names known to be real — named by an `mcpAuthorization` rule, or listed by a backend in a
 *   `tools/list` result (`toolsKnownChannel`) — always get a label of their own (at most
 *   `maxKnown` of them);
 * - any other name gets one of `maxOthers` slots while there is one, and a slot whose name was
 *   not used for `maxAgeMs` is given to the next new name, its series removed from the registry;
 * - past that, `__other__`.
 */

/** Label value for a name that gets no label of its own. */
export const OTHER_LABEL = '__other__'

/** Options of {@link ToolLabels}. */
export interface ToolLabelsOptions {
  /** Known names kept (default 1000). */
  maxKnown?: number
  /** Slots for other names (default 100). */
  maxOthers?: number
  /** How long an other name keeps its slot unused (default 10 minutes). */
  maxAgeMs?: number
  /** Monotonic clock in milliseconds (default `performance.now`). */
  now?: () => number
  /** Told when an other name loses its slot, with the series keys it was used with. */
  onForget?: (name: string, series: ReadonlySet<string>) => void
}

interface Slot {
  lastUsed: number
  series: Set<string>
}

/** Tool names as label values; see the module comment. */
export class ToolLabels {
  readonly maxKnown: number
  readonly maxOthers: number
  readonly maxAgeMs: number
  readonly #known = new Set<string>()
  /** Other names, least recently used first (Map insertion order, refreshed on use). */
  readonly #others = new Map<string, Slot>()
  readonly #now: () => number
  readonly #onForget: ToolLabelsOptions['onForget']

  constructor(options: ToolLabelsOptions = {}) {
    this.maxKnown = options.maxKnown ?? 1000
    this.maxOthers = options.maxOthers ?? 100
    this.maxAgeMs = options.maxAgeMs ?? 10 * 60_000
    this.#now = options.now ?? (() => performance.now())
    this.#onForget = options.onForget
  }

  /** Marks names as real tools: each keeps a label of its own from now on (up to `maxKnown`). */
  register(names: Iterable<string>): void {
    for (const name of names) {
      if (this.#known.size >= this.maxKnown) return
      this.#known.add(name)
      // Its series stay: they are the tool's own now.
      this.#others.delete(name)
    }
  }

  /**
   * The label value to record `name` with.
   * @param series - the other labels of the series about to be recorded (`route`, `outcome`), so
   *   that they can be removed when the name loses its slot.
   */
  of(name: string, series: string): string {
    if (this.#known.has(name)) return name
    const now = this.#now()
    let slot = this.#others.get(name)
    if (slot) {
      this.#others.delete(name)
    } else {
      if (this.#others.size >= this.maxOthers && !this.#freeOldest(now)) return OTHER_LABEL
      slot = { lastUsed: now, series: new Set() }
    }
    slot.lastUsed = now
    slot.series.add(series)
    this.#others.set(name, slot)
    return name
  }

  /** Gives up the least recently used slot when it is older than `maxAgeMs`. */
  #freeOldest(now: number): boolean {
    const oldest = this.#others.entries().next()
    if (oldest.done) return false
    const [name, slot] = oldest.value
    if (now - slot.lastUsed < this.maxAgeMs) return false
    this.#others.delete(name)
    this.#onForget?.(name, slot.series)
    return true
  }
}
