import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  COUNTED_FILES,
  CountRegionError,
  type Counts,
  currentCounts,
  rewriteCounts,
} from '../src/counts.js'
import { ROOT } from '../src/mutants.js'

const counts: Counts = {
  requirements: 12,
  levels: { MUST: 10, SHOULD: 2, MAY: 0 },
  profiles: 3,
  mutants: 7,
}

describe('rewriteCounts', () => {
  it('rewrites each region from the counts and leaves the text around it alone', () => {
    const text =
      'It judges <!-- counts:start requirements -->5 requirements<!-- counts:end --> and\n' +
      'prints <!-- counts:start mutants-score -->old<!-- counts:end --> (<!-- counts:start mutants -->1<!-- counts:end -->).\n'
    expect(rewriteCounts(text, counts, 'X.md')).toBe(
      'It judges <!-- counts:start requirements -->12 requirements (10 MUST, 2 SHOULD) in 3 profiles<!-- counts:end --> and\n' +
        'prints <!-- counts:start mutants-score -->`mutants: 7/7 caught (100%)`<!-- counts:end --> (<!-- counts:start mutants -->7<!-- counts:end -->).\n',
    )
  })

  it('refuses an unknown key and a region without its end, naming the file', () => {
    expect(() =>
      rewriteCounts('<!-- counts:start nope -->1<!-- counts:end -->', counts, 'X.md'),
    ).toThrow(CountRegionError)
    expect(() =>
      rewriteCounts('<!-- counts:start nope -->1<!-- counts:end -->', counts, 'X.md'),
    ).toThrow(/X\.md: unknown count region "nope"/)
    expect(() => rewriteCounts('<!-- counts:start mutants -->1', counts, 'X.md')).toThrow(
      /X\.md: .* has no "<!-- counts:end -->"/,
    )
  })
})

describe('the count regions of README.md and conformance/README.md', () => {
  const now = currentCounts()

  it.each(COUNTED_FILES.map((f) => [f]))(
    '%s quotes the current catalogue and mutants (else: npm run docs:counts)',
    (file) => {
      const text = readFileSync(join(ROOT, file), 'utf8')
      expect(text).toContain('<!-- counts:start ')
      expect(
        rewriteCounts(text, now, file),
        `${file} is out of step with the catalogue or mutation/mutants/: run npm run docs:counts`,
      ).toBe(text)
    },
  )
})
