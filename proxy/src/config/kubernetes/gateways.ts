/**
 * Gateways and their listeners (Gateway API `Gateway`, `gateway.networking.k8s.io/v1`): each HTTP
 * listener becomes a gatehouse gateway, and so do HTTPS listeners (HTTPS listeners sharing a
 * port are one, its certificates chosen by their `hostname`, SNI) (`gateways.<name>`): the Gateway's name when it has one
 * listener, `<gateway>-<listener>` when it has several. A route's `parentRefs[]` resolve to the
 * listeners they select (`sectionName`, `port`) and that admit the route's namespace
 * (`allowedRoutes.namespaces.from`: `Same` by default, or `All`). A parent that is no Gateway
 * resource may be a gateway of the standalone document (`gateways.<name>`) given beside them.
 */
import { type Findings, notOk, ok } from './findings.js'
import type { Origins } from './origins.js'
import { type ObjectRef, parentKind, type RefProblem, type ResourceIndex } from './references.js'
import { GATEWAY_API_GROUP, type Resource } from './resources.js'
import { resolveCertificateRef } from './secrets.js'

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
  objects: ResourceIndex = index,
  fail?: (r: Resource, field: (string | number)[], message: string) => void,
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
    const unresolved: RefProblem[] = []
    /** HTTPS listeners by port: those sharing one are one gatehouse gateway, SNI choosing. */
    const httpsByPort = new Map<unknown, string>()
    listeners.forEach((l, i) => {
      const name = typeof l.name === 'string' ? l.name : `listener-${i}`
      const protocol = l.protocol ?? 'HTTP'
      if (protocol !== 'HTTP' && protocol !== 'HTTPS') {
        refused.push(
          `listener ${name}: protocol ${String(l.protocol)} is not supported (gatehouse serves HTTP and HTTPS)`,
        )
        return
      }
      let certificate: Record<string, unknown> | undefined
      if (protocol === 'HTTPS') {
        const tls = listenerTls(l, name, gw, objects)
        if ('refused' in tls) {
          refused.push(tls.refused)
          return
        }
        if ('reason' in tls) {
          // Fail closed: an HTTPS listener is not silently left out (nor served without it).
          unresolved.push(tls)
          fail?.(
            gw,
            ['spec', 'listeners', i, 'tls', 'certificateRefs', 0],
            `${tls.reason}: ${tls.message}`,
          )
          return
        }
        certificate = tls.certificate
      }
      const shared = certificate ? httpsByPort.get(l.port) : undefined
      const key = shared ?? (listeners.length === 1 ? gwKey : `${gwKey}-${name}`)
      const ns = (l.allowedRoutes as { namespaces?: { from?: unknown } } | undefined)?.namespaces
      keys.push({
        gateway: gw,
        listener: name,
        port: l.port,
        from: String(ns?.from ?? 'Same'),
        key,
      })
      if (certificate) {
        // Gateway API `protocol: HTTPS` → `gateways.<key>.tls` (docs/design/kubernetes.md).
        const entry = (gateways[key] ?? {
          port: l.port,
          ...(address !== undefined ? { address } : {}),
          tls: { certificates: [] },
        }) as { tls: { certificates: unknown[] } }
        origins.add(
          ['gateways', key, 'tls', 'certificates', String(entry.tls.certificates.length)],
          gw,
          ['spec', 'listeners', i, 'tls', 'certificateRefs', 0],
        )
        entry.tls.certificates.push(certificate)
        gateways[key] = entry
        httpsByPort.set(l.port, key)
        if (shared) return
      } else {
        gateways[key] = { port: l.port, ...(address !== undefined ? { address } : {}) }
      }
      origins.add(['gateways', key, 'port'], gw, ['spec', 'listeners', i, 'port'])
      origins.add(['gateways', key, 'address'], gw, ['spec', 'addresses', 0, 'value'])
      origins.add(['gateways', key], gw, ['spec', 'listeners', i])
    })
    const [problem] = unresolved
    if (problem) {
      findings.set(
        gw,
        notOk('ResolvedRefs', problem.reason, unresolved.map((p) => p.message).join('; ')),
      )
    }
    if (listeners.length === 0) refused.push('spec.listeners is empty')
    if (refused.length > 0) {
      findings.set(gw, notOk('Accepted', 'ListenersNotValid', refused.join('; ')))
    } else {
      findings.set(gw, ok('Accepted', 'Accepted', 'every listener is HTTP or HTTPS'))
    }
    findings.of(gw).key = gwKey
    findings.of(gw).listeners = keys.map((k) => k.key)
    out.set(`${gw.namespace}/${gw.name}`, keys)
  }
  return out
}

/**
 * The certificate of an HTTPS listener (`tls.mode: Terminate`, one `tls.certificateRefs[]` entry:
 * a Secret of type kubernetes.io/tls), its `hostname` the server name it answers (SNI). A
 * listener gatehouse cannot serve is `refused` (the Gateway is not accepted); one whose Secret
 * does not resolve is a {@link RefProblem} (`ResolvedRefs: False`, Gateway API's
 * `InvalidCertificateRef` or `RefNotPermitted`), and is left out.
 */
function listenerTls(
  l: Record<string, unknown>,
  name: string,
  gw: Resource,
  objects: ResourceIndex,
): { certificate: Record<string, unknown> } | { refused: string } | RefProblem {
  const tls = (l.tls ?? {}) as { mode?: unknown; certificateRefs?: unknown }
  if ((tls.mode ?? 'Terminate') !== 'Terminate') {
    return {
      refused: `listener ${name}: tls.mode ${String(tls.mode)} is not supported (gatehouse terminates TLS: mode Terminate)`,
    }
  }
  const refs = Array.isArray(tls.certificateRefs) ? (tls.certificateRefs as ObjectRef[]) : []
  if (refs.length !== 1) {
    return {
      refused: `listener ${name}: tls.certificateRefs must name exactly one Secret of type kubernetes.io/tls, not ${refs.length} (give each server name a listener of its own, with hostname)`,
    }
  }
  const resolved = resolveCertificateRef(refs[0] as ObjectRef, gw, objects)
  if ('reason' in resolved) {
    return {
      reason: resolved.reason,
      message: `listener ${name}: tls.certificateRefs[0]: ${resolved.message}`,
    }
  }
  return {
    certificate: {
      ...(typeof l.hostname === 'string' ? { hostname: l.hostname } : {}),
      certPem: resolved.certPem,
      keyPem: resolved.keyPem,
      from: resolved.from,
    },
  }
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
