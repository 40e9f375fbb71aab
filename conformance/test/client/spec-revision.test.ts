/**
 * `client --spec-version`: which scenarios a run judges. The 2025-03-26 back-compat scenarios
 * run only when asked for (the official suite's `auth` suite leaves them out), so a 2025-11-25
 * client is not failed for them by default.
 */
import { describe, expect, it } from 'vitest'
import { SCENARIOS } from '../../src/client/scenarios.js'
import { DEFAULT_REVISIONS, selectScenarios } from '../../src/client/spec-revision.js'

const names = (s: readonly { name: string }[]) => s.map((x) => x.name)
const of = (revision: string) => names(SCENARIOS.filter((s) => s.revision === revision))

describe('selectScenarios', () => {
  it('runs 2026-07-28 and 2025-11-25 by default, never the 2025-03-26 scenarios', () => {
    const chosen = names(selectScenarios(SCENARIOS, {}))
    expect(DEFAULT_REVISIONS).toEqual(['2026-07-28', '2025-11-25'])
    expect(chosen).toEqual([...of('2025-11-25'), ...of('2026-07-28')])
    expect(chosen).not.toContain('legacy-metadata')
    expect(chosen).not.toContain('legacy-defaults')
    expect(of('2026-07-28')).toEqual(
      expect.arrayContaining(['request-metadata', 'iss-missing', 'as-migration']),
    )
  })

  it('runs the 2025-03-26 scenarios when that revision is asked for', () => {
    expect(names(selectScenarios(SCENARIOS, { revisions: ['2025-03-26'] }))).toEqual([
      'legacy-metadata',
      'legacy-defaults',
    ])
  })

  it('runs a scenario named with --scenario whatever its revision, within --spec-version when given', () => {
    expect(
      names(selectScenarios(SCENARIOS, { names: ['legacy-defaults', 'iss-missing'] })),
    ).toEqual(['legacy-defaults', 'iss-missing'])
    expect(
      names(
        selectScenarios(SCENARIOS, {
          names: ['legacy-defaults', 'iss-missing'],
          revisions: ['2026-07-28'],
        }),
      ),
    ).toEqual(['iss-missing'])
  })
})
