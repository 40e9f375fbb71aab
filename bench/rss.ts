/**
 * Resident memory of a process tree (Linux /proc), and the arithmetic the memory benchmark does
 * with it: RSS per held stream and how long RSS took to come back after the streams closed. The
 * arithmetic is pure (bench/test/rss.test.ts).
 */
import { readProcs } from './cpu.js'
import { rssOf } from './processes.js'

/** The summed RSS of `root` and its descendants, in bytes (a master and its workers). */
export function treeRss(root: number): number {
  const procs = readProcs()
  const pids = new Set([root])
  let grew = true
  while (grew) {
    grew = false
    for (const p of procs) {
      if (pids.has(p.ppid) && !pids.has(p.pid)) {
        pids.add(p.pid)
        grew = true
      }
    }
  }
  let total = 0
  for (const pid of pids) {
    try {
      total += rssOf(pid)
    } catch {
      // exited meanwhile
    }
  }
  return total
}

/** KiB of RSS per stream: what `streams` streams added over the RSS before them. */
export function perStreamKiB(before: number, withStreams: number, streams: number): number {
  return (withStreams - before) / streams / 1024
}

/** One RSS reading, `at` seconds after the streams closed. */
export interface RssSample {
  at: number
  rss: number
}

/**
 * The first reading within `tolerance` (0.1: 10 %) of `baseline` — how soon RSS came back — or
 * undefined if none did.
 */
export function recovered(
  samples: readonly RssSample[],
  baseline: number,
  tolerance: number,
): RssSample | undefined {
  return samples.find((s) => s.rss <= baseline * (1 + tolerance))
}
