/**
 * Path matching with Gateway API precedence (HTTPRoute spec): an `Exact` match beats any prefix,
 * and among prefixes the longest wins. `PathPrefix` matches whole path elements: `/mcp` matches
 * `/mcp`, `/mcp/` and `/mcp/x`, never `/mcpx`.
 */

/** One match entry pointing at what it selects. */
export interface RouteEntry<T> {
  type: 'PathPrefix' | 'Exact'
  value: string
  target: T
}

/** A compiled router over entries. */
export interface Router<T> {
  match(path: string): { entry: RouteEntry<T> } | undefined
}

/**
 * Builds a router. Matching costs a lookup per path element, whatever the number of entries (a
 * scan of every prefix cost 10,000 comparisons a request with 10,000 routes): prefixes are indexed
 * by their value without one trailing slash (`/mcp/` and `/mcp` match the same paths), and a
 * path's candidates are itself and each of its element boundaries, longest first.
 */
export function createRouter<T>(entries: readonly RouteEntry<T>[]): Router<T> {
  const builder = new RouterBuilder<T>()
  for (const e of entries) builder.add(e)
  return builder.build()
}

/**
 * A router built one entry at a time, in configuration order, so that a caller walking thousands
 * of routes can give the event loop turns between its additions (`../compile.ts`): each
 * {@link add} costs a map lookup, and {@link build} costs nothing more, where sorting every prefix
 * in one call was one of a large reload's longest stalls (docs/reliability.md, "Large
 * configurations"). The router it builds is {@link createRouter}'s for the same entries.
 */
export class RouterBuilder<T> {
  readonly #exact = new Map<string, RouteEntry<T>>()
  readonly #prefixes = new Map<string, RouteEntry<T>>()
  #root: RouteEntry<T> | undefined
  #built = false

  /** Adds the next entry (configuration order: on a tie, the first added wins). */
  add(e: RouteEntry<T>): void {
    if (this.#built) throw new Error('RouterBuilder.add after build: the router is already built')
    if (e.type === 'Exact') {
      if (!this.#exact.has(e.value)) this.#exact.set(e.value, e)
      return
    }
    if (e.value === '/') {
      this.#root ??= e
      return
    }
    // For one key, the entry the longest-prefix rule picks: the longest value (`/mcp/` before
    // `/mcp`), then configuration order.
    const key = e.value.endsWith('/') ? e.value.slice(0, -1) : e.value
    const held = this.#prefixes.get(key)
    if (!held || e.value.length > held.value.length) this.#prefixes.set(key, e)
  }

  /** The router over the entries added; the builder takes no more after it. */
  build(): Router<T> {
    this.#built = true
    return matcher(this.#exact, this.#prefixes, this.#root)
  }
}

function matcher<T>(
  exact: ReadonlyMap<string, RouteEntry<T>>,
  prefixes: ReadonlyMap<string, RouteEntry<T>>,
  root: RouteEntry<T> | undefined,
): Router<T> {
  return {
    match(path) {
      const e = exact.get(path)
      if (e) return { entry: e }
      if (prefixes.size > 0) {
        // `/a/b/c`: `/a/b/c`, `/a/b`, `/a` (a key never ends with the `/` it was cut at).
        for (let end = path.length; end > 0; end = path.lastIndexOf('/', end - 1)) {
          const p = prefixes.get(end === path.length ? path : path.slice(0, end))
          if (p) return { entry: p }
        }
      }
      return root ? { entry: root } : undefined
    },
  }
}
