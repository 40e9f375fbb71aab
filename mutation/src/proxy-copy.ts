/**
 * Temporary copies of the reference proxy, with or without a mutant planted, and their builds.
 * The copies live under the repository (git-ignored `.tmp/mutants/`) so that Node still resolves
 * the proxy's dependencies from the repository's node_modules.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { build } from 'esbuild'
import { BUNDLES, buildOptions } from '../../scripts/build-config.js'
import { applyEdits, type Mutant, ROOT } from './mutants.js'

/** Parent of the temporary proxy copies. */
export const MUTANT_WORK_DIR = join(ROOT, '.tmp/mutants')

/** What a proxy copy needs to run: its entry, its sources and its package.json (the version). */
export const PROXY_PARTS: readonly string[] = ['bin', 'src', 'package.json']

/** A proxy copy. */
export interface ProxyCopy {
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
export function copyProxy(workDir: string): ProxyCopy {
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
 * Copies the repository's proxy to `<workDir>/proxy` ({@link copyProxy}) and plants the mutant
 * there; `proxy/` itself is left alone.
 * @throws StaleMutantError when an edit's `find` no longer occurs exactly once (the message says
 * how to fix the mutant).
 */
export function prepareMutant(
  mutant: Mutant,
  workDir = join(MUTANT_WORK_DIR, `${process.pid}-${mutant.name}`),
): ProxyCopy {
  const copy = copyProxy(workDir)
  try {
    const edited = applyEdits(mutant, (file) => readFileSync(join(workDir, file), 'utf8'))
    for (const [file, text] of edited) writeFileSync(join(workDir, file), text)
  } catch (err) {
    copy.remove()
    throw err
  }
  return copy
}
