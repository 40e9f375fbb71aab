/**
 * A deterministic sample of Stryker's mutants (`npm run conformance:stryker -- --sample N`).
 *
 * Stryker has no sampling of its own, so the sample is chosen before it runs: Stryker's own
 * instrumenter lists every mutant of the files to mutate, each mutant gets a rank (a hash of its
 * file, place, mutator and replacement: stable while the code around it changes), and source
 * locations are taken in rank order until they hold at least N mutants. Stryker is then told to
 * mutate only those locations (`mutate` ranges), and the ignorer below (plugin `gatehouse-sample`,
 * running in Stryker's main process) ignores the nodes nested in a chosen location that were not
 * chosen themselves. Every mutant on a chosen location is run, so a sample may hold a few more
 * than N.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import type { Location, Position } from '@stryker-mutator/api/core'
import type { Ignorer, NodePath } from '@stryker-mutator/api/ignore'
import type { Logger } from '@stryker-mutator/api/logging'
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin'
import { Instrumenter } from '@stryker-mutator/instrumenter'

/** The environment variable naming the sample file (JSON {@link Sample}) the ignorer reads. */
export const SAMPLE_ENV = 'GATEHOUSE_STRYKER_SAMPLE'

/** One mutant as the instrumenter lists it (Stryker's locations: 0-based lines, 0-based columns). */
export interface ListedMutant {
  /** Path relative to the repository root. */
  file: string
  location: Location
  mutatorName: string
  replacement: string
}

/** The chosen locations, by file (relative path → `line:column-line:column` keys). */
export interface Sample {
  /** How many mutants the chosen locations hold. */
  mutants: number
  /** Every mutant there is (in the files to mutate). */
  total: number
  locations: Record<string, string[]>
  /** Each file's length in characters: how the ignorer, which sees only syntax nodes, knows the
   * file a program node is (babel's program spans the whole text). */
  lengths: Record<string, number>
}

const quiet: Logger = {
  isTraceEnabled: () => false,
  isDebugEnabled: () => false,
  isInfoEnabled: () => false,
  isWarnEnabled: () => false,
  isErrorEnabled: () => false,
  isFatalEnabled: () => false,
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  fatal: () => {},
}

/** Lists every mutant Stryker's instrumenter makes of `files` (absolute paths). */
export async function listMutants(root: string, files: readonly string[]): Promise<ListedMutant[]> {
  const instrumenter = new Instrumenter(quiet)
  const result = await instrumenter.instrument(
    files.map((name) => ({ name, content: readFileSync(name, 'utf8'), mutate: true })),
    { plugins: null, excludedMutations: [], ignorers: [] },
  )
  return result.mutants.map((m) => ({
    file: relative(root, m.fileName),
    location: m.location,
    mutatorName: m.mutatorName,
    replacement: m.replacement,
  }))
}

/** A location as a key (Stryker's 0-based lines). */
export function locationKey({ start, end }: Location): string {
  return `${start.line}:${start.column}-${end.line}:${end.column}`
}

/**
 * Chooses locations in rank order until they hold at least `n` mutants (all of them when `n` is
 * at least their number).
 */
export function chooseSample(
  mutants: readonly ListedMutant[],
  n: number,
  lengths: Record<string, number>,
): Sample {
  const rank = (m: ListedMutant) =>
    createHash('sha256')
      .update(`${m.file}\0${locationKey(m.location)}\0${m.mutatorName}\0${m.replacement}`)
      .digest('hex')
  const byLocation = new Map<string, number>()
  for (const m of mutants) {
    const key = `${m.file}@${locationKey(m.location)}`
    byLocation.set(key, (byLocation.get(key) ?? 0) + 1)
  }
  const ranked = [...mutants].sort((a, b) => (rank(a) < rank(b) ? -1 : 1))
  const chosen = new Set<string>()
  let count = 0
  for (const m of ranked) {
    if (count >= n) break
    const key = `${m.file}@${locationKey(m.location)}`
    if (chosen.has(key)) continue
    chosen.add(key)
    count += byLocation.get(key) ?? 0
  }
  const locations: Record<string, string[]> = {}
  for (const key of [...chosen].sort()) {
    const [file, loc] = key.split('@') as [string, string]
    const list = locations[file] ?? []
    list.push(loc)
    locations[file] = list
  }
  return { mutants: count, total: mutants.length, locations, lengths }
}

/**
 * Stryker `mutate` patterns for a sample: `file:line:column-line:column`, lines 1-based as
 * Stryker's option wants them.
 */
export function mutatePatterns(sample: Sample): string[] {
  return Object.entries(sample.locations).flatMap(([file, keys]) =>
    keys.map((key) => {
      const [start, end] = key.split('-') as [string, string]
      const [sl, sc] = start.split(':').map(Number) as [number, number]
      const [el, ec] = end.split(':').map(Number) as [number, number]
      return `${file}:${sl + 1}:${sc}-${el + 1}:${ec}`
    }),
  )
}

/** A {@link locationKey} back as a location. */
export function parseKey(key: string): Location {
  const [start, end] = key.split('-') as [string, string]
  const pos = (p: string): Position => {
    const [line, column] = p.split(':').map(Number) as [number, number]
    return { line, column }
  }
  return { start: pos(start), end: pos(end) }
}

function within(outer: Location, inner: Location): boolean {
  const before = (a: Position, b: Position) =>
    a.line < b.line || (a.line === b.line && a.column <= b.column)
  return before(outer.start, inner.start) && before(inner.end, outer.end)
}

/** What the ignorer reads of a babel node path. */
interface BabelPath {
  node?: { type?: string; end?: number | null; loc?: { start: Position; end: Position } | null }
}

/**
 * The ignorer: a node inside a chosen location, neither chosen itself nor holding a chosen one.
 * Stryker traverses one file after another and visits each file's program node first; the file
 * is known by the program's length (no two files to mutate have the same).
 */
export function sampleIgnorer(load: () => Sample): Ignorer {
  let chosen: Map<string, Location[]> | undefined
  let byLength = new Map<number, string>()
  let locations: Location[] = []
  return {
    shouldIgnore(path: NodePath) {
      const { node } = path as BabelPath
      if (node?.type === 'Program') {
        if (!chosen) {
          // Read when Stryker first instruments (the CLI writes the sample after importing this).
          const sample = load()
          chosen = new Map(
            Object.entries(sample.locations).map(([file, keys]) => [file, keys.map(parseKey)]),
          )
          byLength = new Map(Object.entries(sample.lengths).map(([file, n]) => [n, file]))
        }
        const file = byLength.get(node.end ?? -1)
        if (file === undefined) throw new Error(`sample: no file to mutate is ${node.end} long`)
        locations = chosen.get(file) ?? []
        return undefined
      }
      const loc = node?.loc
      if (!loc) return undefined
      const here: Location = {
        start: { line: loc.start.line - 1, column: loc.start.column },
        end: { line: loc.end.line - 1, column: loc.end.column },
      }
      const key = locationKey(here)
      if (locations.some((l) => locationKey(l) === key)) return undefined
      if (!locations.some((l) => within(l, here))) return undefined
      if (locations.some((l) => within(here, l))) return undefined
      return 'not in the sample (npm run conformance:stryker -- --sample)'
    },
  }
}

function loadSample(): Sample {
  const file = process.env[SAMPLE_ENV]
  if (!file) return { mutants: 0, total: 0, locations: {}, lengths: {} }
  return JSON.parse(readFileSync(file, 'utf8')) as Sample
}

/** Stryker's plugin list for this module: the ignorer `gatehouse-sample`. */
export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'gatehouse-sample', sampleIgnorer(loadSample)),
]
