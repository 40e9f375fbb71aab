/**
 * Route precedence and cross-namespace conflicts, as Gateway API decides them (HTTPRoute spec,
 * "Matching precedence"): the most specific match wins (an Exact path, then the longest
 * PathPrefix, as the router does), and a tie goes to the route with the oldest
 * `creationTimestamp`, then to the first in `{namespace}/{name}` alphabetical order. The
 * translation writes routes in that order, and the router keeps the first of equal matches.
 *
 * A listener that admits routes from every namespace lets one tenant's route match a path
 * another namespace protects. Such a route would answer unauthenticated requests on the
 * protected path, or receive its users' bearer tokens; it is not attached unless it is covered by
 * the same authentication the protected route has (docs/reliability.md, "Route takeover across
 * namespaces").
 */
import type { Resource } from './resources.js'

/** A path match of a route rule. */
export interface PathMatch {
  type: 'PathPrefix' | 'Exact'
  value: string
}

/** A route that would be attached, with what decides its precedence and its conflicts. */
export interface RouteCandidate {
  route: Resource
  /** The gatehouse gateways (listeners) it attaches to. */
  listeners: readonly string[]
  matches: readonly PathMatch[]
  /**
   * The `traffic` of each authentication policy covering it, canonical JSON; empty when none
   * does (a public route).
   */
  protection: ReadonlySet<string>
  /** `GatewayPolicy ns/name` of the policies protecting it, for messages. */
  protectedBy: readonly string[]
}

/** Gateway API order: oldest `creationTimestamp` first (absent: newest), then `namespace/name`. */
export function byPrecedence(a: Resource, b: Resource): number {
  const [x, y] = [a.created ?? Number.POSITIVE_INFINITY, b.created ?? Number.POSITIVE_INFINITY]
  if (x !== y) return x < y ? -1 : 1
  const [p, q] = [`${a.namespace}/${a.name}`, `${b.namespace}/${b.name}`]
  return p < q ? -1 : p > q ? 1 : 0
}

/** Whether PathPrefix `prefix` matches `path` (whole path elements, as the router matches). */
function underPrefix(prefix: string, path: string): boolean {
  const p = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix
  if (p === '') return true
  return path.startsWith(p) && (path.length === p.length || path.charCodeAt(p.length) === 47)
}

/**
 * Whether match `r` takes requests that match `p` away from it, or shares them on a tie: an
 * equal match, an Exact path inside `p`'s prefix, or a longer prefix inside it.
 */
export function takesTraffic(r: PathMatch, p: PathMatch): boolean {
  if (p.type === 'Exact') return r.type === 'Exact' && r.value === p.value
  return underPrefix(p.value, r.value)
}

/** Canonical JSON (object keys sorted), so that equal policies compare equal. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    )
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/**
 * The candidates that may not be attached, each with why: a route that shares a listener with a
 * route of another namespace protected by authentication, and takes traffic matching it, without
 * being covered by every one of the same policies (equal `traffic`). Whatever their timestamps:
 * an older route would win the tie, a newer one would be one `kubectl apply` away from it.
 */
export function protectedConflicts(candidates: readonly RouteCandidate[]): Map<Resource, string> {
  const out = new Map<Resource, string>()
  for (const r of candidates) {
    for (const p of candidates) {
      if (p === r || p.route.namespace === r.route.namespace || p.protection.size === 0) continue
      if ([...p.protection].every((t) => r.protection.has(t))) continue
      const shared = r.listeners.filter((l) => p.listeners.includes(l))
      if (shared.length === 0) continue
      const hit = r.matches
        .flatMap((m) => p.matches.filter((q) => takesTraffic(m, q)).map((q) => [m, q] as const))
        .at(0)
      if (!hit) continue
      const [m, q] = hit
      out.set(
        r.route,
        `its ${m.type} ${m.value} takes traffic matching ${q.type} ${q.value} of HTTPRoute ${p.route.namespace}/${p.route.name} (listener ${shared.join(', ')}), which ${p.protectedBy.join(', ')} protects, and it is not covered by an equal policy; not attached, so that it cannot answer unauthenticated requests there or receive their tokens. Attach an equal policy to it, use another path, or give namespace ${r.route.namespace} a listener of its own`,
      )
      break
    }
  }
  return out
}
