/**
 * CPU time of a process tree, from Linux `/proc/<pid>/stat`, and what the benchmark computes from
 * it: CPU µs per request, medians, per-round ratios and the docs/design/performance.md goals. The arithmetic is
 * pure (bench/test/cpu.test.ts); {@link treeCpuUs} is the one function that reads /proc.
 */
import { readdirSync, readFileSync } from 'node:fs'

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
export const USER_HZ = 100

/** What the benchmark needs of one `/proc/<pid>/stat` line. */
export interface ProcStat {
  pid: number
  ppid: number
  /** utime + stime, in clock ticks. */
  ticks: number
}

/**
 * Parses a `/proc/<pid>/stat` line. The command name (field 2) is in parentheses and may contain
 * spaces and `)`, so fields are counted from the last `)`: ppid is field 4, utime and stime are
 * fields 14 and 15. Returns undefined for a line that is not one.
 */
export function parseStat(line: string): ProcStat | undefined {
  const close = line.lastIndexOf(')')
  if (close < 0) return undefined
  const pid = Number(line.slice(0, line.indexOf(' ')))
  const rest = line.slice(close + 2).split(' ')
  const ppid = Number(rest[1])
  const ticks = Number(rest[11]) + Number(rest[12])
  if (![pid, ppid, ticks].every(Number.isFinite)) return undefined
  return { pid, ppid, ticks }
}

/** The summed ticks of `root` and every descendant of it in `procs`. */
export function treeTicks(procs: readonly ProcStat[], root: number): number {
  const children = new Map<number, ProcStat[]>()
  for (const p of procs) {
    const list = children.get(p.ppid) ?? []
    list.push(p)
    children.set(p.ppid, list)
  }
  const self = procs.find((p) => p.pid === root)
  if (!self) return Number.NaN
  let total = 0
  const todo = [self]
  for (let p = todo.pop(); p; p = todo.pop()) {
    total += p.ticks
    todo.push(...(children.get(p.pid) ?? []))
  }
  return total
}

/** Every process's stat now (processes that exit while being read are left out). */
export function readProcs(): ProcStat[] {
  const out: ProcStat[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const p = parseStat(readFileSync(`/proc/${name}/stat`, 'utf8'))
      if (p) out.push(p)
    } catch {
      // exited meanwhile
    }
  }
  return out
}

/**
 * CPU time (user + system) used so far by `pid` and all its descendants, in µs: a proxy's whole
 * tree, whatever wrapper (tsx), master (nginx) or workers (cluster) it runs as. NaN when `pid` is
 * gone.
 */
export function treeCpuUs(pid: number): number {
  return (treeTicks(readProcs(), pid) * 1_000_000) / USER_HZ
}

/** CPU µs per request between two {@link treeCpuUs} readings; NaN without requests. */
export function cpuPerRequest(beforeUs: number, afterUs: number, requests: number): number {
  return requests > 0 ? (afterUs - beforeUs) / requests : Number.NaN
}

/** The median (the upper one of an even count); NaN for none. */
export function median(xs: readonly number[]): number {
  const sorted = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b)
  return sorted.length === 0 ? Number.NaN : (sorted[Math.floor(sorted.length / 2)] as number)
}

/**
 * The median over rounds of `a / b`, each ratio taken within one round (so load that lands on
 * one round moves both sides). `a[i]` and `b[i]` are the same round's figures.
 */
export function roundRatio(a: readonly number[], b: readonly number[]): number {
  return median(a.map((x, i) => x / (b[i] ?? Number.NaN)))
}

/** A goal of the form "`subject` costs at most `max` × `base`" (CPU per request). */
export interface Goal {
  subject: string
  base: string
  max: number
}

/** A {@link Goal} with the ratio measured. */
export interface GoalVerdict extends Goal {
  ratio: number
  met: boolean
}

/** Judges each goal on the per-round CPU figures of its two targets (by name). */
export function judgeGoals(
  goals: readonly Goal[],
  cpuByTarget: ReadonlyMap<string, readonly number[]>,
): GoalVerdict[] {
  return goals.map((g) => {
    const ratio = roundRatio(cpuByTarget.get(g.subject) ?? [], cpuByTarget.get(g.base) ?? [])
    return { ...g, ratio, met: ratio <= g.max }
  })
}

/** One line per verdict: met or missed, the ratio, and by how much it is missed. */
export function formatVerdict(v: GoalVerdict): string {
  if (Number.isNaN(v.ratio)) return `- ${v.subject} ≤ ${v.max}× ${v.base}: not measured`
  const by = v.met ? '' : `, missed by ${((v.ratio / v.max - 1) * 100).toFixed(0)} %`
  return `- ${v.subject} ≤ ${v.max}× ${v.base}: **${v.met ? 'met' : 'missed'}** (${v.ratio.toFixed(2)}×${by})`
}
