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
  const exact = new Map<string, RouteEntry<T>>()
  for (const e of entries) if (e.type === 'Exact' && !exact.has(e.value)) exact.set(e.value, e)
  // For one key, the entry the longest-prefix rule picks: the longest value (`/mcp/` before
  // `/mcp`), then configuration order (the sort is stable).
  const prefixes = new Map<string, RouteEntry<T>>()
  let root: RouteEntry<T> | undefined
  const sorted = entries
    .filter((e) => e.type === 'PathPrefix')
    .sort((a, b) => b.value.length - a.value.length)
  for (const e of sorted) {
    if (e.value === '/') {
      root ??= e
      continue
    }
    const key = e.value.endsWith('/') ? e.value.slice(0, -1) : e.value
    if (!prefixes.has(key)) prefixes.set(key, e)
  }
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
