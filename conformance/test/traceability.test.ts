import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CATALOGUE } from '../src/catalogue/index.js'
import { renderTraceability, SEED_STATEMENTS } from '../src/traceability.js'
import { PROFILES } from '../src/types.js'

describe('requirements catalogue', () => {
  it('has unique, well-formed IDs with a level, profile, source and text', () => {
    const ids = CATALOGUE.map((r) => r.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const r of CATALOGUE) {
      expect(r.id).toMatch(/^[A-Z]+-\d{3}$/)
      expect(['MUST', 'SHOULD', 'MAY']).toContain(r.level)
      expect(PROFILES).toContain(r.profile)
      expect(r.source.length, r.id).toBeGreaterThan(5)
      expect(r.text.length, r.id).toBeGreaterThan(10)
    }
  })
})

describe('traceability (seed → requirements)', () => {
  const known = new Set(CATALOGUE.map((r) => r.id))

  it('gives every seed statement at least one existing requirement', () => {
    for (const s of SEED_STATEMENTS) {
      expect(s.requirements.length, s.statement).toBeGreaterThan(0)
      for (const id of s.requirements) expect(known.has(id), `${s.section}: ${id}`).toBe(true)
    }
  })

  it('traces every requirement back to at least one seed statement or spec source', () => {
    const traced = new Set(SEED_STATEMENTS.flatMap((s) => s.requirements))
    const untraced = CATALOGUE.filter(
      (r) => !traced.has(r.id) && !/RFC|MCP|Fetch|docs\//.test(r.source),
    )
    expect(untraced.map((r) => r.id)).toEqual([])
  })

  it('matches the committed TRACEABILITY.md (run npm run conformance:trace after changes)', () => {
    const committed = readFileSync(new URL('../TRACEABILITY.md', import.meta.url), 'utf8')
    expect(committed).toBe(renderTraceability(CATALOGUE))
  })
})
