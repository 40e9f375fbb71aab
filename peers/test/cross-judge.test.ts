/**
 * The cross-judge's wiring (peers/src/cross-judge.ts): the official suite runs on Node 22 and its
 * report is read — once, on one client and one scenario, to stay cheap (the full comparison is
 * `npm run conformance:cross-judge`, on demand) — and the generated table's rows are kept by
 * client.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  END,
  listed,
  mergeRows,
  officialVerdict,
  regionOf,
  START,
  tableHeader,
  withRegion,
} from '../src/cross-judge.js'
import { ROOT } from '../src/paths.js'

const SDK = 'npx tsx conformance/src/client/examples/sdk-client.ts'

describe('officialVerdict', () => {
  it('runs the official suite on Node 22 and reads its report: the SDK client passes auth/metadata-default', async () => {
    const v = await officialVerdict(SDK, { scenario: 'auth/metadata-default' })
    expect(v.scenarios, v.output).toBe(1)
    expect(listed(v.failures), v.output).toBe('none')
  }, 120_000)

  it('reports the checks a client fails: a command that exits at once fails the expected checks', async () => {
    const v = await officialVerdict('node -e "process.exit(1)"', {
      scenario: 'auth/metadata-default',
    })
    expect(v.failures.size, v.output).toBeGreaterThan(0)
  }, 120_000)
})

describe('the generated table', () => {
  it('lists failures by id with their scenario counts', () => {
    expect(listed(new Map())).toBe('none')
    expect(
      listed(
        new Map([
          ['b', 1],
          ['a', 3],
        ]),
      ),
    ).toBe('a ×3, b')
  })

  it('replaces a client’s row and keeps the others (a run with --only)', () => {
    const header = tableHeader('0.1.16')
    const region = `\n${header}\n| \`a\` | x | y |\n| \`b\` | x | y |\n`
    expect(mergeRows(region, ['| `b` | 1 | 2 |', '| `c` | 3 | 4 |'], header)).toBe(
      `${header}\n| \`a\` | x | y |\n| \`b\` | 1 | 2 |\n| \`c\` | 3 | 4 |`,
    )
  })

  it('docs/judges.md has the region, and writing its own content back changes nothing', () => {
    const text = readFileSync(join(ROOT, 'docs/judges.md'), 'utf8')
    expect(text).toContain(START)
    expect(text).toContain(END)
    expect(withRegion(text, regionOf(text).trim())).toBe(text)
  })
})
