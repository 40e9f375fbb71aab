import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CATALOGUE } from '@gatehouse/conformance/internal/catalogue'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import {
  applyEdits,
  listMutants,
  type Mutant,
  MutantFormatError,
  mutant,
  occurrences,
  ROOT,
  readMutant,
  StaleMutantError,
} from '../src/mutants.js'
import { MUTANT_WORK_DIR } from '../src/proxy-copy.js'

const work = join(MUTANT_WORK_DIR, `test-${process.pid}`)
const mutants = listMutants()
const fromRepo = (file: string) => readFileSync(join(ROOT, file), 'utf8')

beforeAll(() => mkdirSync(work, { recursive: true }))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** Writes a mutant file into the test's directory and reads it back. */
function writeMutant(name: string, data: unknown): string {
  const file = join(work, `${name}.yaml`)
  writeFileSync(file, typeof data === 'string' ? data : stringify(data))
  return file
}

describe('mutation/mutants', () => {
  it('holds at least 25 mutants, each saying what it breaks and naming catalogue requirements that catch it', () => {
    expect(mutants.length).toBeGreaterThanOrEqual(25)
    const ids = new Set(CATALOGUE.map((r) => r.id))
    for (const m of mutants) {
      expect(m.why.length, m.name).toBeGreaterThan(20)
      for (const id of m.catches) expect(ids.has(id), `${m.name}: ${id}`).toBe(true)
    }
  })

  it('live outside production code: no source file of proxy/src names a fault', () => {
    // mutation/README.md: the faults are mutants planted in copies, never branches in the proxy. As a
    // whole word, so that `default` and zod's `prefault` do not count.
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

  // One test per mutant, so that a proxy change names every mutant it broke (the message says
  // how to fix each: mutation/README.md).
  it.each(mutants.map((m) => [m.name, m] as const))(
    '%s: every find occurs exactly once in the current proxy/ and changes it',
    (_name, m: Mutant) => {
      const edited = applyEdits(m, fromRepo)
      for (const [file, text] of edited) expect(text, `${m.name}: ${file}`).not.toBe(fromRepo(file))
    },
  )
})

describe('readMutant', () => {
  const good = () => ({
    name: 'x',
    why: 'a sentence long enough to say what breaks',
    catches: ['AUTH-013'],
    edits: [{ file: 'proxy/src/admin/address.ts', find: 'a', replace: 'b' }],
  })

  it('reads a mutant whose name is its file name', () => {
    const file = writeMutant('ok', { ...good(), name: 'ok' })
    expect(readMutant(file)).toMatchObject({ name: 'ok', catches: ['AUTH-013'], path: file })
  })

  it('refuses a name that is not the file name', () => {
    const file = writeMutant('renamed', good())
    expect(() => readMutant(file)).toThrow(MutantFormatError)
    expect(() => readMutant(file)).toThrow(/renamed\.yaml: name must be "renamed"/)
  })

  it('refuses a mutant that names no requirement, an unknown field and a path outside proxy/', () => {
    const file = writeMutant('bad', {
      ...good(),
      name: 'bad',
      catches: [],
      edits: [{ file: '../etc/passwd', find: 'a', replace: 'b', line: 3 }],
    })
    const message = (() => {
      try {
        readMutant(file)
      } catch (err) {
        return (err as Error).message
      }
      return ''
    })()
    expect(message).toMatch(/bad\.yaml: /)
    expect(message).toMatch(/catches: /)
    expect(message).toMatch(/edits\.0\.file: a path under proxy\//)
    expect(message).toMatch(/edits\.0: .*line/)
  })

  it('refuses a file that is not YAML', () => {
    const file = writeMutant('broken', 'name: [\n')
    expect(() => readMutant(file)).toThrow(/broken\.yaml: not valid YAML/)
  })
})

describe('applyEdits', () => {
  const admin = mutant('admin-bind-all')
  const file = admin.edits[0]?.file as string

  it('says which mutant, file and edit went stale, how often its find occurs and how to fix it', () => {
    const stale = {
      ...admin,
      edits: [{ ...(admin.edits[0] as Mutant['edits'][0]), find: 'nowhere in the file' }],
    }
    expect(() => applyEdits(stale, fromRepo)).toThrow(StaleMutantError)
    expect(() => applyEdits(stale, fromRepo)).toThrow(
      new RegExp(
        `admin-bind-all\\.yaml: edit 1 of mutant "admin-bind-all": its find text occurs 0 times in ${file}; it must occur exactly once\\.\\n` +
          `The proxy changed under this mutant\\. Fix it:[\\s\\S]*npm run conformance:mutants -- admin-bind-all[\\s\\S]*mutation/README\\.md`,
      ),
    )
  })

  it('refuses a find that occurs more than once, saying to widen it', () => {
    const text = fromRepo(file)
    const twice = text.includes('\n\n') ? '\n\n' : '\n'
    expect(occurrences(text, twice).length).toBeGreaterThan(1)
    const loose = { ...admin, edits: [{ file, find: twice, replace: '' }] }
    expect(() => applyEdits(loose, fromRepo)).toThrow(
      /occurs \d+ times[\s\S]*add a neighbouring line/,
    )
  })

  it('replaces several finds of one file, each located in the original text, and refuses overlaps', () => {
    const m: Mutant = {
      ...admin,
      edits: [
        { file: 'proxy/x.ts', find: 'beta', replace: 'B' },
        { file: 'proxy/x.ts', find: 'alpha', replace: 'alphabeta' },
      ],
    }
    const read = () => 'alpha beta gamma'
    expect(applyEdits(m, read).get('proxy/x.ts')).toBe('alphabeta B gamma')
    const overlapping = {
      ...m,
      edits: [...m.edits, { file: 'proxy/x.ts', find: 'ha be', replace: '' }],
    }
    expect(() => applyEdits(overlapping, read)).toThrow(/edit 3 overlaps an earlier edit/)
  })
})
