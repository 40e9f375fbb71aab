/**
 * Which unit test files start a whole gatehouse in a `beforeAll` hook, for
 * `conformance:stryker --without-shared-gatehouse`. Code that runs in a `beforeAll` is covered by
 * no test in particular for Stryker, so every mutant it reaches runs every included test file;
 * with a gatehouse started there that is most of the proxy, and a run takes hours instead of
 * minutes. Leaving those files out can only lose kills: the score is a lower bound.
 *
 * The rule reads the source: a file qualifies when the text of one of its top-level
 * `beforeAll(…)` calls, or of a function of the same file that it calls (followed transitively),
 * calls `startTestGatehouse(` or `startGatehouse(`.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

/** Calls that start a whole gatehouse. */
const STARTS_GATEHOUSE = /\b(startTestGatehouse|startGatehouse)\s*\(/

/** The text from `open` (an opening bracket) to its matching closing bracket, strings ignored. */
function balanced(source: string, open: number): string {
  const pairs: Record<string, string> = { '(': ')', '{': '}', '[': ']' }
  const stack: string[] = []
  let quote: string | undefined
  for (let i = open; i < source.length; i++) {
    const c = source[i] as string
    if (quote) {
      if (c === '\\') i++
      else if (c === quote) quote = undefined
      continue
    }
    if (c === "'" || c === '"' || c === '`') quote = c
    else if (pairs[c]) stack.push(pairs[c] as string)
    else if (c === stack.at(-1)) {
      stack.pop()
      if (stack.length === 0) return source.slice(open, i + 1)
    }
  }
  return source.slice(open)
}

/** The bodies of the file's named functions (`function f(…) {…}`, `const f = (async) (…) => …`). */
function functionsOf(source: string): Map<string, string> {
  const found = new Map<string, string>()
  const declared = /(?:function\s+(\w+)\s*\(|const\s+(\w+)\s*=\s*(?:async\s*)?\()/g
  for (let m = declared.exec(source); m; m = declared.exec(source)) {
    const name = (m[1] ?? m[2]) as string
    const params = m.index + m[0].length - 1
    const afterParams = params + balanced(source, params).length
    // A block body, or an arrow's expression body (to the end of its line).
    const body = /^[^{\n]*?=>\s*(?=[^{\s])/.exec(source.slice(afterParams))
    if (body) {
      const start = afterParams + body[0].length
      const end = source.indexOf('\n', start)
      found.set(name, source.slice(start, end === -1 ? undefined : end))
      continue
    }
    const brace = source.indexOf('{', afterParams)
    if (brace !== -1) found.set(name, balanced(source, brace))
  }
  return found
}

/** Whether a test file's source starts a gatehouse in a `beforeAll` hook. */
export function startsSharedGatehouse(source: string): boolean {
  const functions = functionsOf(source)
  const hooks = [...source.matchAll(/^beforeAll\(/gm)].map((m) =>
    balanced(source, (m.index as number) + 'beforeAll'.length),
  )
  const seen = new Set<string>()
  const reaches = (text: string): boolean => {
    if (STARTS_GATEHOUSE.test(text)) return true
    for (const [, name] of text.matchAll(/\b(\w+)\s*\(/g)) {
      const body = functions.get(name as string)
      if (body === undefined || seen.has(name as string)) continue
      seen.add(name as string)
      if (reaches(body)) return true
    }
    return false
  }
  return hooks.some(reaches)
}

/** The repository-relative paths of the `*.test.ts` files under `dir` that start a gatehouse in
 * `beforeAll` ({@link startsSharedGatehouse}). */
export function filesStartingSharedGatehouse(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => join(root, dir, f))
    .filter((file) => startsSharedGatehouse(readFileSync(file, 'utf8')))
    .map((file) => relative(root, file))
    .sort()
}
