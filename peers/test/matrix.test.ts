/**
 * The real-peer matrix (docs/peers.md): each pinned MCP client judged by `conformance client` against
 * its expected-verdicts baseline. A new failure or a stale expectation fails here; every
 * expected failure names the clause the client breaks.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { baselinePath, judgePeer, MATRIX, unexpected } from '../src/matrix.js'

/** A baseline line's entry and its comment. */
function entries(text: string): Array<{ entry: string; comment: string }> {
  return text
    .split('\n')
    .map((line) => ({
      entry: line.replace(/#.*/, '').trim(),
      comment: line.includes('#') ? line.slice(line.indexOf('#') + 1).trim() : '',
    }))
    .filter((e) => e.entry !== '')
}

describe('the real-peer baselines', () => {
  it.each(MATRIX.map((p) => [p.name, p] as const))(
    '%s: every expected failure is scenario/ID and names its level and clause',
    (_name, peer) => {
      for (const { entry, comment } of entries(readFileSync(baselinePath(peer), 'utf8'))) {
        expect(entry).toMatch(/^[a-z-]+\/CLI-[A-Z]+-\d{3}$/)
        expect(comment).toMatch(/^(MUST|SHOULD) /)
        expect(comment).toMatch(/(RFC \d+|MCP [^§]*§|OAuth 2\.1 §)/)
      }
    },
  )
})

describe('the real-peer matrix (conformance client mode)', () => {
  it.each(MATRIX.map((p) => [p.name, p] as const))(
    '%s: every verdict is the one its baseline expects',
    async (_name, peer) => {
      const verdict = await judgePeer(peer)
      expect(verdict.results.length, verdict.output).toBeGreaterThan(0)
      expect(unexpected(verdict), verdict.output.slice(-2000)).toEqual({
        newFailures: [],
        stale: [],
      })
      expect(verdict.exitCode, verdict.output.slice(-2000)).toBe(0)
    },
    600_000,
  )
})
