/**
 * Which unit-tier test files `npm run test:lts` runs again on the other Node.js LTS line
 * (ci/test-lts.ts). A unit test runs in-process with no socket and no process
 * (scripts/vitest/tiers.ts), so what it checks is the repository's own logic, the same on every
 * line — unless the test, or the source module it is the test of, calls an API whose behaviour
 * is the runtime's: cryptography (`node:crypto`, jose, Web Crypto), HTTP (`node:http`, undici,
 * `fetch`, `Request`/`Response`), streams (`node:stream`, Web streams), compression, worker
 * threads, `node:sqlite`, `node:cluster`, TLS, sockets, DNS, timers, `vm`, async hooks and
 * diagnostics channels, `structuredClone`. Those files run on every line; the others once, on the
 * Node `npm run test:unit` chose. The integration tier (real sockets and processes) runs on every
 * line whole.
 *
 * The rule reads the test file, its source (`<ws>/test/<path>[.<aspect>].test.ts` is the test
 * of `<ws>/src/<path>.ts`, CONTRIBUTING "Tests") and the repository modules that source imports:
 * a module that names one of these APIs — imported, required or loaded late — makes the test run
 * twice.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join, posix } from 'node:path'
import { globSync } from 'tinyglobby'
import { ALL, E2E, INTEGRATION } from '../scripts/vitest/tiers.js'

/** A module specifier, in quotes, of a runtime-sensitive built-in or library. */
const RUNTIME_MODULE =
  /['"](?:node:(?:crypto|worker_threads|sqlite|stream(?:\/promises|\/web)?|zlib|https?|http2|tls|net|cluster|dns|dgram|timers(?:\/promises)?|vm|async_hooks|diagnostics_channel|v8)|jose|undici)['"]/
/** A runtime-sensitive global: fetch and its classes, Web streams, Web Crypto, structuredClone. */
const RUNTIME_GLOBAL =
  /\bfetch\(|\bnew (?:Response|Request|ReadableStream|WritableStream|TransformStream|Worker)\b|\bcrypto\.(?:subtle|randomUUID|getRandomValues)\b|\bstructuredClone\(/

/** Whether `source` (a module's text) names a runtime-sensitive API. */
export function namesRuntimeApi(source: string): boolean {
  return RUNTIME_MODULE.test(source) || RUNTIME_GLOBAL.test(source)
}

/**
 * The source files a test file is the test of: `proxy/test/auth/verify.keys.test.ts` →
 * `proxy/src/auth/verify.ts` (or `.tsx`, or `verify/index.ts`), those that exist under `root`.
 */
export function sourcesOf(root: string, testFile: string): string[] {
  const m = /^([^/]+)\/test\/((?:[^/]+\/)*)([^/.]+)[^/]*\.test\.tsx?$/.exec(testFile)
  if (!m) return []
  const [, workspace, dir, name] = m
  const base = `${workspace}/src/${dir}${name}`
  return [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`].filter((p) => existsSync(join(root, p)))
}

/** The unit-tier test files under `root`, repository-relative and sorted. */
export function unitTestFiles(root: string): string[] {
  const elsewhere = new Set(globSync([...INTEGRATION, ...E2E], { cwd: root }))
  return globSync(ALL, { cwd: root })
    .filter((f) => !elsewhere.has(f))
    .sort()
}

/** The repository modules `file` imports by relative path (`./x.js` → `x.ts`), that exist. */
export function localImportsOf(root: string, file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8')
  const out: string[] = []
  for (const m of text.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)) {
    const base = posix.join(posix.dirname(file), m[1] as string)
    const found = [`${base}.ts`, `${base}.tsx`].find((p) => existsSync(join(root, p)))
    if (found) out.push(found)
  }
  return out
}

/**
 * Unit-tier test files that check nothing of the runtime's: run once, not on every LTS line. A
 * file runs on every line when it, its source, or a module its source imports names a
 * runtime-sensitive API (one level: `store/sqlite.ts` loads `node:sqlite` through a module of its
 * own).
 */
export function runtimeFreeUnitFiles(root: string): string[] {
  return unitTestFiles(root).filter((f) => {
    const sources = sourcesOf(root, f)
    const modules = [f, ...sources, ...sources.flatMap((s) => localImportsOf(root, s))]
    return !modules.some((p) => namesRuntimeApi(readFileSync(join(root, p), 'utf8')))
  })
}
