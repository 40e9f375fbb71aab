import { describe, expect, it } from 'vitest'
import {
  cpuPerRequest,
  formatVerdict,
  judgeGoals,
  median,
  parseStat,
  roundRatio,
  treeTicks,
} from '../cpu.js'

// A real /proc/<pid>/stat line shape: utime 1200 and stime 34 (fields 14 and 15), ppid 1 (4).
const STAT =
  '4242 (node (tsx) x) S 1 4242 4242 0 -1 4194560 9000 0 0 0 1200 34 0 0 20 0 11 0 500 1000 2000'

describe('parseStat', () => {
  it('reads pid, ppid and utime + stime past a command name with spaces and parentheses', () => {
    expect(parseStat(STAT)).toEqual({ pid: 4242, ppid: 1, ticks: 1234 })
  })

  it('returns undefined for a line that is not a stat line', () => {
    expect(parseStat('garbage')).toBeUndefined()
  })
})

describe('treeTicks', () => {
  const procs = [
    { pid: 1, ppid: 0, ticks: 1000 },
    { pid: 10, ppid: 1, ticks: 5 }, // the root
    { pid: 11, ppid: 10, ticks: 7 }, // its child
    { pid: 12, ppid: 11, ticks: 11 }, // its grandchild
    { pid: 13, ppid: 1, ticks: 100 }, // a sibling: not counted
  ]

  it('sums the root and all its descendants, and nothing else', () => {
    expect(treeTicks(procs, 10)).toBe(23)
    expect(treeTicks(procs, 11)).toBe(18)
  })

  it('is NaN when the root is gone', () => {
    expect(treeTicks(procs, 99)).toBeNaN()
  })
})

describe('cpuPerRequest', () => {
  it('divides the CPU used between two readings by the requests served', () => {
    expect(cpuPerRequest(1_000_000, 1_500_000, 10_000)).toBe(50)
  })

  it('is NaN without requests', () => {
    expect(cpuPerRequest(0, 10, 0)).toBeNaN()
  })
})

describe('median', () => {
  it('takes the middle value, the upper one of an even count, ignoring NaN', () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 3, 2])).toBe(3)
    expect(median([Number.NaN, 5])).toBe(5)
    expect(median([])).toBeNaN()
  })
})

describe('roundRatio', () => {
  it('takes each ratio within its round, then the median of the ratios', () => {
    // Round 2 is slow for both sides: its ratio is still 2, and the median of ratios is 2,
    // where the ratio of medians would be 100 / 40 = 2.5.
    expect(roundRatio([100, 400, 80], [50, 200, 40])).toBe(2)
  })
})

describe('judgeGoals', () => {
  const cpu = new Map([
    ['gatehouse', [150, 160, 140]],
    ['floor', [100, 100, 100]],
  ])

  it('meets a goal at or under its maximum ratio and misses it above', () => {
    const [met, missed] = judgeGoals(
      [
        { subject: 'gatehouse', base: 'floor', max: 1.5 },
        { subject: 'gatehouse', base: 'floor', max: 1.4 },
      ],
      cpu,
    )
    expect(met).toMatchObject({ ratio: 1.5, met: true })
    expect(missed).toMatchObject({ ratio: 1.5, met: false })
  })

  it('says by how much a goal is missed', () => {
    const [v] = judgeGoals([{ subject: 'gatehouse', base: 'floor', max: 1.2 }], cpu)
    expect(formatVerdict(v as NonNullable<typeof v>)).toBe(
      '- gatehouse ≤ 1.2× floor: **missed** (1.50×, missed by 25 %)',
    )
  })

  it('reports a goal whose targets were not measured as not measured, not as met', () => {
    const [v] = judgeGoals([{ subject: 'gatehouse', base: 'nginx', max: 2 }], cpu)
    expect(v?.met).toBe(false)
    expect(formatVerdict(v as NonNullable<typeof v>)).toContain('not measured')
  })
})
