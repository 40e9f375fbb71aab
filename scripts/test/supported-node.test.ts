/**
 * scripts/supported-node.mjs: which Node runs `npm start`, `npm run test:unit` and the installed
 * commands, the one line it says, and node:sqlite's ExperimentalWarning kept quiet.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { chooseNode, quietNodeOptions } from '../supported-node.mjs'

const launcher = fileURLToPath(new URL('../supported-node.mjs', import.meta.url))

describe('chooseNode', () => {
  it('keeps a supported Node, saying nothing', () => {
    expect(chooseNode('22.23.3', '/x/node')).toEqual({ path: process.execPath, note: undefined })
    expect(chooseNode('24.1.0', '')).toEqual({ path: process.execPath, note: undefined })
  })

  it("runs an older Node's work on the bundled Node 22, in one line", () => {
    const chosen = chooseNode('20.20.2', '/repo/node_modules/node-lts-22/bin/node')
    expect(chosen.path).toBe('/repo/node_modules/node-lts-22/bin/node')
    expect(chosen.note).toBe(
      "Node 20.20.2 is past its end of life: running on the repository's Node 22 (node_modules/node-lts-22)",
    )
  })

  it('says what to do where no Node 22 package is installed', () => {
    const chosen = chooseNode('20.20.2', '')
    expect(chosen.path).toBe(process.execPath)
    expect(chosen.note).toMatch(/no Node 22 package is installed here .*install Node 22 or 24$/)
  })
})

describe('quietNodeOptions', () => {
  it('adds --disable-warning=ExperimentalWarning once, keeping the options given', () => {
    expect(quietNodeOptions('')).toBe('--disable-warning=ExperimentalWarning')
    expect(quietNodeOptions('--max-old-space-size=512')).toBe(
      '--max-old-space-size=512 --disable-warning=ExperimentalWarning',
    )
    expect(quietNodeOptions('--disable-warning=ExperimentalWarning')).toBe(
      '--disable-warning=ExperimentalWarning',
    )
  })
})

describe('node scripts/supported-node.mjs <script>', () => {
  it('runs the script on Node >= 22 with node:sqlite and without its ExperimentalWarning, in the children too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'supported-node-'))
    const script = join(dir, 'probe.mjs')
    writeFileSync(
      script,
      [
        "import { DatabaseSync } from 'node:sqlite'",
        "import { spawnSync } from 'node:child_process'",
        "new DatabaseSync(':memory:').close()",
        "const child = spawnSync(process.execPath, ['-e', \"require('node:sqlite')\"], { encoding: 'utf8' })",
        'process.stderr.write(child.stderr)',
        "console.log(process.versions.node, process.argv.slice(2).join(' '))",
      ].join('\n'),
    )
    const r = spawnSync(process.execPath, [launcher, script, 'a', 'b'], { encoding: 'utf8' })
    expect(r.status).toBe(0)
    const [version, args] = r.stdout.trim().split(' ', 2)
    expect(Number(version?.split('.')[0])).toBeGreaterThanOrEqual(22)
    expect(args).toBe('a')
    expect(r.stdout.trim()).toMatch(/ a b$/)
    expect(r.stderr).not.toContain('ExperimentalWarning')
    // At most the one line about the runtime.
    expect(r.stderr.split('\n').filter(Boolean).length).toBeLessThanOrEqual(1)
  })

  it('passes the exit status on', () => {
    const dir = mkdtempSync(join(tmpdir(), 'supported-node-'))
    const script = join(dir, 'exit.mjs')
    writeFileSync(script, 'process.exit(7)')
    expect(spawnSync(process.execPath, [launcher, script]).status).toBe(7)
  })
})
