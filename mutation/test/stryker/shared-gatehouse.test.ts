import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../../src/mutants.js'
import {
  filesStartingSharedGatehouse,
  startsSharedGatehouse,
} from '../../src/stryker/shared-gatehouse.js'

describe('startsSharedGatehouse', () => {
  it('sees a gatehouse started in beforeAll, directly or through functions of the file', () => {
    expect(
      startsSharedGatehouse('beforeAll(async () => {\n  gh = await startTestGatehouse(cfg)\n})\n'),
    ).toBe(true)
    // A default parameter's braces before the body, and one function calling another.
    const viaFunctions = [
      'async function start(o: Partial<Options> = {}): Promise<TestGatehouse> {',
      "  const g = await boot({ ...o, name: ')' })",
      '  return g',
      '}',
      'const boot = async (o: Options) => startGatehouse(o)',
      'beforeAll(async () => {',
      '  gh = await start()',
      '})',
    ].join('\n')
    expect(startsSharedGatehouse(viaFunctions)).toBe(true)
  })

  it('ignores a beforeAll that starts no gatehouse, and a gatehouse started in a test', () => {
    const source = [
      "import { startTestGatehouse } from '../helpers.js'",
      'beforeAll(async () => {',
      '  idp = await startTinyIdp()',
      '})',
      "it('refuses', async () => {",
      '  const gh = await startTestGatehouse(config)',
      '})',
    ].join('\n')
    expect(startsSharedGatehouse(source)).toBe(false)
  })
})

describe('filesStartingSharedGatehouse', () => {
  it('lists test files of a directory by that rule, each of which starts a gatehouse', () => {
    const files = filesStartingSharedGatehouse(ROOT, 'proxy/test/auth')
    expect(files.length).toBeGreaterThan(0)
    for (const file of files) {
      expect(file).toMatch(/^proxy\/test\/auth\/.+\.test\.ts$/)
      expect(readFileSync(join(ROOT, file), 'utf8')).toMatch(/start(Test)?Gatehouse\(/)
    }
  })
})
