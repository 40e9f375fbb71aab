/**
 * `npm run setup:test-tools` (part of `npm test`): makes sure the system programs some tests
 * drive are there — Debian's Chromium for the browser tests (through `playwright-core`, which never
 * downloads a browser of its own), tmux for gwctl's terminal-UI tests and redis-server for the
 * broker's Redis store tests.
 *
 * Each is looked for where the tests look for it. Where one is missing on a Debian-like machine
 * where we are root (a fresh CI machine), the distribution package is installed with apt-get.
 * Anywhere else, or when the install fails, the script says how to install it and exits 0: those
 * tests then report themselves as skipped, and everything else still runs.
 */

import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chromiumPath } from './chromium.js'
import { APT_LOCK_OPTIONS } from './docker-engine.js'
import { redisServerPath } from './redis.js'
import { tmuxPath } from './tmux.js'

interface Tool {
  /** What the tests use it for. */
  purpose: string
  /** Where the tests look for it. */
  path: string
  /** The Debian package that provides it. */
  debianPackage: string
  /** The environment variable that points the tests elsewhere. */
  override: string
}

const TOOLS: Tool[] = [
  {
    purpose: 'browser tests',
    path: chromiumPath(),
    debianPackage: 'chromium',
    override: 'CHROMIUM_PATH',
  },
  {
    purpose: 'gwctl terminal-UI tests',
    path: tmuxPath(),
    debianPackage: 'tmux',
    override: 'TMUX_PATH',
  },
  {
    purpose: 'broker Redis store tests',
    path: redisServerPath(),
    debianPackage: 'redis-server',
    override: 'REDIS_SERVER_PATH',
  },
]

function aptGet(args: string[]): boolean {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  // Waits (bounded) for a dpkg lock another process holds instead of failing at once.
  const r = spawnSync('apt-get', [...APT_LOCK_OPTIONS, ...args], { stdio: 'inherit', env })
  if (r.status !== 0) console.error(`apt-get ${args.join(' ')} failed (exit ${r.status})`)
  return r.status === 0
}

function main(): number {
  const missing = TOOLS.filter((t) => !existsSync(t.path))
  for (const t of TOOLS) {
    if (existsSync(t.path)) console.log(`${t.purpose}: ${t.path}`)
  }
  if (missing.length === 0) return 0
  const canInstall =
    process.platform === 'linux' &&
    process.getuid?.() === 0 &&
    spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0
  // A path the user chose is theirs to provide; only the default locations are installed to.
  const installable = missing.filter((t) => canInstall && process.env[t.override] === undefined)
  for (const t of missing.filter((t) => !installable.includes(t))) {
    console.warn(
      `${t.purpose}: nothing at ${t.path}; they will be skipped. Install Debian's ${t.debianPackage} package (apt-get install ${t.debianPackage}) or set ${t.override}.`,
    )
  }
  if (installable.length === 0) return 0
  const packages = installable.map((t) => t.debianPackage)
  console.log(`installing Debian packages for the tests: ${packages.join(', ')}`)
  // A failed install (no mirror, say) is reported, not fatal: the tests that need the tool say
  // they are skipped, and everything else still runs.
  const installed =
    aptGet(['update', '-qq']) &&
    aptGet(['install', '-y', '-qq', '--no-install-recommends', ...packages])
  for (const t of installable) {
    if (existsSync(t.path)) console.log(`${t.purpose}: ${t.path}`)
    else {
      console.warn(
        `${t.purpose}: ${installed ? `${t.debianPackage} was installed but nothing is at ${t.path}` : `could not install ${t.debianPackage}`}; they will be skipped. Install it by hand or set ${t.override}.`,
      )
    }
  }
  return 0
}

process.exitCode = main()
