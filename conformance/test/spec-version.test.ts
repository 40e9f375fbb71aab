/** `--spec-version`: parsing and what a run judges (src/spec-version.ts). */
import { describe, expect, it } from 'vitest'
import {
  isJudged,
  LATEST_FINAL_REVISION,
  notJudgedReason,
  parseSpecVersion,
  SELECTABLE_REVISIONS,
  selectSpecVersions,
} from '../src/spec-version.js'

describe('parseSpecVersion', () => {
  it('takes selectable revisions, one or comma-separated, repeated, without duplicates', () => {
    expect(parseSpecVersion('2026-07-28')).toEqual(['2026-07-28'])
    expect(parseSpecVersion('2025-03-26, 2025-11-25', ['2025-11-25'])).toEqual([
      '2025-11-25',
      '2025-03-26',
    ])
  })

  it('refuses a revision it does not offer, naming the ones it does', () => {
    expect(() => parseSpecVersion('draft')).toThrow(/unknown MCP revision "draft".*2026-07-28/)
    expect(() => parseSpecVersion('2025-06-18')).toThrow(/2025-11-25, 2025-03-26/)
  })
})

describe('selectSpecVersions', () => {
  it('judges exactly what was asked for', () => {
    const s = selectSpecVersions(['2025-03-26', '2026-07-28'], ['2025-11-25'])
    expect(s).toMatchObject({ revisions: ['2026-07-28', '2025-03-26'], asked: true })
  })

  it('by default judges the latest final revision plus what the target announces', () => {
    expect(LATEST_FINAL_REVISION).toBe('2026-07-28')
    expect(selectSpecVersions(undefined, ['2025-11-25', '1900-01-01']).revisions).toEqual([
      '2026-07-28',
      '2025-11-25',
    ])
    expect(selectSpecVersions(undefined, []).revisions).toEqual(['2026-07-28'])
  })

  it('judges every selectable revision when what the target speaks is unknown, and says so', () => {
    const s = selectSpecVersions(undefined, undefined)
    expect(s.revisions).toEqual(SELECTABLE_REVISIONS)
    expect(s.note).toMatch(/could not be learned/)
  })
})

describe('isJudged', () => {
  const only2026 = selectSpecVersions(['2026-07-28'])
  it('judges a revision-independent requirement always, a tagged one when a revision matches', () => {
    expect(isJudged(only2026, undefined)).toBe(true)
    expect(isJudged(only2026, ['2026-07-28'])).toBe(true)
    expect(isJudged(only2026, ['2025-06-18', '2025-11-25'])).toBe(false)
    expect(notJudgedReason(only2026, ['2025-11-25'])).toBe(
      'not judged: it follows MCP 2025-11-25; this run judges MCP 2026-07-28 (--spec-version)',
    )
  })
})
