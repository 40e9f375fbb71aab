/**
 * Which kinds a manifest may hold. Gatehouse reads six (Gateway, HTTPRoute, BackendTLSPolicy and
 * ReferenceGrant of Gateway API; GatewayBackend and GatewayPolicy of its own group). Kinds that
 * sit beside them in a manifests directory as a matter of course (the CRDs themselves, a
 * Namespace, the proxy's Deployment and Service, ...) are skipped untouched: not `${ENV}`
 * substituted, not validated beyond their kind. Any other kind is an error: in a cluster the API
 * server would refuse a kind it does not serve, and a misspelled `GatewayPolicyy` that was only
 * ignored would leave its routes without the policy (docs/reliability.md, "Fail-open
 * configuration").
 */
import type { ConfigIssue } from '../../errors.js'
import { isForeignKind } from './foreign-kinds.js'
import { GATEWAY_API_GROUP, type Resource, resourceId } from './resources.js'

/** The API versions read, by kind (`{group}` is the configured API group). */
const VERSIONS: Record<string, readonly string[]> = {
  Gateway: ['v1', 'v1beta1'],
  HTTPRoute: ['v1', 'v1beta1'],
  BackendTLSPolicy: ['v1', 'v1alpha3'],
  ReferenceGrant: ['v1beta1', 'v1'],
  GatewayBackend: ['v1alpha1'],
  GatewayPolicy: ['v1alpha1'],
}

const NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/

/** Levenshtein distance, for "did you mean" (short strings only). */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] as number
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const here = row[j] as number
      row[j] = Math.min(
        here + 1,
        (row[j - 1] as number) + 1,
        prev + (a[i - 1] === b[j - 1] ? 0 : 1),
      )
      prev = here
    }
  }
  return row[b.length] as number
}

/** The kind gatehouse reads that `kind` is most likely a misspelling of, if any. */
export function closestKind(kind: string, known: readonly string[]): string | undefined {
  let best: { kind: string; d: number } | undefined
  for (const k of known) {
    const d = distance(kind.toLowerCase(), k.toLowerCase())
    if (d <= 2 && (!best || d < best.d)) best = { kind: k, d }
  }
  return best?.kind
}

/**
 * The resources translation reads: of a kind it reads, in a version it reads, well named, defined
 * once. A well-known foreign kind is skipped with a warning; anything else is refused with `fail`.
 */
export function admitResources(
  resources: readonly Resource[],
  groups: ReadonlyMap<string, string>,
  apiGroup: string,
  warn: (warning: ConfigIssue) => void,
  fail: (r: Resource, field: (string | number)[], message: string) => void,
): Resource[] {
  const known: Resource[] = []
  const seen = new Set<string>()
  for (const r of resources) {
    if (groups.get(r.kind) !== r.group) {
      const reads = `it reads Gateway, HTTPRoute, BackendTLSPolicy and ReferenceGrant of ${GATEWAY_API_GROUP}, GatewayBackend and GatewayPolicy of ${apiGroup}`
      if (isForeignKind(r.apiVersion, r.kind)) {
        warn({
          path: `${resourceId(r)} (${r.apiVersion})`,
          message: `not a kind gatehouse reads (${reads}); skipped, neither validated nor \${ENV}-substituted`,
        })
        continue
      }
      // An unknown kind is an error, as the API server would refuse it: a misspelled
      // GatewayPolicy that was only ignored would leave its routes unprotected.
      const guess = closestKind(r.kind, [...groups.keys()])
      fail(
        r,
        ['kind'],
        `${r.kind} of ${r.group || 'the core group'} (${r.apiVersion}) is not a kind gatehouse reads (${reads})${guess ? `; did you mean ${guess} (${groups.get(guess)})?` : ''}`,
      )
      continue
    }
    const version = r.apiVersion.slice(r.group.length + 1)
    if (!VERSIONS[r.kind]?.includes(version)) {
      fail(
        r,
        ['apiVersion'],
        `version ${version} of ${r.kind} is not supported; use ${r.group}/${VERSIONS[r.kind]?.[0]}`,
      )
      continue
    }
    if (!NAME.test(r.name)) {
      fail(
        r,
        ['metadata', 'name'],
        'gatehouse names are RFC 1123 DNS labels: 1-63 lowercase letters, digits and "-"',
      )
      continue
    }
    if (seen.has(resourceId(r))) {
      fail(r, ['metadata', 'name'], `${resourceId(r)} is defined twice`)
      continue
    }
    seen.add(resourceId(r))
    known.push(r)
  }
  return known
}
