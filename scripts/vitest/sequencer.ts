/**
 * The order test files start in: vitest's own (by its cache of durations, else the larger file
 * first — in a clean clone there is no cache), but the files of {@link LONGEST_FIRST} first, so
 * that on two workers the longest does not start last and run alone at the end.
 */
import { relative } from 'node:path'
import type { TestSpecification } from 'vitest/node'
import { BaseSequencer } from 'vitest/node'
import { LONGEST_FIRST } from './tiers.js'

/** The place of `file` (relative to the root) in {@link LONGEST_FIRST}, or the list's length. */
export function startRank(file: string): number {
  const i = LONGEST_FIRST.indexOf(file.split('\\').join('/'))
  return i === -1 ? LONGEST_FIRST.length : i
}

/** vitest's sequencer with the longest files moved to the front (a stable sort keeps the rest). */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const rank = (f: TestSpecification) =>
      startRank(relative(f.project.vitest.config.root, f.moduleId))
    return sorted
      .map((file, i) => ({ file, i, rank: rank(file) }))
      .sort((a, b) => a.rank - b.rank || a.i - b.i)
      .map(({ file }) => file)
  }
}
