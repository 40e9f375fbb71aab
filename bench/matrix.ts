/**
 * `npm run bench` measured several ways in one run (docs/design/performance.md, "Measured two
 * ways"): each Node runtime × each measurement way (proxies pinned to one CPU, or nothing pinned),
 * every way with the peers in the same run. What is pure here (bench/test/matrix.test.ts): the
 * option lists, where a runtime's `node` is, and the table of goal verdicts, one column per way.
 */
import { join } from 'node:path'
import type { GoalVerdict } from './cpu.js'

/** How the proxies run against the load: pinned (proxies CPU 0, load CPU 1) or not pinned. */
export type Placement = 'pinned' | 'unpinned'

/** One way of measuring: which Node runs the Node targets, and whether CPUs are pinned. */
export interface Way {
  /** The Node major version as given (`22`), or `current` for the one running the benchmark. */
  node: string
  placement: Placement
}

/** `"22,24"` → `["22", "24"]`; blanks dropped. */
export function parseList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
}

/** The placements of `--ways pinned,unpinned`; throws naming an unknown one. */
export function parsePlacements(text: string): Placement[] {
  return parseList(text).map((p) => {
    if (p !== 'pinned' && p !== 'unpinned') {
      throw new Error(`--ways: "${p}" is neither pinned nor unpinned`)
    }
    return p
  })
}

/** Every runtime × every placement, runtime-major (all of Node 22's ways, then Node 24's). */
export function ways(nodes: readonly string[], placements: readonly Placement[]): Way[] {
  return nodes.flatMap((node) => placements.map((placement) => ({ node, placement })))
}

/** A way's short name: `Node 22, pinned`. */
export function wayName(w: Way): string {
  return `Node ${w.node}, ${w.placement}`
}

/**
 * The `node` binary of a runtime: `current` is `execPath`; a major version is the `node-lts-<n>`
 * package's (`node_modules/node-lts-22/bin/node`) under `root`.
 */
export function nodeBinary(node: string, root: string, execPath: string): string {
  if (node === 'current') return execPath
  if (!/^\d+$/.test(node)) throw new Error(`--nodes: "${node}" is not a Node major version`)
  return join(root, 'node_modules', `node-lts-${node}`, 'bin', 'node')
}

/** `1.23× met` / `1.53× missed (+18 %)` / `not measured`. */
export function verdictCell(v: GoalVerdict | undefined): string {
  if (!v || Number.isNaN(v.ratio)) return 'not measured'
  if (v.met) return `${v.ratio.toFixed(2)}× met`
  return `${v.ratio.toFixed(2)}× **missed** (+${((v.ratio / v.max - 1) * 100).toFixed(0)} %)`
}

/**
 * A markdown table of the goals (rows) judged in each way (columns). `verdicts[i]` are the
 * verdicts of `columns[i]`, in the order of `goals`.
 */
export function goalMatrix(
  columns: readonly string[],
  verdicts: readonly (readonly GoalVerdict[])[],
): string[] {
  const first = verdicts[0] ?? []
  return [
    `| goal (CPU per request) | ${columns.join(' | ')} |`,
    `|---|${columns.map(() => '---:').join('|')}|`,
    ...first.map(
      (g, i) =>
        `| ${g.subject} ≤ ${g.max}× ${g.base} | ${verdicts.map((vs) => verdictCell(vs[i])).join(' | ')} |`,
    ),
  ]
}

/**
 * A markdown table of one figure of each target (rows) in each way (columns); `figure` returns
 * NaN for a target a way did not measure (shown as –).
 */
export function figureMatrix(
  label: string,
  targets: readonly string[],
  columns: readonly string[],
  figure: (target: string, column: number) => number,
  digits = 1,
): string[] {
  return [
    `| ${label} | ${columns.join(' | ')} |`,
    `|---|${columns.map(() => '---:').join('|')}|`,
    ...targets.map(
      (t) =>
        `| ${t} | ${columns
          .map((_, c) => {
            const v = figure(t, c)
            return Number.isNaN(v) ? '–' : v.toFixed(digits)
          })
          .join(' | ')} |`,
    ),
  ]
}

/** gatehouse's tree RSS in one way, in bytes: before any load, highest under it, `settle` s after. */
export interface WayRss {
  before: number
  loaded: number
  after: number
}

/** docs/design/performance.md: RSS under the load at most this (MiB; the goal names Node 22). */
export const LOADED_RSS_MAX_MIB = 150
/** docs/design/performance.md: RSS back within this share of the RSS before the load. */
export const SETTLED_RSS_TOLERANCE = 0.1

/**
 * docs/design/performance.md's memory goals judged in each way (columns): RSS under the load
 * ≤ {@link LOADED_RSS_MAX_MIB} MiB, and back within {@link SETTLED_RSS_TOLERANCE} of the RSS
 * before the load `settle` s after it.
 */
export function memoryGoalMatrix(
  columns: readonly string[],
  rss: readonly WayRss[],
  connections: number,
  settle: number,
): string[] {
  const mib = (b: number) => b / (1024 * 1024)
  const loaded = (r: WayRss) => {
    const v = mib(r.loaded)
    if (v <= LOADED_RSS_MAX_MIB) return `${v.toFixed(0)} MiB met`
    return `${v.toFixed(0)} MiB **missed** (+${((v / LOADED_RSS_MAX_MIB - 1) * 100).toFixed(0)} %)`
  }
  const settled = (r: WayRss) => {
    const growth = r.after / r.before - 1
    const shown = `${mib(r.after).toFixed(0)} MiB, ${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(0)} %`
    return r.after <= r.before * (1 + SETTLED_RSS_TOLERANCE)
      ? `${shown} met`
      : `${shown} **missed**`
  }
  return [
    `| goal (gatehouse RSS, process tree) | ${columns.join(' | ')} |`,
    `|---|${columns.map(() => '---:').join('|')}|`,
    `| under ${connections} connections ≤ ${LOADED_RSS_MAX_MIB} MiB (stated for Node 22) | ${rss.map(loaded).join(' | ')} |`,
    `| ${settle} s after the load, within ${SETTLED_RSS_TOLERANCE * 100} % of before | ${rss.map(settled).join(' | ')} |`,
  ]
}
