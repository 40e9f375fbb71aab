/**
 * References between resources, resolved as Gateway API resolves them: a reference names a
 * group, kind, namespace (default: the referrer's) and name; a reference into another namespace
 * needs a ReferenceGrant there that admits the referrer's kind and namespace (GEP-709). A
 * reference that cannot be resolved says why with a Gateway API reason (`InvalidKind`,
 * `RefNotPermitted`, `BackendNotFound`, ...).
 */
import { GATEWAY_API_GROUP, type Resource, resourceId } from './resources.js'

/** Why a reference did not resolve (a condition reason) and what to do. */
export interface RefProblem {
  reason: string
  message: string
}

/** Resources by kind, then by `namespace/name`. */
export class ResourceIndex {
  readonly #byKind = new Map<string, Map<string, Resource>>()
  readonly #grants: Resource[] = []

  constructor(resources: readonly Resource[], groups: ReadonlyMap<string, string>) {
    for (const r of resources) {
      if (groups.get(r.kind) !== r.group) continue
      if (r.kind === 'ReferenceGrant') this.#grants.push(r)
      const map = this.#byKind.get(r.kind) ?? new Map<string, Resource>()
      this.#byKind.set(r.kind, map)
      map.set(`${r.namespace}/${r.name}`, r)
    }
  }

  /** The resource of a kind at `namespace/name`. */
  get(kind: string, namespace: string, name: string): Resource | undefined {
    return this.#byKind.get(kind)?.get(`${namespace}/${name}`)
  }

  /** Every resource of a kind. */
  all(kind: string): Resource[] {
    return [...(this.#byKind.get(kind)?.values() ?? [])]
  }

  /**
   * Whether a ReferenceGrant in `to.namespace` admits a reference from `from` (its kind and
   * namespace) to `to` (GEP-709: `spec.from[]` and `spec.to[]`, `to.name` optional).
   */
  granted(
    from: Pick<Resource, 'group' | 'kind' | 'namespace'>,
    to: { group: string; kind: string; namespace: string; name: string },
  ): boolean {
    return this.#grants.some((g) => {
      if (g.namespace !== to.namespace) return false
      const froms = Array.isArray(g.spec.from) ? (g.spec.from as Record<string, unknown>[]) : []
      const tos = Array.isArray(g.spec.to) ? (g.spec.to as Record<string, unknown>[]) : []
      return (
        froms.some(
          (f) => f.group === from.group && f.kind === from.kind && f.namespace === from.namespace,
        ) &&
        tos.some(
          (t) =>
            (t.group ?? '') === to.group &&
            t.kind === to.kind &&
            (t.name === undefined || t.name === to.name),
        )
      )
    })
  }
}

/** A reference as written: group, kind, namespace, name (and port for backends). */
export interface ObjectRef {
  group?: unknown
  kind?: unknown
  namespace?: unknown
  name?: unknown
  port?: unknown
}

/**
 * Resolves a reference to a backend (an HTTPRoute's `backendRefs[]`, a policy's
 * `jwks.remote.backendRef`): it must be a GatewayBackend of `apiGroup` (Gateway API's default,
 * a core Service, is not something this proxy can reach: `InvalidKind`), exist (`BackendNotFound`),
 * be granted when in another namespace (`RefNotPermitted`), and listen on `port` when one is named.
 */
export function resolveBackendRef(
  ref: ObjectRef,
  from: Resource,
  apiGroup: string,
  index: ResourceIndex,
): { backend: Resource } | RefProblem {
  const group = typeof ref.group === 'string' ? ref.group : ''
  const kind = typeof ref.kind === 'string' ? ref.kind : 'Service'
  if (group !== apiGroup || kind !== 'GatewayBackend') {
    return {
      reason: 'InvalidKind',
      message: `backend reference to ${kind}${group ? `.${group}` : ''} "${String(ref.name)}": gatehouse reaches backends through GatewayBackend (group ${apiGroup}); set group: ${apiGroup} and kind: GatewayBackend`,
    }
  }
  const namespace = typeof ref.namespace === 'string' ? ref.namespace : from.namespace
  const name = String(ref.name)
  const backend = index.get('GatewayBackend', namespace, name)
  if (!backend) {
    return {
      reason: 'BackendNotFound',
      message: `GatewayBackend ${namespace}/${name} not found`,
    }
  }
  if (
    namespace !== from.namespace &&
    !index.granted(from, { group, kind, namespace, name: backend.name })
  ) {
    return {
      reason: 'RefNotPermitted',
      message: `${resourceId(from)} refers to GatewayBackend ${namespace}/${name} in another namespace, and no ReferenceGrant in ${namespace} allows it (from ${from.kind} in ${from.namespace})`,
    }
  }
  const listens = (backend.spec.static as { port?: unknown } | undefined)?.port
  if (ref.port !== undefined && listens !== undefined && ref.port !== listens) {
    return {
      reason: 'BackendNotFound',
      message: `GatewayBackend ${namespace}/${name} listens on port ${String(listens)}, not ${String(ref.port)}`,
    }
  }
  return { backend }
}

/** `{ group, kind }` defaults of a parent reference (Gateway API: a Gateway). */
export function parentKind(ref: ObjectRef): { group: string; kind: string } {
  return {
    group: typeof ref.group === 'string' ? ref.group : GATEWAY_API_GROUP,
    kind: typeof ref.kind === 'string' ? ref.kind : 'Gateway',
  }
}
