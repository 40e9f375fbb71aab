/**
 * Proxy copies for mutants: a mutant is planted in a copy, never in proxy/, and the copy builds
 * into a command that runs with the proxy's own dependencies.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Mutant, mutant, ROOT, StaleMutantError } from '../src/mutants.js'
import { buildProxy, MUTANT_WORK_DIR, prepareMutant } from '../src/proxy-copy.js'

const work = join(MUTANT_WORK_DIR, `test-copy-${process.pid}`)
const fromRepo = (file: string) => readFileSync(join(ROOT, file), 'utf8')

beforeAll(() => mkdirSync(work, { recursive: true }))
afterAll(() => rmSync(work, { recursive: true, force: true }))

describe('prepareMutant', () => {
  it('plants the mutant in a copy of the proxy and leaves proxy/ alone', () => {
    const copy = prepareMutant(mutant('admin-bind-all'), join(work, 'copy'))
    const patched = readFileSync(join(copy.proxyDir, 'src/admin/address.ts'), 'utf8')
    expect(patched).toContain("const host = '0.0.0.0'")
    expect(existsSync(join(copy.proxyDir, 'bin/gatehouse.ts'))).toBe(true)
    expect(fromRepo('proxy/src/admin/address.ts')).not.toContain("const host = '0.0.0.0'")
    copy.remove()
    expect(existsSync(copy.proxyDir)).toBe(false)
  })

  it('removes the copy when a mutant is stale', () => {
    const admin = mutant('admin-bind-all')
    const stale = {
      ...admin,
      edits: [{ ...(admin.edits[0] as Mutant['edits'][0]), find: 'nowhere' }],
    }
    expect(() => prepareMutant(stale, join(work, 'stale'))).toThrow(StaleMutantError)
    expect(existsSync(join(work, 'stale'))).toBe(false)
  })

  it('builds the copy into a command that runs with the proxy’s own dependencies', async () => {
    const copy = prepareMutant(mutant('admin-bind-all'), join(work, 'built'))
    // Packages npm did not hoist into proxy/node_modules (its lru-cache major): the copy sees them.
    const own = join(ROOT, 'proxy/node_modules')
    expect(existsSync(join(copy.proxyDir, 'node_modules'))).toBe(existsSync(own))
    if (existsSync(own)) {
      expect(readdirSync(join(copy.proxyDir, 'node_modules'))).toEqual(readdirSync(own))
    }
    const [node, entry] = await buildProxy(copy.proxyDir)
    expect(entry).toBe(join(copy.proxyDir, 'dist/gatehouse.js'))
    const { version } = JSON.parse(fromRepo('proxy/package.json'))
    const out = execFileSync(node as string, [entry as string, '--version'], { encoding: 'utf8' })
    expect(out.trim()).toContain(version)
    // The planted line is in the build (a chunk: the proxy is imported dynamically).
    const dist = join(copy.proxyDir, 'dist')
    const built = readdirSync(dist, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(dist, f), 'utf8'))
    expect(built.some((code) => code.includes('const host = "0.0.0.0"'))).toBe(true)
    copy.remove()
  })
})
