/**
 * Gateway API status of the Kubernetes resources a proxy was configured from: what translation
 * found (`Accepted`, `ResolvedRefs`, HTTPRoute `parents[]`) joined with what the runtime knows now
 * (`Attached`, `Programmed`: a listener bound, a route in a router, a policy whose key set is
 * available). Each condition carries `observedGeneration` and `lastTransitionTime`, kept across
 * reloads by a {@link ConditionClock} so that a time moves only when the status does.
 */
import type { AuthPolicy } from '../auth/types.js'
import type { ConditionType, Finding, ResourceFindings } from '../config/kubernetes/findings.js'
import type { GatehouseConfig } from '../config/schema.js'

/** A condition as Gateway API writes it (metav1.Condition). */
export interface ResourceCondition extends Finding {
  observedGeneration: number
  /** RFC 3339 time the status last changed. */
  lastTransitionTime: string
}

/** One resource's status. */
export interface ResourceStatus {
  kind: string
  namespace: string
  name: string
  generation: number
  /** The name it has in the translated configuration (`routes.<name>`, ...), when it has one. */
  gatehouseName?: string
  conditions: ResourceCondition[]
  /** HTTPRoute only: its status towards each parent reference. */
  parents?: Array<{
    parentRef: Record<string, string>
    controllerName: string
    conditions: ResourceCondition[]
  }>
}

/** Remembers when each condition last changed status, across reloads. */
export class ConditionClock {
  readonly #since = new Map<string, { status: string; at: string }>()

  /** `lastTransitionTime` of a condition now at `status`. */
  time(key: string, status: string, now: Date = new Date()): string {
    const prev = this.#since.get(key)
    if (prev && prev.status === status) return prev.at
    const at = now.toISOString()
    this.#since.set(key, { status, at })
    return at
  }
}

/** What the runtime knows, for the conditions translation cannot decide. */
export interface RuntimeView {
  config: Readonly<GatehouseConfig>
  policies: ReadonlyMap<string, AuthPolicy>
  /** Gatehouse gateways that are listening, with the routes each carries. */
  listening: ReadonlyMap<string, readonly string[]>
  /** `controllerName` in route parent status. */
  controllerName: string
}

const ORDER: readonly ConditionType[] = ['Accepted', 'ResolvedRefs', 'Attached', 'Programmed']

/** The status of every resource, now. */
export function resourceStatus(
  findings: readonly ResourceFindings[],
  view: RuntimeView,
  clock: ConditionClock,
): ResourceStatus[] {
  return findings.map((f) => {
    const id = `${f.kind} ${f.namespace}/${f.name}`
    const decided = new Map<ConditionType, Finding>(f.conditions.map((c) => [c.type, c]))
    decided.set(
      'Accepted',
      decided.get('Accepted') ?? {
        type: 'Accepted',
        status: 'True',
        reason: 'Accepted',
        message: 'resource is valid',
      },
    )
    decided.set(
      'ResolvedRefs',
      decided.get('ResolvedRefs') ?? {
        type: 'ResolvedRefs',
        status: 'True',
        reason: 'ResolvedRefs',
        message: 'every reference resolved',
      },
    )
    const failed = [...decided.values()].find((c) => c.status === 'False')
    const runtime = runtimeConditions(f, view)
    for (const type of ['Attached', 'Programmed'] as const) {
      const given = decided.get(type)
      if (given?.status === 'False') continue
      if (failed)
        decided.set(type, { type, status: 'False', reason: failed.reason, message: failed.message })
      else decided.set(type, runtime[type])
    }
    const stamp = (c: Finding, key: string): ResourceCondition => ({
      ...c,
      observedGeneration: f.generation,
      lastTransitionTime: clock.time(`${id}/${key}`, c.status),
    })
    const status: ResourceStatus = {
      kind: f.kind,
      namespace: f.namespace,
      name: f.name,
      generation: f.generation,
      ...(f.key ? { gatehouseName: f.key } : {}),
      conditions: ORDER.map((t) => stamp(decided.get(t) as Finding, t)),
    }
    if (f.parents) {
      status.parents = f.parents.map((p, i) => ({
        parentRef: { ...p.parentRef },
        controllerName: view.controllerName,
        conditions: p.conditions.map((c) => stamp(c, `parent${i}/${c.type}`)),
      }))
    }
    return status
  })
}

const T = (type: ConditionType, reason: string, message: string): Finding => ({
  type,
  status: 'True',
  reason,
  message,
})
const F = (type: ConditionType, reason: string, message: string): Finding => ({
  type,
  status: 'False',
  reason,
  message,
})

/** `Attached` and `Programmed` from the running proxy. */
function runtimeConditions(
  f: ResourceFindings,
  view: RuntimeView,
): Record<'Attached' | 'Programmed', Finding> {
  const key = f.key ?? ''
  switch (f.kind) {
    case 'Gateway': {
      const listeners = f.listeners ?? []
      const bound = listeners.filter((l) => view.listening.has(l))
      const routes = new Set(bound.flatMap((l) => view.listening.get(l) ?? []))
      return {
        Attached: T('Attached', 'Attached', `${routes.size} route(s) attached`),
        Programmed:
          bound.length === listeners.length && listeners.length > 0
            ? T('Programmed', 'Programmed', `listening: ${bound.join(', ')}`)
            : F(
                'Programmed',
                'Pending',
                `not listening: ${listeners.filter((l) => !bound.includes(l)).join(', ') || 'no HTTP listener'}`,
              ),
      }
    }
    case 'HTTPRoute': {
      const on = [...view.listening].filter(([, routes]) => routes.includes(key)).map(([gw]) => gw)
      const ok = on.length > 0
      return {
        Attached: ok
          ? T('Attached', 'Attached', `on ${on.join(', ')}`)
          : F('Attached', 'NoMatchingParent', 'attached to no listening gateway'),
        Programmed: ok
          ? T('Programmed', 'Programmed', `served on ${on.join(', ')}`)
          : F('Programmed', 'NoMatchingParent', 'not served'),
      }
    }
    case 'GatewayPolicy': {
      const policy = view.policies.get(key)
      if (!policy || !view.config.policies[key]) {
        return {
          Attached: F('Attached', 'TargetNotFound', 'not attached'),
          Programmed: F('Programmed', 'NotCompiled', 'not compiled'),
        }
      }
      const s = policy.status()
      const targets = view.config.policies[key]?.targetRefs.map((t) => t.name) ?? []
      return {
        Attached: T('Attached', 'Attached', `attached to ${targets.join(', ')}`),
        Programmed: s.programmed
          ? T('Programmed', 'Programmed', s.message)
          : F('Programmed', s.reason, s.message),
      }
    }
    case 'GatewayBackend':
    case 'BackendTLSPolicy': {
      const ok = f.kind === 'GatewayBackend' ? view.config.backends[key] !== undefined : true
      return {
        Attached: T(
          'Attached',
          'Attached',
          f.kind === 'GatewayBackend'
            ? 'backend is available to routes and policies'
            : 'applied to its backends',
        ),
        Programmed: ok
          ? T('Programmed', 'Programmed', 'in the running configuration')
          : F('Programmed', 'Invalid', 'not in the running configuration'),
      }
    }
    default:
      return {
        Attached: T('Attached', 'Attached', 'in force'),
        Programmed: T('Programmed', 'Programmed', 'in force'),
      }
  }
}
