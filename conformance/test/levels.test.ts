/**
 * Every requirement's level equals the RFC 2119 keyword of the sentence it quotes from its source
 * (docs/peers.md: "a check's level is the keyword of the sentence it cites, never stricter").
 */
import { describe, expect, it } from 'vitest'
import { CATALOGUE } from '../src/catalogue/index.js'
import { CLIENT_CATALOGUE } from '../src/client/checks/index.js'
import { keywordLevel, keywordLevels } from '../src/levels.js'

const RANK = { MAY: 0, SHOULD: 1, MUST: 2 } as const

describe('keywordLevel', () => {
  it('reads the one RFC 2119 level a sentence states', () => {
    expect(keywordLevel('Access tokens MUST NOT be included in the URI query string')).toBe('MUST')
    expect(keywordLevel('code_verifier REQUIRED. Code verifier')).toBe('MUST')
    expect(keywordLevel('Clients SHOULD implement retry limits')).toBe('SHOULD')
    expect(keywordLevel('Servers MAY do it, it is OPTIONAL')).toBe('MAY')
  })

  it('has no level for a sentence with none, or with several, or in lower case', () => {
    expect(keywordLevel('The proxy forwards MCP traffic.')).toBeUndefined()
    expect(keywordLevel('clients must do it')).toBeUndefined()
    expect(keywordLevel('Clients SHOULD check and MAY fall back')).toBeUndefined()
    expect(keywordLevels('Clients SHOULD check and MAY fall back')).toEqual(['SHOULD', 'MAY'])
  })
})

describe('the client catalogue', () => {
  it.each(CLIENT_CATALOGUE.map((r) => [r.id, r] as const))(
    '%s: its level is the keyword of the sentence it quotes',
    (_id, r) => {
      expect(r.quote.length, 'a quoted sentence').toBeGreaterThan(20)
      expect(keywordLevel(r.quote), r.quote).toBe(r.level)
    },
  )
})

describe('the resource-server profile', () => {
  it.each(CATALOGUE.filter((r) => r.resourceServer).map((r) => [r.id, r] as const))(
    '%s quotes an MCP or RFC sentence whose keyword is its level, not a gatehouse feature',
    (_id, r) => {
      expect(r.source).toMatch(/MCP|RFC/)
      expect(keywordLevel(r.quote ?? ''), r.quote).toBe(r.level)
    },
  )
})

describe('the server catalogue', () => {
  it.each(CATALOGUE.map((r) => [r.id, r] as const))(
    '%s: quotes its source; a keyword in the quote is its level',
    (_id, r) => {
      expect(r.quote, `${r.id} quotes the sentence of ${r.source} it checks`).toBeTruthy()
      const quote = r.quote ?? ''
      const level = keywordLevel(quote)
      if (keywordLevels(quote).length === 0) {
        // A descriptive sentence states no keyword: only the seed (the product spec gatehouse
        // implements) or Gatehouse's own design notes (docs/…) may be quoted so, and only by a
        // gatehouse profile.
        expect(
          r.source,
          `${r.id}: a sentence without a keyword must be the seed's or one of Gatehouse's own documents (…/*.md)`,
        ).toMatch(/seed|[\w/-]+\.md\b/)
        expect(r.level).not.toBe('MAY')
      } else {
        expect(level, `${r.id}: cut the quote to the clause with one keyword`).toBeDefined()
        if (r.levelNote)
          expect(RANK[r.level], `${r.id}: never stricter`).toBeLessThan(RANK[level ?? 'MAY'])
        else expect(level, quote).toBe(r.level)
      }
    },
  )
})
