/**
 * The start order (scripts/vitest/sequencer.ts): the longest files first, in LONGEST_FIRST's order,
 * then every other file in vitest's own order.
 */
import { describe, expect, it } from 'vitest'
import type { TestSpecification, Vitest } from 'vitest/node'
import { LongestFirstSequencer, startRank } from '../vitest/sequencer.js'
import { LONGEST_FIRST } from '../vitest/tiers.js'

describe('startRank', () => {
  it('ranks the longest files by their place in LONGEST_FIRST, before every other file', () => {
    expect(LONGEST_FIRST.map(startRank)).toEqual(LONGEST_FIRST.map((_, i) => i))
    expect(startRank('proxy/test/errors.test.ts')).toBe(LONGEST_FIRST.length)
  })

  it('reads a Windows path as the same file', () => {
    expect(startRank('peers\\test\\matrix.test.ts')).toBe(0)
  })
})

describe('LongestFirstSequencer', () => {
  it('starts the longest files first, whatever their project, and keeps the rest in order', async () => {
    const root = '/repo'
    const config = { root, sequence: { groupOrder: 0 }, isolate: true }
    const spec = (project: string, file: string) =>
      ({
        project: { name: project, config, vitest: { config } },
        moduleId: `${root}/${file}`,
      }) as unknown as TestSpecification
    // No cached durations or sizes, as in a clean clone: vitest keeps projects by name.
    const ctx = {
      config,
      cache: { getFileTestResults: () => undefined, getFileStats: () => undefined },
    } as unknown as Vitest
    const files = [
      spec('e2e', 'proxy/test/admin/ui/app/main.browser.test.ts'),
      spec('e2e', 'peers/test/matrix.test.ts'),
      spec('integration', 'conformance/test/client/cli.test.ts'),
      spec('integration', 'proxy/test/cli.test.ts'),
      spec('unit', 'proxy/test/errors.test.ts'),
    ]
    const sorted = await new LongestFirstSequencer(ctx).sort(files)
    expect(sorted.map((f) => f.moduleId.slice(root.length + 1))).toEqual([
      'peers/test/matrix.test.ts',
      'conformance/test/client/cli.test.ts',
      'proxy/test/admin/ui/app/main.browser.test.ts',
      'proxy/test/cli.test.ts',
      'proxy/test/errors.test.ts',
    ])
  })
})
