/**
 * Hiding what a caller may not use from `tools/list`, `prompts/list` and `resources/list` results
 * (docs/auth.md; agentgateway's `mcpAuthorization`: "if a tool, or other resource, is not allowed it
 * will automatically be filtered in the list request"), one JSON-RPC message at a time. The
 * stream transforms that apply it to a response body live in `response-filter.ts`.
 *
 * An item without a string `name` (tools, prompts) or `uri` (resources) cannot be judged, so it is
 * hidden. Resource templates (`resources/templates/list`) are not filtered: a template is not a
 * resource URI a rule could be judged against; `resources/read` of what it expands to is.
 */
import type { JsonRpcId, TargetKind } from './json-rpc.js'

/** The result field that holds the items of each list method, and the kind of its items. */
export const LIST_METHODS: Readonly<
  Record<string, { field: 'tools' | 'prompts' | 'resources'; kind: TargetKind }>
> = {
  'tools/list': { field: 'tools', kind: 'tool' },
  'prompts/list': { field: 'prompts', kind: 'prompt' },
  'resources/list': { field: 'resources', kind: 'resource' },
}

const FIELDS = Object.values(LIST_METHODS)

/** Whether a listed item stays visible to the caller (`item`: the listed object itself). */
export type ItemVisible = (kind: TargetKind, name: string, item: unknown) => boolean

/**
 * Caching hints of a filtered list result (MCP 2026-07-28 Caching §Cache Scope Field: "`private`
 * is appropriate for … filtered list results that vary per user"; "Caches MUST NOT be shared
 * across authorization contexts"): set on results the gateway filtered, in the modern era only.
 */
export interface ListCacheHints {
  /** Cap on `ttlMs` (the operator's `mcpAuthorization.maxListTtl`); `undefined`: none. */
  maxTtlMs?: number | undefined
}

/**
 * Whether a body holds a list request, so that its answer must go through the list filter. Which
 * response answers which request is not asked: ids may repeat in a batch (`[ping 1, tools/list
 * 1]`), so every result of such an answer is judged by its shape (docs/design/hardening.md).
 */
export function requestsList(
  messages: ReadonlyArray<{ type: string; id: JsonRpcId | null | undefined; method: string }>,
): boolean {
  return messages.some(
    (m) => m.type === 'request' && m.id !== null && m.id !== undefined && !!LIST_METHODS[m.method],
  )
}

function itemName(item: unknown, kind: TargetKind): string | undefined {
  if (typeof item !== 'object' || item === null) return undefined
  const v = (item as Record<string, unknown>)[kind === 'resource' ? 'uri' : 'name']
  return typeof v === 'string' ? v : undefined
}

/** What filtering one message did. */
export interface FilterOutcome {
  /** Whether the message carried a list field. */
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
  if (!Array.isArray(items)) {
    result[field] = []
    outcome.hidden[kind] = (outcome.hidden[kind] ?? 0) + 1
    return
  }
  const kept = items.filter((item) => {
    const name = itemName(item, kind)
    return name !== undefined && visible(kind, name, item)
  })
  if (kept.length !== items.length) {
    result[field] = kept
    outcome.hidden[kind] = (outcome.hidden[kind] ?? 0) + items.length - kept.length
  }
}

/**
 * Filters one parsed JSON-RPC message in place: every list field (`tools`, `prompts`,
 * `resources`) of its result, whatever request it answers. A list field that is not an array
 * cannot be judged item by item and is emptied.
 * @returns what it did; `hidden` is empty when nothing was removed.
 */
export function filterListMessage(
  message: unknown,
  visible: ItemVisible,
  cache?: ListCacheHints,
): FilterOutcome {
  const outcome: FilterOutcome = { matched: false, hidden: {} }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return outcome
  const result = (message as Record<string, unknown>).result
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return outcome
  const r = result as Record<string, unknown>
  for (const { field, kind } of FIELDS) {
    if (field in r) {
      outcome.matched = true
      filterField(r, field, kind, visible, outcome)
    }
  }
  if (outcome.matched && cache) markPrivate(r, cache)
  return outcome
}

/**
 * Marks a filtered result `cacheScope: "private"` whatever the backend said (it lists for every
 * user; the gateway made it this user's), and caps `ttlMs`. MCP 2026-07-28 Caching §Time-to-Live:
 * "Servers MUST provide a `ttlMs` value that is `>= 0`": a missing or invalid one is left to the
 * backend's conformance, a larger one than the cap is lowered to it.
 */
function markPrivate(result: Record<string, unknown>, cache: ListCacheHints): void {
  result.cacheScope = 'private'
  const max = cache.maxTtlMs
  if (max !== undefined && typeof result.ttlMs === 'number' && result.ttlMs > max) {
    result.ttlMs = max
  }
}

/**
 * Filters a parsed body or event payload in place: one message, or a batch of them (JSON-RPC 2.0
 * §6, in one body or one SSE event).
 * @returns the merged outcome of every message.
 */
export function filterListMessages(
  parsed: unknown,
  visible: ItemVisible,
  cache?: ListCacheHints,
): FilterOutcome {
  const total: FilterOutcome = { matched: false, hidden: {} }
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    const outcome = filterListMessage(message, visible, cache)
    total.matched ||= outcome.matched
    for (const [kind, n] of Object.entries(outcome.hidden) as Array<[TargetKind, number]>) {
      total.hidden[kind] = (total.hidden[kind] ?? 0) + n
    }
  }
  return total
}

/** Whether an outcome removed anything. */
export function hidAny(outcome: FilterOutcome): boolean {
  return Object.keys(outcome.hidden).length > 0
}
