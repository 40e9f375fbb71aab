/**
 * The peer-matrix table in README.md and conformance/README.md is the one the pins, the matrix
 * and the baselines give (`npm run peers:table` writes it).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../src/paths.js'
import {
  baselineEntries,
  END,
  peerTable,
  pinnedVersion,
  START,
  TABLE_FILES,
  withTable,
} from '../src/peer-table.js'

describe('peerTable', () => {
  it('names each client with the exact version peers/package.json pins', () => {
    const table = peerTable('README.md')
    expect(table).toContain(`\`mcp-remote\` ${pinnedVersion('mcp-remote')}`)
    expect(table).toContain(
      `\`@modelcontextprotocol/inspector\` ${pinnedVersion('@modelcontextprotocol/inspector')}`,
    )
    expect(table).toContain('](peers/baseline/mcp-remote.txt)')
    expect(peerTable('conformance/README.md')).toContain('](../peers/baseline/mcp-remote.txt)')
  })

  it('counts the expected failures of a baseline by level', () => {
    const entries = baselineEntries('a/CLI-X-001 # MUST x\n# comment\nb/CLI-Y-001   # SHOULD y\n')
    expect(entries).toEqual([
      { entry: 'a/CLI-X-001', level: 'MUST' },
      { entry: 'b/CLI-Y-001', level: 'SHOULD' },
    ])
  })

  it('refuses a range pin', () => {
    expect(() => pinnedVersion('express')).toThrow(/exact version/)
  })
})

describe.each(TABLE_FILES)('%s', (file) => {
  it('carries the generated peer table (npm run peers:table)', () => {
    const text = readFileSync(join(ROOT, file), 'utf8')
    expect(text).toContain(START)
    expect(text).toContain(END)
    expect(withTable(text, peerTable(file), file), 'run npm run peers:table').toBe(text)
  })
})
