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

function prefixMatches(prefix: string, path: string): boolean {
  if (prefix === '/') return true
  const p = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix
  if (!path.startsWith(p)) return false
  return path.length === p.length || path.charCodeAt(p.length) === 47 /* / */
}

/** Builds a router; entries are ordered once so that a request walks them at most once. */
export function createRouter<T>(entries: readonly RouteEntry<T>[]): Router<T> {
  const exact = new Map<string, RouteEntry<T>>()
  for (const e of entries) if (e.type === 'Exact' && !exact.has(e.value)) exact.set(e.value, e)
  const prefixes = entries
    .filter((e) => e.type === 'PathPrefix')
    .sort((a, b) => b.value.length - a.value.length)
  return {
    match(path) {
      const e = exact.get(path)
      if (e) return { entry: e }
      for (const p of prefixes) if (prefixMatches(p.value, path)) return { entry: p }
      return undefined
    },
  }
}
