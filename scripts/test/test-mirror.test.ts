/**
 * Tests mirror the source (CONTRIBUTING, "Tests"): the tests of `proxy/src/<path>.ts` are
 * `proxy/test/<path>.test.ts`, or `proxy/test/<path>.<aspect>.test.ts` when they outgrow one file
 * (`auth/verify.failures.test.ts`). Tests through the whole proxy live in `proxy/test/e2e/`, load
 * and fault tests in `proxy/test/reliability/`; those two folders are exempt.
 *
 * Source files that have no test yet are listed in `proxy/test/untested-sources.txt`. The list may
 * only shrink: a new source file without a test fails here, and so does a listed file that got one
 * (take it off the list).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../', import.meta.url))
const src = join(root, 'proxy/src')
const test = join(root, 'proxy/test')
const ALLOW_LIST = join(test, 'untested-sources.txt')
/** Folders of tests that exercise the whole proxy rather than one module. */
const EXEMPT = ['e2e/', 'reliability/']

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith(suffix))
    .map((f) => relative(dir, join(dir, f)).split('\\').join('/'))
    .sort()
}

const sources = filesUnder(src, '.ts')
  .filter((f) => !f.endsWith('.d.ts'))
  .map((f) => f.slice(0, -'.ts'.length))
const tests = filesUnder(test, '.test.ts')
  .filter((f) => !EXEMPT.some((dir) => f.startsWith(dir)))
  .map((f) => f.slice(0, -'.test.ts'.length))

/** The source a test file is for: `auth/verify.failures` → `auth/verify`. */
function sourceOf(testName: string): string | undefined {
  if (sources.includes(testName)) return testName
  const dot = testName.lastIndexOf('.')
  const base = dot > testName.lastIndexOf('/') ? testName.slice(0, dot) : undefined
  return base !== undefined && sources.includes(base) ? base : undefined
}

describe('proxy tests mirror proxy/src', () => {
  it('names a source file in every test file outside e2e/ and reliability/', () => {
    const orphans = tests.filter((t) => sourceOf(t) === undefined).map((t) => `${t}.test.ts`)
    expect(
      orphans,
      'name each test after the file it tests (proxy/test/<path>.test.ts or <path>.<aspect>.test.ts), or move a whole-proxy test to proxy/test/e2e/',
    ).toEqual([])
  })

  it('has a test for every source file but those on the allow-list, which only shrinks', () => {
    const tested = new Set(tests.map(sourceOf))
    const untested = sources.filter((s) => !tested.has(s)).map((s) => `${s}.ts`)
    const allowed = readFileSync(ALLOW_LIST, 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'))
    expect(
      untested.filter((f) => !allowed.includes(f)),
      'new source files without a test: add proxy/test/<path>.test.ts',
    ).toEqual([])
    expect(
      allowed.filter((f) => !untested.includes(f)),
      'these have a test (or are gone) now: remove them from proxy/test/untested-sources.txt',
    ).toEqual([])
  })
})
