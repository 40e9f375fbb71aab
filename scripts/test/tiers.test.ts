/**
 * The test tiers (scripts/vitest/tiers.ts): every glob of a tier names test files, and a unit-tier
 * test — this file is one — can open no socket and start no process.
 */
import { execFile, spawn, spawnSync } from 'node:child_process'
import { createServer } from 'node:http'
import { connect, createServer as createNetServer } from 'node:net'
import { globSync } from 'tinyglobby'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../build-config.js'
import { ALL, E2E, INTEGRATION, LONGEST_FIRST } from '../vitest/tiers.js'
import { UnitTierError } from '../vitest/unit-guard.js'

const files = (globs: readonly string[]) =>
  globSync([...globs], { cwd: ROOT, ignore: ['**/node_modules/**'] }).sort()

describe('the tiers', () => {
  it('has globs that each match a test file', () => {
    const all = new Set(files(ALL))
    for (const glob of [...INTEGRATION, ...E2E]) {
      const matched = files([glob])
      expect(matched, `${glob} matches no test file: remove it from its tier`).not.toEqual([])
      for (const file of matched) expect(all, `${file} is not a test file`).toContain(file)
    }
  })

  it('starts first only test files that exist', () => {
    expect(files(LONGEST_FIRST)).toEqual([...LONGEST_FIRST].sort())
  })
})

describe('the unit tier (scripts/vitest/unit-guard.ts)', () => {
  it('refuses to open a server', () => {
    expect(() => createServer().listen(0, '127.0.0.1')).toThrow(UnitTierError)
    expect(() => createNetServer().listen(0)).toThrow(/integration tier/)
  })

  it('refuses to connect, through node:net or fetch', async () => {
    expect(() => connect(1, '127.0.0.1')).toThrow(UnitTierError)
    const failed = await fetch('http://127.0.0.1:12345/').catch((err: Error) => err.cause)
    expect(failed).toBeInstanceOf(UnitTierError)
  })

  it('refuses to start a process', () => {
    expect(() => spawn('true')).toThrow(UnitTierError)
    expect(() => spawnSync('true')).toThrow(UnitTierError)
    expect(() => execFile('true')).toThrow(UnitTierError)
  })
})
