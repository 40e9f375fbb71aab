/**
 * Curated mutants of the reference proxy: `mutation/mutants/<name>.yaml`, each one wrong behaviour
 * planted by text edits, with the conformance requirements expected to catch it. A mutant is
 * applied to a temporary copy of `proxy/` (src/proxy-copy.ts); the proxy itself carries no fault.
 *
 * ```yaml
 * name: skip-aud-check            # the file name without .yaml
 * why: a token for another audience is accepted (seed: Authentication 2).
 * catches: [AUTH-013]             # requirement IDs; a failure of any other check does not count
 * edits:
 *   - file: proxy/src/auth/verify.ts
 *     find: |                     # must occur exactly once in the file
 *       audience: provider.audiences,
 *     replace: |
 *       audience: undefined,
 * ```
 *
 * An edit is located by its `find` text, not by line numbers or surrounding context, so a change
 * elsewhere in the file does not break it; a change to the text it finds does, and the error says
 * how to fix it ({@link StaleMutantError}).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import { z } from 'zod'

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
/** Where the mutants live. */
export const MUTANTS_DIR = join(ROOT, 'mutation/mutants')
/** The section of mutation/README.md that says how to fix a stale mutant. */
export const FIX_GUIDE = 'mutation/README.md, "Fixing a mutant whose find no longer matches"'

/** One text replacement in one file of the proxy. */
export interface Edit {
  /** Repository-relative path of a file under `proxy/`. */
  file: string
  /** Text that occurs exactly once in the file. */
  find: string
  /** What replaces it. */
  replace: string
}

/** One curated mutant. */
export interface Mutant {
  /** The mutant's name, also its file name without `.yaml`. */
  name: string
  /** Absolute path of the mutant's file. */
  path: string
  /** What the mutant breaks, in words. */
  why: string
  /** Requirement IDs expected to catch it: a failure of any other check does not count. */
  catches: string[]
  /** The text edits that plant it. */
  edits: Edit[]
}

const EditSchema = z.strictObject({
  file: z
    .string()
    .regex(/^proxy\/(?!.*\.\.)[\w./-]+$/, 'a path under proxy/, such as proxy/src/auth/verify.ts'),
  find: z.string().min(1, 'the text to replace, which must occur exactly once in the file'),
  replace: z.string(),
})
const MutantSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case words joined by hyphens'),
  why: z.string().min(20, 'say what goes wrong, citing the clause it breaks'),
  catches: z.array(z.string().regex(/^[A-Z]+-\d+$/, 'a requirement ID such as AUTH-013')).min(1),
  edits: z.array(EditSchema).min(1),
})

/** A mutant file that is not valid YAML, misses a field or does not match its file name. */
export class MutantFormatError extends Error {
  override name = 'MutantFormatError'
}

/** An edit whose `find` text does not occur exactly once in its file: the proxy changed under it. */
export class StaleMutantError extends Error {
  override name = 'StaleMutantError'
}

/**
 * Reads and validates a mutant's file.
 * @throws MutantFormatError naming the file and each wrong field.
 */
export function readMutant(path: string): Mutant {
  const where = relative(ROOT, path)
  let data: unknown
  try {
    data = parse(readFileSync(path, 'utf8'))
  } catch (err) {
    throw new MutantFormatError(`${where}: not valid YAML: ${(err as Error).message}`)
  }
  const parsed = MutantSchema.safeParse(data)
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`)
    throw new MutantFormatError(`${where}: ${issues.join('; ')}`)
  }
  const expected =
    path
      .split('/')
      .at(-1)
      ?.replace(/\.yaml$/, '') ?? ''
  if (parsed.data.name !== expected) {
    throw new MutantFormatError(
      `${where}: name must be "${expected}" (the file name), got "${parsed.data.name}"`,
    )
  }
  return { ...parsed.data, path }
}

/** Every mutant, sorted by name. */
export function listMutants(dir = MUTANTS_DIR): Mutant[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => readMutant(join(dir, f)))
}

/** The mutant `name` (`mutation/mutants/<name>.yaml`). */
export function mutant(name: string): Mutant {
  return readMutant(join(MUTANTS_DIR, `${name}.yaml`))
}

/** Where `needle` starts in `text`, overlapping occurrences included. */
export function occurrences(text: string, needle: string): number[] {
  const at: number[] = []
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) at.push(i)
  return at
}

function staleMessage(mutant: Mutant, index: number, edit: Edit, count: number): string {
  const shown = edit.find.trimEnd().split('\n').slice(0, 6)
  return [
    `${relative(ROOT, mutant.path)}: edit ${index + 1} of mutant "${mutant.name}": its find text ` +
      `occurs ${count} times in ${edit.file}; it must occur exactly once.`,
    count === 0
      ? `The proxy changed under this mutant. Fix it: in ${edit.file}, find the code this edit ` +
        'changes, copy its current text into `find` and put the same text with the fault planted ' +
        'in `replace`.'
      : 'Fix it: add a neighbouring line to `find` (and the same line to `replace`) until it is ' +
        'unique in the file.',
    `Then check: npx vitest run mutation/test/mutants.test.ts && npm run conformance:mutants -- ${mutant.name}`,
    `(${FIX_GUIDE}). The find text starts:`,
    ...shown.map((line) => `  | ${line}`),
  ].join('\n')
}

/**
 * Applies a mutant's edits to file contents. Every `find` is located in the original content
 * (edits of one file must not overlap), then all are replaced.
 * @param read - the current content of a repository-relative path.
 * @returns the new content of each file the mutant edits.
 * @throws StaleMutantError when a `find` does not occur exactly once, saying how to fix it.
 */
export function applyEdits(mutant: Mutant, read: (file: string) => string): Map<string, string> {
  const located = new Map<string, { start: number; end: number; replace: string }[]>()
  mutant.edits.forEach((edit, index) => {
    const text = read(edit.file)
    const at = occurrences(text, edit.find)
    if (at.length !== 1) throw new StaleMutantError(staleMessage(mutant, index, edit, at.length))
    const start = at[0] as number
    const spans = located.get(edit.file) ?? []
    const end = start + edit.find.length
    if (spans.some((s) => start < s.end && s.start < end)) {
      throw new MutantFormatError(
        `${relative(ROOT, mutant.path)}: edit ${index + 1} overlaps an earlier edit of ${edit.file}; merge them into one`,
      )
    }
    spans.push({ start, end, replace: edit.replace })
    located.set(edit.file, spans)
  })
  const result = new Map<string, string>()
  for (const [file, spans] of located) {
    let text = read(file)
    for (const s of [...spans].sort((a, b) => b.start - a.start)) {
      text = text.slice(0, s.start) + s.replace + text.slice(s.end)
    }
    result.set(file, text)
  }
  return result
}
