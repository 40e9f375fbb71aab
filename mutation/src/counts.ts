/**
 * The counts the READMEs quote (requirements of the catalogue, curated mutants), generated rather
 * than typed: each sits in a marked region, `<!-- counts:start <key> -->…<!-- counts:end -->`,
 * that `npm run docs:counts` rewrites from the catalogue and `mutation/mutants/`, and
 * mutation/test/counts.test.ts fails when a region is out of step.
 */
import { CATALOGUE } from '@gatehouse/conformance/internal/catalogue'
import { listMutants } from './mutants.js'

/** The files holding count regions, relative to the repository root. */
export const COUNTED_FILES: readonly string[] = ['README.md', 'conformance/README.md']

/** What the regions are written from. */
export interface Counts {
  /** Requirements in the catalogue. */
  requirements: number
  /** Requirements by level. */
  levels: { MUST: number; SHOULD: number; MAY: number }
  /** Catalogue profiles. */
  profiles: number
  /** Curated mutants. */
  mutants: number
}

/** The counts of the current tree. */
export function currentCounts(): Counts {
  const level = (l: string) => CATALOGUE.filter((r) => r.level === l).length
  return {
    requirements: CATALOGUE.length,
    levels: { MUST: level('MUST'), SHOULD: level('SHOULD'), MAY: level('MAY') },
    profiles: new Set(CATALOGUE.map((r) => r.profile)).size,
    mutants: listMutants().length,
  }
}

/** The text of each region key. */
export const REGIONS: Readonly<Record<string, (c: Counts) => string>> = {
  requirements: (c) => {
    const levels = Object.entries(c.levels).filter(([, n]) => n > 0)
    const byLevel = levels.map(([level, n]) => `${n} ${level}`).join(', ')
    return `${c.requirements} requirements (${byLevel}) in ${c.profiles} profiles`
  },
  mutants: (c) => `${c.mutants}`,
  'mutants-score': (c) => `\`mutants: ${c.mutants}/${c.mutants} caught (100%)\``,
}

/** A count region that is malformed or names no known key. */
export class CountRegionError extends Error {
  override name = 'CountRegionError'
}

const REGION = /<!-- counts:start ([\w-]+) -->([\s\S]*?)<!-- counts:end -->/g

/**
 * Rewrites every count region of a file's text.
 * @param where - the file's name, for errors.
 * @throws CountRegionError for an unknown key or a start without its end.
 */
export function rewriteCounts(text: string, counts: Counts, where: string): string {
  const starts = text.match(/<!-- counts:start /g)?.length ?? 0
  const whole = text.match(REGION)?.length ?? 0
  if (starts !== whole) {
    throw new CountRegionError(
      `${where}: a "<!-- counts:start <key> -->" has no "<!-- counts:end -->"`,
    )
  }
  return text.replace(REGION, (_all, key: string) => {
    const render = REGIONS[key]
    if (!render) {
      throw new CountRegionError(
        `${where}: unknown count region "${key}"; known: ${Object.keys(REGIONS).join(', ')}`,
      )
    }
    return `<!-- counts:start ${key} -->${render(counts)}<!-- counts:end -->`
  })
}
