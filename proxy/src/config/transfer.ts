/**
 * Handing a validated configuration from the load thread to the main thread in pieces
 * (docs/reliability.md, "Large configurations"). A structured clone of the whole object graph is
 * received in one native step on the main thread (at 10,000 routes the longest stall of a reload,
 * seen as `(program)` in a CPU profile); instead the load thread sends JSON text — strings cross
 * threads as one copy — cut into parts of at most {@link PART_ENTRIES} entries of each top-level
 * map (`routes`, `policies`, `backends`, …) and of each longer list in an entry (a policy's
 * `targetRefs` naming every route), and the main thread parses, revives and freezes one part per
 * turn of the event loop, so requests are answered in between.
 *
 * JSON is what the configuration already is to its digest (`configDigest`); the only values it
 * does not carry as they are, the {@link Duration}s, travel as their paths and are put back.
 */
import { Duration } from './duration.js'
import { deepFreeze } from './load.js'
import type { GatehouseConfig } from './schema.js'

/** Entries of a top-level map per part: one part is parsed per turn of the event loop. */
export const PART_ENTRIES = 250

/** A configuration as text, in parts, with where its `Duration`s were. */
export interface PackedConfig {
  /** JSON of the configuration with each top-level map emptied. */
  head: string
  /**
   * In configuration order: `[map, JSON of up to PART_ENTRIES of its entries]`, or, for a list
   * of an entry longer than that (a policy's `targetRefs` naming 10,000 routes),
   * `[map, JSON of up to PART_ENTRIES of its items, entry, field]`, after the entry's own part
   * (which holds the list empty).
   */
  parts: ([string, string] | [string, string, string, string])[]
  /** Paths of keys where the configuration held a `Duration` (its text in the JSON). */
  durations: string[][]
}

/** Cuts `config` into a {@link PackedConfig} (the load thread's side). */
export function packConfig(config: Readonly<GatehouseConfig>): PackedConfig {
  const head: Record<string, unknown> = {}
  const parts: PackedConfig['parts'] = []
  const durations = durationPaths(config)
  // Entries with a Duration inside a list are sent whole (their Durations are put back at once).
  const timed = new Set(
    durations.map(([map, entry, field]) => `${map}\u0000${entry}\u0000${field}`),
  )
  for (const [key, value] of Object.entries(config)) {
    if (!isMap(value)) {
      head[key] = value
      continue
    }
    head[key] = {}
    const entries = Object.entries(value)
    for (let i = 0; i < entries.length; i += PART_ENTRIES) {
      const lists: PackedConfig['parts'] = []
      const chunk = entries.slice(i, i + PART_ENTRIES).map(([name, entry]) => {
        // Only plain objects carry lists to cut (not a Duration, not a list).
        if (!entry || Object.getPrototypeOf(entry) !== Object.prototype) return [name, entry]
        const copy: Record<string, unknown> = { ...entry }
        for (const [field, list] of Object.entries(entry)) {
          if (!Array.isArray(list) || list.length <= PART_ENTRIES) continue
          if (timed.has(`${key}\u0000${name}\u0000${field}`)) continue
          copy[field] = []
          for (let j = 0; j < list.length; j += PART_ENTRIES) {
            lists.push([key, JSON.stringify(list.slice(j, j + PART_ENTRIES)), name, field])
          }
        }
        return [name, copy]
      })
      parts.push([key, JSON.stringify(Object.fromEntries(chunk))], ...lists)
    }
  }
  return { head: JSON.stringify(head), parts, durations }
}

/**
 * The configuration of a {@link PackedConfig}, its `Duration`s back in place and deeply frozen
 * (the main thread's side): one part per turn of the event loop (`setImmediate`).
 */
export async function unpackConfig(packed: PackedConfig): Promise<Readonly<GatehouseConfig>> {
  const config = JSON.parse(packed.head) as Record<string, Record<string, unknown>>
  // The durations of each entry of a map, by `map\0entry`; the others (outside the maps) by "".
  const within = new Map<string, string[][]>()
  for (const path of packed.durations) {
    const [map, entry] = path
    const key = path.length > 2 && isMap(config[map as string]) ? `${map}\u0000${entry}` : ''
    const list = within.get(key)
    if (list) list.push(path)
    else within.set(key, [path])
  }
  // Entries whose lists come in later parts: frozen at the end, their items as they come.
  const open = new Set(
    packed.parts.flatMap(([map, , entry]) => (entry ? [`${map}\u0000${entry}`] : [])),
  )
  for (const [map, text, entry, field] of packed.parts) {
    await turn()
    const target = config[map] as Record<string, Record<string, unknown[]>>
    if (entry !== undefined && field !== undefined) {
      const items = JSON.parse(text) as unknown[]
      for (const item of items) deepFreeze(item)
      target[entry]?.[field]?.push(...items)
      continue
    }
    const part = JSON.parse(text) as Record<string, Record<string, unknown[]>>
    for (const [name, value] of Object.entries(part)) {
      target[name] = value
      for (const path of within.get(`${map}\u0000${name}`) ?? []) putDuration(config, path)
      if (!open.has(`${map}\u0000${name}`)) deepFreeze(value)
    }
  }
  await turn()
  for (const path of within.get('') ?? []) putDuration(config, path)
  // What the parts left unfrozen: the head and the maps themselves (frozen entries are skipped).
  return deepFreeze(config) as unknown as Readonly<GatehouseConfig>
}

/** Whether a top-level value is a map of named entries (an object that is not a list). */
function isMap(value: unknown): value is Record<string, unknown> {
  return (
    !!value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Duration)
  )
}

function putDuration(config: Record<string, unknown>, path: readonly string[]): void {
  let parent = config
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string, unknown>
  const key = path.at(-1) as string
  parent[key] = Duration.of(parent[key] as string)
}

/** Paths of the `Duration`s in a validated configuration. */
function durationPaths(value: unknown, path: string[] = [], out: string[][] = []): string[][] {
  if (value instanceof Duration) out.push(path)
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) durationPaths(v, [...path, k], out)
  }
  return out
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))
