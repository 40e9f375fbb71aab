/**
 * The suite's seeded faults stay usable: every patch of conformance/mutants/ has a complete header
 * and still applies to the current proxy/, so a proxy change that breaks one fails here, naming
 * the patch, instead of as a mutant error in `npm run conformance:mutants`.
 */
import { execFileSync } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CATALOGUE } from '../src/catalogue/index.js'
import {
  applyPatch,
  buildProxy,
  listMutants,
  MUTANT_WORK_DIR,
  MutantHeaderError,
  mutant,
  PROXY_PARTS,
  prepareMutant,
  readMutant,
} from '../src/mutants.js'
import { ROOT } from '../src/stack.js'

const work = join(MUTANT_WORK_DIR, `test-${process.pid}`)
const mutants = listMutants()

beforeAll(() => {
  // One pristine copy to check every patch against (--check writes nothing).
  mkdirSync(join(work, 'pristine/proxy'), { recursive: true })
  for (const part of PROXY_PARTS) {
    cpSync(join(ROOT, 'proxy', part), join(work, 'pristine/proxy', part), { recursive: true })
  }
})
afterAll(() => rmSync(work, { recursive: true, force: true }))

describe('conformance/mutants', () => {
  it('holds at least 25 faults, each naming what it breaks and catalogue requirements that catch it', () => {
    expect(mutants.length).toBeGreaterThanOrEqual(25)
    const ids = new Set(CATALOGUE.map((r) => r.id))
    for (const m of mutants) {
      expect(m.breaks.length, m.name).toBeGreaterThan(20)
      for (const id of m.caughtBy) expect(ids.has(id), `${m.name}: ${id}`).toBe(true)
    }
  })

  it('live outside production code: no source file of proxy/src names a fault', () => {
    // Issue #11: the faults are the suite's patches, never branches in the proxy. As a whole
    // word, so that `default` and zod's `prefault` do not count.
    const src = join(ROOT, 'proxy/src')
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.ts'),
    )
    expect(files.length).toBeGreaterThan(50)
    const hits = files.flatMap((f) =>
      readFileSync(join(src, f), 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          /\bfaults?\b/i.test(line) ? [`proxy/src/${f}:${i + 1}: ${line}`] : [],
        ),
    )
    expect(hits).toEqual([])
  })

  it.each(mutants.map((m) => [m.name, m.file]))(
    '%s applies cleanly to the current proxy/',
    async (_name, file) => {
      await expect(applyPatch(file, join(work, 'pristine'), { check: true })).resolves.toBe(
        undefined,
      )
    },
  )
})

describe('readMutant', () => {
  it('refuses a header whose Fault line does not match the file name', () => {
    const file = join(work, 'renamed.patch')
    const text = readFileSync(mutant('admin-bind-all').file, 'utf8')
    writeFileSync(file, text)
    expect(() => readMutant(file)).toThrow(MutantHeaderError)
    expect(() => readMutant(file)).toThrow(/"Fault: renamed"/)
  })

  it('refuses a patch that names no requirement to catch it', () => {
    const file = join(work, 'admin-bind-all.patch')
    const text = readFileSync(mutant('admin-bind-all').file, 'utf8')
    writeFileSync(file, text.replace(/^Caught-by:.*$/m, 'Caught-by:'))
    expect(() => readMutant(file)).toThrow(/Caught-by/)
  })
})

describe('applyPatch', () => {
  it('names the patch and how to regenerate it when proxy/ changed under it', async () => {
    const file = join(work, 'stale.patch')
    const text = readFileSync(mutant('admin-bind-all').file, 'utf8')
    writeFileSync(file, text.replace('const host = await resolveHost', 'const host = await other'))
    await expect(applyPatch(file, join(work, 'pristine'), { check: true })).rejects.toThrow(
      /stale\.patch does not apply to proxy\/ any more[\s\S]*Regenerate it/,
    )
  })
})

describe('prepareMutant', () => {
  it('patches a copy of the proxy and leaves proxy/ alone', async () => {
    const copy = await prepareMutant(mutant('admin-bind-all'), join(work, 'copy'))
    const patched = readFileSync(join(copy.proxyDir, 'src/admin/address.ts'), 'utf8')
    expect(patched).toContain("const host = '0.0.0.0'")
    expect(existsSync(join(copy.proxyDir, 'bin/gatehouse.ts'))).toBe(true)
    expect(readFileSync(join(ROOT, 'proxy/src/admin/address.ts'), 'utf8')).not.toContain(
      "const host = '0.0.0.0'",
    )
    copy.remove()
    expect(existsSync(copy.proxyDir)).toBe(false)
  })

  it('builds the copy into a command that runs with the proxy’s own dependencies', async () => {
    const copy = await prepareMutant(mutant('admin-bind-all'), join(work, 'built'))
    // Packages npm did not hoist into proxy/node_modules (its lru-cache major): the copy sees them.
    const own = join(ROOT, 'proxy/node_modules')
    expect(existsSync(join(copy.proxyDir, 'node_modules'))).toBe(existsSync(own))
    if (existsSync(own)) {
      expect(readdirSync(join(copy.proxyDir, 'node_modules'))).toEqual(readdirSync(own))
    }
    const [node, entry] = await buildProxy(copy.proxyDir)
    expect(entry).toBe(join(copy.proxyDir, 'dist/gatehouse.js'))
    const { version } = JSON.parse(readFileSync(join(ROOT, 'proxy/package.json'), 'utf8'))
    const out = execFileSync(node as string, [entry as string, '--version'], { encoding: 'utf8' })
    expect(out.trim()).toContain(version)
    // The patched line is in the build (a chunk: the proxy is imported dynamically).
    const dist = join(copy.proxyDir, 'dist')
    const built = readdirSync(dist, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(dist, f), 'utf8'))
    expect(built.some((code) => code.includes('const host = "0.0.0.0"'))).toBe(true)
    copy.remove()
  })
})
