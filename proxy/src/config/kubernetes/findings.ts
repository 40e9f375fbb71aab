/**
 * What translation found out about each resource, in Gateway API terms: per resource the
 * conditions it can decide on its own (`Accepted`, `ResolvedRefs`), and per HTTPRoute one entry
 * per parent reference (`parents[]`). The runtime adds `Attached` and `Programmed` (./status.ts).
 */
import { type Resource, resourceId } from './resources.js'

/** A condition type gatehouse reports. */
export type ConditionType = 'Accepted' | 'ResolvedRefs' | 'Attached' | 'Programmed'

/** A condition as translation decided it (no times yet). */
export interface Finding {
  type: ConditionType
  status: 'True' | 'False' | 'Unknown'
  /** Gateway API reason, CamelCase: `Accepted`, `BackendNotFound`, `RefNotPermitted`, ... */
  reason: string
  message: string
}

/** An HTTPRoute's status towards one parent reference (Gateway API `RouteParentStatus`). */
export interface ParentFinding {
  parentRef: { group: string; kind: string; namespace: string; name: string; sectionName?: string }
  conditions: Finding[]
}

/** What is known of one resource. */
export interface ResourceFindings {
  kind: string
  namespace: string
  name: string
  generation: number
  /** The gatehouse name it translated to (`routes.<key>`, ...), when it did. */
  key?: string
  /** Gateway only: the gatehouse gateways its HTTP listeners became. */
  listeners?: string[]
  conditions: Finding[]
  parents?: ParentFinding[]
}

/** Findings of every resource, keyed by {@link resourceId}. */
export class Findings {
  readonly #map = new Map<string, ResourceFindings>()

  /** The entry of a resource, created on first use. */
  of(r: Resource): ResourceFindings {
    const id = resourceId(r)
    let f = this.#map.get(id)
    if (!f) {
      f = {
        kind: r.kind,
        namespace: r.namespace,
        name: r.name,
        generation: r.generation,
        conditions: [],
      }
      this.#map.set(id, f)
    }
    return f
  }

  /** Sets a condition (the last word on a type wins, except that False is never overwritten). */
  set(r: Resource, finding: Finding): void {
    const list = this.of(r).conditions
    const i = list.findIndex((c) => c.type === finding.type)
    if (i < 0) list.push(finding)
    else if (list[i]?.status !== 'False') list[i] = finding
  }

  /** Whether a resource has a condition False. */
  failed(r: Resource, type?: ConditionType): boolean {
    return this.of(r).conditions.some(
      (c) => c.status === 'False' && (type === undefined || c.type === type),
    )
  }

  /** Every entry, in the order resources were first seen. */
  list(): ResourceFindings[] {
    return [...this.#map.values()]
  }
}

/** A True condition. */
export const ok = (type: ConditionType, reason: string, message: string): Finding => ({
  type,
  status: 'True',
  reason,
  message,
})

/** A False condition. */
export const notOk = (type: ConditionType, reason: string, message: string): Finding => ({
  type,
  status: 'False',
  reason,
  message,
})
