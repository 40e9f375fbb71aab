/**
 * Seeded faults owned by the suite: `conformance/mutants/<fault>.patch`, each a unified diff
 * against the repository's `proxy/` with a header naming the fault, what it breaks and the
 * requirement IDs expected to catch it. A mutant is a temporary copy of the proxy with one patch
 * applied; the proxy itself carries no fault.
 *
 * Header (the lines before the first `diff --git`, which `git apply` ignores):
 *
 * ```text
 * Fault: skip-aud-check
 * Breaks: a token for another audience is accepted (seed: Authentication 2).
 * Caught-by: AUTH-013
 * ```
 */
import { execFile } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs'
import { join, relative } from 'node:path'
import { promisify } from 'node:util'
import { build } from 'esbuild'
import { BUNDLES, buildOptions } from '../../scripts/build-config.js'
import { ROOT } from './stack.js'

const run = promisify(execFile)

/** Where the patches live. */
export const MUTANTS_DIR = join(ROOT, 'conformance/mutants')
/** Parent of the temporary proxy copies: git-ignored, under the repository so that Node still
 * resolves the proxy's dependencies from the repository's node_modules. */
export const MUTANT_WORK_DIR = join(ROOT, '.tmp/mutants')

/** What a proxy copy needs to run: its entry, its sources and its package.json (the version). */
export const PROXY_PARTS: readonly string[] = ['bin', 'src', 'package.json']

/** One seeded fault. */
export interface Mutant {
  /** The fault's name, also the patch's file name without `.patch`. */
  name: string
  /** Absolute path of the patch. */
  file: string
  /** What the fault breaks, in words. */
  breaks: string
  /** Requirement IDs expected to catch it: a failure of any other check does not count. */
  caughtBy: string[]
}

/** A patch file whose header is incomplete or does not match its file name. */
export class MutantHeaderError extends Error {}

/**
 * Reads a patch's header.
 * @throws MutantHeaderError naming the file and the missing or wrong field.
 */
export function readMutant(file: string): Mutant {
  const text = readFileSync(file, 'utf8')
  const headerEnd = text.indexOf('\ndiff --git ')
  const header = headerEnd === -1 ? '' : text.slice(0, headerEnd)
  const field = (name: string) =>
    new RegExp(`^${name}:[ \\t]*(.+)$`, 'm').exec(header)?.[1]?.trim() ?? ''
  const expectedName =
    file
      .split('/')
      .at(-1)
      ?.replace(/\.patch$/, '') ?? ''
  const name = field('Fault')
  const breaks = field('Breaks')
  const caughtBy = field('Caught-by')
    .split(/[\s,]+/)
    .filter(Boolean)
  const where = relative(ROOT, file)
  if (headerEnd === -1) throw new MutantHeaderError(`${where}: no "diff --git" section`)
  if (name !== expectedName) {
    throw new MutantHeaderError(
      `${where}: the header must start with "Fault: ${expectedName}" (the file name), got "${name}"`,
    )
  }
  if (!breaks) throw new MutantHeaderError(`${where}: add a "Breaks: <what goes wrong>" line`)
  if (caughtBy.length === 0) {
    throw new MutantHeaderError(
      `${where}: add a "Caught-by: <requirement IDs>" line naming the checks that must fail`,
    )
  }
  return { name, file, breaks, caughtBy }
}

/** Every mutant, by name. */
export function listMutants(dir = MUTANTS_DIR): Mutant[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.patch'))
    .sort()
    .map((f) => readMutant(join(dir, f)))
}

/** The mutant `name` (`conformance/mutants/<name>.patch`). */
export function mutant(name: string): Mutant {
  return readMutant(join(MUTANTS_DIR, `${name}.patch`))
}

/** A mutant's proxy copy. */
export interface MutantCopy {
  /** The copy's `proxy/` directory (start `bin/gatehouse.ts` in it, or its build: {@link buildProxy}). */
  proxyDir: string
  /** Removes the copy. */
  remove(): void
}

/**
 * Builds a proxy copy into its `dist/` as `npm run build` builds `proxy/dist`: one esbuild bundle,
 * npm packages external. The build starts in about half the time tsx takes to start the sources,
 * and it is what the installed command runs.
 * @returns The command line that starts it, before `-f <config>`.
 */
export async function buildProxy(proxyDir: string): Promise<string[]> {
  const proxy = BUNDLES.find((b) => b.workspace === 'proxy')
  if (!proxy) throw new Error('scripts/build-config.ts has no proxy bundle')
  const outdir = join(proxyDir, 'dist')
  await build({ ...buildOptions(proxy), entryPoints: [join(proxyDir, proxy.entry)], outdir })
  return [process.execPath, join(outdir, 'gatehouse.js')]
}

/**
 * Copies the repository's proxy (bin, src, package.json) to `<workDir>/proxy`, replacing whatever
 * was in `workDir`.
 */
export function copyProxy(workDir: string): MutantCopy {
  rmSync(workDir, { recursive: true, force: true })
  const proxyDir = join(workDir, 'proxy')
  mkdirSync(proxyDir, { recursive: true })
  for (const part of PROXY_PARTS) {
    cpSync(join(ROOT, 'proxy', part), join(proxyDir, part), { recursive: true })
  }
  // The proxy's own packages (those npm did not hoist, such as its lru-cache major) resolve from
  // the copy as from proxy/; the others from the repository's node_modules above the copy.
  if (existsSync(join(ROOT, 'proxy/node_modules'))) {
    symlinkSync(join(ROOT, 'proxy/node_modules'), join(proxyDir, 'node_modules'), 'dir')
  }
  return { proxyDir, remove: () => rmSync(workDir, { recursive: true, force: true }) }
}

/**
 * Copies the repository's proxy to `<workDir>/proxy` ({@link copyProxy}) and applies the mutant's
 * patch there with `git apply --directory` run from the repository root.
 * @throws Error with git's message when the patch does not apply (regenerate it: see
 * conformance/README.md).
 */
export async function prepareMutant(
  mutant: Mutant,
  workDir = join(MUTANT_WORK_DIR, `${process.pid}-${mutant.name}`),
): Promise<MutantCopy> {
  const copy = copyProxy(workDir)
  try {
    await applyPatch(mutant.file, workDir)
  } catch (err) {
    copy.remove()
    throw err
  }
  return copy
}

/**
 * Applies (or with `check`, only tries) a patch to the copy of `proxy/` under `workDir`.
 * @throws Error naming the patch, git's complaint and how to regenerate it.
 */
export async function applyPatch(
  file: string,
  workDir: string,
  options: { check?: boolean } = {},
): Promise<void> {
  // --directory prefixes every path of the patch; run from the root so the prefix is relative to it.
  const args = [
    'apply',
    ...(options.check ? ['--check'] : []),
    `--directory=${relative(ROOT, workDir)}`,
    file,
  ]
  try {
    await run('git', args, { cwd: ROOT })
  } catch (err) {
    const stderr = String((err as { stderr?: string }).stderr ?? (err as Error).message).trim()
    throw new Error(
      `${relative(ROOT, file)} does not apply to proxy/ any more: ${stderr}\n` +
        'Regenerate it: see conformance/README.md, "Adding or regenerating a mutant".',
      { cause: err },
    )
  }
}
