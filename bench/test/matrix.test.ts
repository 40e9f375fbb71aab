import { describe, expect, it } from 'vitest'
import type { GoalVerdict } from '../cpu.js'
import {
  figureMatrix,
  goalMatrix,
  memoryGoalMatrix,
  nodeBinary,
  parseList,
  parsePlacements,
  verdictCell,
  wayName,
  ways,
} from '../matrix.js'

describe('parseList and parsePlacements', () => {
  it('splits a comma list, trimming and dropping blanks', () => {
    expect(parseList(' 22, 24,,')).toEqual(['22', '24'])
  })

  it('accepts pinned and unpinned and names anything else', () => {
    expect(parsePlacements('pinned,unpinned')).toEqual(['pinned', 'unpinned'])
    expect(() => parsePlacements('pinned,pined')).toThrow('"pined" is neither pinned nor unpinned')
  })
})

describe('ways', () => {
  it('takes every runtime with every placement, runtime first', () => {
    const all = ways(['22', '24'], ['pinned', 'unpinned'])
    expect(all.map(wayName)).toEqual([
      'Node 22, pinned',
      'Node 22, unpinned',
      'Node 24, pinned',
      'Node 24, unpinned',
    ])
  })
})

describe('nodeBinary', () => {
  it("finds a major version's node-lts package under the root, and current as execPath", () => {
    expect(nodeBinary('24', '/repo', '/usr/bin/node')).toBe(
      '/repo/node_modules/node-lts-24/bin/node',
    )
    expect(nodeBinary('current', '/repo', '/usr/bin/node')).toBe('/usr/bin/node')
  })

  it('refuses what is not a major version (no path from an option)', () => {
    expect(() => nodeBinary('../../bin', '/repo', '/usr/bin/node')).toThrow(
      'not a Node major version',
    )
  })
})

const verdict = (ratio: number, max: number): GoalVerdict => ({
  subject: 'gatehouse',
  base: 'floor',
  max,
  ratio,
  met: ratio <= max,
})

describe('verdictCell', () => {
  it('shows the ratio, met or missed, and by how much it is missed', () => {
    expect(verdictCell(verdict(1.2, 1.3))).toBe('1.20× met')
    expect(verdictCell(verdict(1.56, 1.3))).toBe('1.56× **missed** (+20 %)')
  })

  it('shows a goal whose targets were not measured as such, not as met', () => {
    expect(verdictCell(verdict(Number.NaN, 1.3))).toBe('not measured')
    expect(verdictCell(undefined)).toBe('not measured')
  })
})

describe('goalMatrix', () => {
  it('has a row per goal and a column per way', () => {
    const lines = goalMatrix(
      ['Node 22, pinned', 'Node 22, unpinned'],
      [[verdict(1.2, 1.3)], [verdict(1.43, 1.3)]],
    )
    expect(lines).toEqual([
      '| goal (CPU per request) | Node 22, pinned | Node 22, unpinned |',
      '|---|---:|---:|',
      '| gatehouse ≤ 1.3× floor | 1.20× met | 1.43× **missed** (+10 %) |',
    ])
  })
})

describe('figureMatrix', () => {
  it('shows each figure with the digits asked, and – for one not measured', () => {
    const figures: Record<string, number[]> = { a: [1.234, Number.NaN], b: [10, 20] }
    const lines = figureMatrix('µs', ['a', 'b'], ['x', 'y'], (t, c) => figures[t]?.[c] ?? 0, 1)
    expect(lines.slice(2)).toEqual(['| a | 1.2 | – |', '| b | 10.0 | 20.0 |'])
  })
})

describe('memoryGoalMatrix', () => {
  const MiB = 1024 * 1024
  it('judges RSS under load against 150 MiB and the settled RSS against 10 % above before', () => {
    const rows = memoryGoalMatrix(
      ['Node 22, pinned', 'Node 24, unpinned'],
      [
        { before: 100 * MiB, loaded: 150 * MiB, after: 110 * MiB },
        { before: 100 * MiB, loaded: 196 * MiB, after: 122 * MiB },
      ],
      50,
      30,
    )
    expect(rows).toEqual([
      '| goal (gatehouse RSS, process tree) | Node 22, pinned | Node 24, unpinned |',
      '|---|---:|---:|',
      '| under 50 connections ≤ 150 MiB (stated for Node 22) | 150 MiB met | 196 MiB **missed** (+31 %) |',
      '| 30 s after the load, within 10 % of before | 110 MiB, +10 % met | 122 MiB, +22 % **missed** |',
    ])
  })
})
