/**
 * Tests mirror the source (CONTRIBUTING, "Tests"): the tests of `proxy/src/<path>.ts` are
 * `proxy/test/<path>.test.ts`, or `proxy/test/<path>.<aspect>.test.ts` when they outgrow one file
 * (`auth/verify.failures.test.ts`). Tests through the whole proxy live in `proxy/test/e2e/`, load
 * and fault tests in `proxy/test/reliability/`; those two folders are exempt.
 *
 * Source files that have no test yet are listed in `proxy/test/untested-sources.txt`. The list may
 * only shrink: a new source file without a test fails here, and so does a listed file that got one
 * (take it off the list). The other workspaces with a `src/` follow the same rule (below).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
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

/**
 * The other workspaces with a `src/` keep the same rule: the tests of `<ws>/src/<path>.ts(x)` are
 * `<ws>/test/<path>.test.ts(x)` or `<ws>/test/<path>.<aspect>.test.ts(x)`. A source file without a
 * test is listed in `<ws>/test/untested-sources.txt` (only shrinks); a test of the workspace as a
 * whole (its command, its package, a whole flow) is listed in {@link WHOLE_WORKSPACE_TESTS}.
 * bench/ has no `src/`: its tests name its root files.
 */
const WORKSPACES = [
  'redact',
  'support',
  'mock-idp',
  'mock-mcp',
  'conformance',
  'gwctl',
  'peers',
  'mutation',
]

/** Tests of a workspace as a whole, by workspace (`<ws>/test/<name>.test.ts(x)`, without the suffix). */
const WHOLE_WORKSPACE_TESTS: Readonly<Record<string, readonly string[]>> = {
  support: ['commands'],
  'mock-idp': ['idp', 'opaque-tokens', 'start'],
  'mock-mcp': ['backend'],
  conformance: [
    'bin/conformance',
    'browser',
    'ci-recipes',
    'client/clients',
    'client/judge',
    'flow',
    'network-faults',
    'pack',
  ],
  gwctl: ['commands/policy'],
}

/**
 * A workspace's tests that name no source file (paths without `.test.ts(x)`), and its source
 * files that no test names.
 */
function workspaceMirror(ws: string): { orphans: string[]; untested: string[] } {
  const under = (dir: string, suffix: RegExp) =>
    existsSync(join(root, ws, dir))
      ? filesUnder(join(root, ws, dir), '')
          .filter((f) => suffix.test(f) && !f.split('/').includes('node_modules'))
          .sort()
      : []
  const files = under('src', /\.tsx?$/).filter(
    (f) => !f.endsWith('.d.ts') && !/\.test\.tsx?$/.test(f),
  )
  const wsSources = files.map((f) => f.replace(/\.tsx?$/, ''))
  const wsTests = under('test', /\.test\.tsx?$/).map((f) => f.replace(/\.test\.tsx?$/, ''))
  const subject = (t: string): string | undefined => {
    if (wsSources.includes(t)) return t
    const dot = t.lastIndexOf('.')
    const base = dot > t.lastIndexOf('/') ? t.slice(0, dot) : undefined
    return base !== undefined && wsSources.includes(base) ? base : undefined
  }
  const tested = new Set(wsTests.map(subject))
  return {
    orphans: wsTests.filter((t) => subject(t) === undefined),
    untested: files.filter((f) => !tested.has(f.replace(/\.tsx?$/, ''))),
  }
}

/** The lines of a workspace's `test/untested-sources.txt` (none when it has no such file). */
function untestedList(ws: string): string[] {
  const file = join(root, ws, 'test/untested-sources.txt')
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
}

describe('every workspace tests mirror its src/', () => {
  it.each(WORKSPACES)('%s: every test names a source file or is a whole-workspace test', (ws) => {
    expect(
      workspaceMirror(ws).orphans.filter((t) => !(WHOLE_WORKSPACE_TESTS[ws] ?? []).includes(t)),
      `name each test after the file of ${ws}/src it tests, or list it in WHOLE_WORKSPACE_TESTS`,
    ).toEqual([])
    expect(
      (WHOLE_WORKSPACE_TESTS[ws] ?? []).filter((t) => !workspaceMirror(ws).orphans.includes(t)),
      'these name a source file now (or are gone): take them off WHOLE_WORKSPACE_TESTS',
    ).toEqual([])
  })

  it.each(WORKSPACES)(
    '%s: every source file has a test, but those on its list, which only shrinks',
    (ws) => {
      const { untested } = workspaceMirror(ws)
      const allowed = untestedList(ws)
      expect(
        untested.filter((f) => !allowed.includes(f)),
        `new source files of ${ws}/src without a test: add ${ws}/test/<path>.test.ts`,
      ).toEqual([])
      expect(
        allowed.filter((f) => !untested.includes(f)),
        `these have a test (or are gone) now: take them off ${ws}/test/untested-sources.txt`,
      ).toEqual([])
    },
  )
})
