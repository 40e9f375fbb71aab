/**
 * Hiding what a caller may not use from `tools/list`, `prompts/list` and `resources/list` results
 * (issue #14; agentgateway's `mcpAuthorization`: "if a tool, or other resource, is not allowed it
 * will automatically be filtered in the list request"), one JSON-RPC message at a time. The
 * stream transforms that apply it to a response body live in `response-filter.ts`.
 *
 * An item without a string `name` (tools, prompts) or `uri` (resources) cannot be judged, so it is
 * hidden. Resource templates (`resources/templates/list`) are not filtered: a template is not a
 * resource URI a rule could be judged against; `resources/read` of what it expands to is.
 */
import { idKey, type JsonRpcId, type TargetKind } from './json-rpc.js'

/** The result field that holds the items of each list method, and the kind of its items. */
export const LIST_METHODS: Readonly<
  Record<string, { field: 'tools' | 'prompts' | 'resources'; kind: TargetKind }>
> = {
  'tools/list': { field: 'tools', kind: 'tool' },
  'prompts/list': { field: 'prompts', kind: 'prompt' },
  'resources/list': { field: 'resources', kind: 'resource' },
}

const FIELDS = Object.values(LIST_METHODS)

/** Whether a listed item stays visible to the caller. */
export type ItemVisible = (kind: TargetKind, name: string) => boolean

/**
 * Which responses to filter: the ids of the list requests of this POST (each mapped to its
 * method), or `'any'` — every response whose result has a list field (a GET stream, where the
 * request that a replayed response answers is not known).
 */
export type ListTargets = ReadonlyMap<string, string> | 'any'

/** Builds {@link ListTargets} from the list requests of a body. */
export function listTargetsOf(
  messages: ReadonlyArray<{ type: string; id: JsonRpcId | null | undefined; method: string }>,
): Map<string, string> {
  const targets = new Map<string, string>()
  for (const m of messages) {
    if (m.type === 'request' && m.id !== null && m.id !== undefined && LIST_METHODS[m.method]) {
      targets.set(idKey(m.id), m.method)
    }
  }
  return targets
}

function itemName(item: unknown, kind: TargetKind): string | undefined {
  if (typeof item !== 'object' || item === null) return undefined
  const v = (item as Record<string, unknown>)[kind === 'resource' ? 'uri' : 'name']
  return typeof v === 'string' ? v : undefined
}

/** What filtering one message did. */
export interface FilterOutcome {
  /** Whether the message was one of the targeted list responses. */
  matched: boolean
  /** Items removed, per kind. */
  hidden: Partial<Record<TargetKind, number>>
}

function filterField(
  result: Record<string, unknown>,
  field: string,
  kind: TargetKind,
  visible: ItemVisible,
  outcome: FilterOutcome,
): void {
  const items = result[field]
  if (!Array.isArray(items)) return
  const kept = items.filter((item) => {
    const name = itemName(item, kind)
    return name !== undefined && visible(kind, name)
  })
  if (kept.length !== items.length) {
    result[field] = kept
    outcome.hidden[kind] = (outcome.hidden[kind] ?? 0) + items.length - kept.length
  }
}

/**
 * Filters one parsed JSON-RPC message in place, when it is a targeted list response.
 * @returns what it did; `hidden` is empty when nothing was removed.
 */
export function filterListMessage(
  message: unknown,
  targets: ListTargets,
  visible: ItemVisible,
): FilterOutcome {
  const outcome: FilterOutcome = { matched: false, hidden: {} }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return outcome
  const m = message as Record<string, unknown>
  const result = m.result
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return outcome
  const r = result as Record<string, unknown>
  if (targets === 'any') {
    for (const { field, kind } of FIELDS) {
      if (field in r) {
        outcome.matched = true
        filterField(r, field, kind, visible, outcome)
      }
    }
    return outcome
  }
  const id = m.id
  if (typeof id !== 'string' && typeof id !== 'number') return outcome
  const method = targets.get(idKey(id))
  const spec = method ? LIST_METHODS[method] : undefined
  if (!spec) return outcome
  outcome.matched = true
  filterField(r, spec.field, spec.kind, visible, outcome)
  return outcome
}

/** Whether an outcome removed anything. */
export function hidAny(outcome: FilterOutcome): boolean {
  return Object.keys(outcome.hidden).length > 0
}
