/**
 * Gateways and their listeners (Gateway API `Gateway`, `gateway.networking.k8s.io/v1`): each HTTP
 * listener becomes a gatehouse gateway (`gateways.<name>`): the Gateway's name when it has one
 * listener, `<gateway>-<listener>` when it has several. A route's `parentRefs[]` resolve to the
 * listeners they select (`sectionName`, `port`) and that admit the route's namespace
 * (`allowedRoutes.namespaces.from`: `Same` by default, or `All`). A parent that is no Gateway
 * resource may be a gateway of the standalone document (`gateways.<name>`) given beside them.
 */
import { type Findings, notOk, ok } from './findings.js'
import type { Origins } from './origins.js'
import { type ObjectRef, parentKind, type ResourceIndex } from './references.js'
import { GATEWAY_API_GROUP, type Resource } from './resources.js'

/** A listener that became a gatehouse gateway. */
export interface ListenerKey {
  gateway: Resource
  listener: string
  port: unknown
  /** `allowedRoutes.namespaces.from`. */
  from: string
  /** Its name under `gateways`. */
  key: string
}

/**
 * Translates every Gateway: returns the listeners by Gateway (`namespace/name`) and adds them to
 * `gateways`. A listener whose protocol is not HTTP is left out (the Gateway reports it).
 */
export function translateGateways(
  index: ResourceIndex,
  keyOf: (r: Resource) => string,
  gateways: Record<string, unknown>,
  findings: Findings,
  origins: Origins,
): Map<string, ListenerKey[]> {
  const out = new Map<string, ListenerKey[]>()
  for (const gw of index.all('Gateway')) {
    const listeners = Array.isArray(gw.spec.listeners)
      ? (gw.spec.listeners as Record<string, unknown>[])
      : []
    const gwKey = keyOf(gw)
    const keys: ListenerKey[] = []
    const addresses = Array.isArray(gw.spec.addresses)
      ? (gw.spec.addresses as Record<string, unknown>[])
      : []
    const address = addresses[0]?.value
    const refused: string[] = []
    listeners.forEach((l, i) => {
      const name = typeof l.name === 'string' ? l.name : `listener-${i}`
      if ((l.protocol ?? 'HTTP') !== 'HTTP') {
        refused.push(
          `listener ${name}: protocol ${String(l.protocol)} is not supported (gatehouse serves HTTP; terminate TLS in front of it)`,
        )
        return
      }
      const key = listeners.length === 1 ? gwKey : `${gwKey}-${name}`
      const ns = (l.allowedRoutes as { namespaces?: { from?: unknown } } | undefined)?.namespaces
      keys.push({
        gateway: gw,
        listener: name,
        port: l.port,
        from: String(ns?.from ?? 'Same'),
        key,
      })
      gateways[key] = { port: l.port, ...(address !== undefined ? { address } : {}) }
      origins.add(['gateways', key, 'port'], gw, ['spec', 'listeners', i, 'port'])
      origins.add(['gateways', key, 'address'], gw, ['spec', 'addresses', 0, 'value'])
      origins.add(['gateways', key], gw, ['spec', 'listeners', i])
    })
    if (listeners.length === 0) refused.push('spec.listeners is empty')
    if (refused.length > 0) {
      findings.set(gw, notOk('Accepted', 'ListenersNotValid', refused.join('; ')))
    } else {
      findings.set(gw, ok('Accepted', 'Accepted', 'every listener is HTTP'))
    }
    findings.of(gw).key = gwKey
    findings.of(gw).listeners = keys.map((k) => k.key)
    out.set(`${gw.namespace}/${gw.name}`, keys)
  }
  return out
}

/** Gateway API `RouteConditionReason` for a parent that cannot carry the route. */
export interface ParentResolution {
  parentRef: { group: string; kind: string; namespace: string; name: string; sectionName?: string }
  /** The listeners (gatehouse gateways) it attaches to; empty when refused. */
  keys: string[]
  reason: string
  message: string
}

/** Resolves one `parentRefs[]` entry of a route. */
export function resolveParentRef(
  ref: ObjectRef & { sectionName?: unknown },
  route: Resource,
  listenersOf: ReadonlyMap<string, ListenerKey[]>,
  standalone: ReadonlySet<string>,
): ParentResolution {
  const { group, kind } = parentKind(ref)
  const namespace = typeof ref.namespace === 'string' ? ref.namespace : route.namespace
  const name = String(ref.name)
  const sectionName = typeof ref.sectionName === 'string' ? ref.sectionName : undefined
  const parentRef = { group, kind, namespace, name, ...(sectionName ? { sectionName } : {}) }
  const refused = (reason: string, message: string): ParentResolution => ({
    parentRef,
    keys: [],
    reason,
    message,
  })
  if (group !== GATEWAY_API_GROUP || kind !== 'Gateway') {
    return refused(
      'InvalidKind',
      `parent ${kind}.${group} is not supported: routes attach to a Gateway (group ${GATEWAY_API_GROUP})`,
    )
  }
  const all = listenersOf.get(`${namespace}/${name}`)
  if (!all && standalone.has(name) && sectionName === undefined && ref.port === undefined) {
    // A gateway of the standalone document beside the manifests (`gateways.<name>`), for
    // manifests written for a Gateway that is deployed elsewhere.
    return { parentRef, keys: [name], reason: 'Accepted', message: `attached to gateways.${name}` }
  }
  if (!all) {
    return refused(
      'NoMatchingParent',
      `Gateway ${namespace}/${name} not found (add it, or a standalone document with gateways.${name})`,
    )
  }
  const selected = all.filter(
    (l) =>
      (sectionName === undefined || l.listener === sectionName) &&
      (ref.port === undefined || l.port === ref.port),
  )
  if (selected.length === 0) {
    return refused(
      'NoMatchingParent',
      `Gateway ${namespace}/${name} has no HTTP listener${sectionName ? ` named ${sectionName}` : ''}${ref.port !== undefined ? ` on port ${String(ref.port)}` : ''}`,
    )
  }
  const allowed = selected.filter(
    (l) => l.from === 'All' || (l.from === 'Same' && namespace === route.namespace),
  )
  if (allowed.length === 0) {
    return refused(
      'NotAllowedByListeners',
      `the listeners of Gateway ${namespace}/${name} admit routes from ${selected.map((l) => l.from).join(', ')} namespaces, not from ${route.namespace} (set allowedRoutes.namespaces.from: All; Selector is not supported)`,
    )
  }
  return {
    parentRef,
    keys: allowed.map((l) => l.key),
    reason: 'Accepted',
    message: `attached to ${allowed.map((l) => `listener ${l.listener}`).join(', ')}`,
  }
}
