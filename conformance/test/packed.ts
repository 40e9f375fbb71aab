/**
 * The conformance package as a user gets it: `npm pack -w conformance` (prepack builds it), then
 * `npm install --offline <tarball>` into an empty folder under the system's temporary directory,
 * outside this repository. `--offline` proves the package needs nothing from the registry: it is
 * self-contained (scripts/build-config.ts), so this works on a clean clone in CI with no network.
 * Its commands then run from that folder on a Node the package supports (engines: 22 or newer).
 */
import { execFile } from 'node:child_process'
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { bundledNode, SUPPORTED_MAJOR } from '../../scripts/supported-node.mjs'
import { ROOT } from '../src/stack.js'

const run = promisify(execFile)

/** A command's end: exit code and output. */
export interface Outcome {
  code: number
  stdout: string
  stderr: string
}

/** The package, packed and installed. */
export interface Installed {
  /** The temporary directory holding the tarball and `app/`. */
  dir: string
  tarball: string
  /** The folder it is installed in (`app/node_modules/@gatehouse/conformance`). */
  app: string
  /** The environment its commands run with: no npm_* variables, a supported Node first on PATH. */
  env: NodeJS.ProcessEnv
  /** Runs a shell command or an executable in `app/`. */
  exec(file: string, args: readonly string[], options?: { timeout?: number }): Promise<Outcome>
  /**
   * The installed command, `app/node_modules/.bin/gatehouse-conformance …`, run from `app/`: the
   * link npm made, without npx in front (npx costs about 1.2 s of CPU a call on the 2-core CI
   * machine, 2026-11-28; `npx()` is the README's way, checked once).
   */
  conformance(args: readonly string[]): Promise<Outcome>
  /** `npx --no -- gatehouse-conformance …` in `app/` (`--no`: never fetched from the registry). */
  npx(args: readonly string[]): Promise<Outcome>
}

/** This process's environment without npm's own variables (an enclosing `npm test` sets them). */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
  )
  // The package wants Node >= 22; on an older machine Node, the repository's Node 22 package.
  const major = Number(process.versions.node.split('.')[0])
  const node = major < SUPPORTED_MAJOR ? bundledNode() : undefined
  if (node) env.PATH = `${dirname(node)}${delimiter}${env.PATH ?? ''}`
  return env
}

/** Packs the conformance workspace and installs the tarball into an empty folder. */
export async function packAndInstall(): Promise<Installed> {
  const env = cleanEnv()
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-pack-'))
  await run('npm', ['pack', '-w', 'conformance', '--pack-destination', dir], { cwd: ROOT, env })
  const tarballs = readdirSync(dir).filter((f) => f.endsWith('.tgz'))
  if (tarballs.length !== 1) throw new Error(`npm pack wrote ${tarballs.join(', ') || 'nothing'}`)
  const tarball = join(dir, tarballs[0] as string)
  const app = join(dir, 'app')
  mkdirSync(app)
  writeFileSync(join(app, 'package.json'), '{ "name": "app", "private": true }\n')
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: app, env })
  const exec = async (
    file: string,
    args: readonly string[],
    options: { timeout?: number } = {},
  ): Promise<Outcome> => {
    try {
      const r = await run(file, [...args], {
        cwd: app,
        env,
        timeout: options.timeout ?? 300_000,
        maxBuffer: 64 * 1024 * 1024,
      })
      return { code: 0, stdout: r.stdout, stderr: r.stderr }
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string }
      return {
        code: typeof e.code === 'number' ? e.code : -1,
        stdout: e.stdout ?? '',
        stderr: e.stderr ?? '',
      }
    }
  }
  return {
    dir,
    tarball,
    app,
    env,
    exec,
    conformance: (args) => exec(join(app, 'node_modules/.bin/gatehouse-conformance'), args),
    npx: (args) => exec('npx', ['--no', '--', 'gatehouse-conformance', ...args]),
  }
}

/**
 * Every path under `root` that is a symbolic link resolving outside it, or whose real path is
 * outside it (empty for an install that links nothing into the repository).
 */
export function pathsLeaving(root: string): string[] {
  const real = realpathSync(root)
  const out: string[] = []
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      const stat = lstatSync(path)
      if (stat.isSymbolicLink()) {
        let target: string
        try {
          target = realpathSync(path)
        } catch {
          target = '(dangling)'
        }
        if (!target.startsWith(`${real}/`)) out.push(`${path} -> ${target}`)
      } else if (stat.isDirectory()) walk(path)
    }
  }
  walk(root)
  return out
}
