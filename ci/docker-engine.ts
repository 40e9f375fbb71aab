/**
 * A Docker engine for the compose smoke test: the one that answers, or — as root on Debian —
 * Debian's `docker.io`, installed with apt-get and started here (CI machines run no init system
 * that would start it).
 */
import { spawn } from 'node:child_process'
import { closeSync, existsSync, openSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { isRoot, run } from './docker-run.js'

/** An engine that answers, and how to give it back. */
export interface Engine {
  /** The server version it reports. */
  version: string
  /** Stops the daemon if this process started it; otherwise does nothing. */
  release(): Promise<void>
}

/** Why there is no engine: the exact thing that is missing. */
export class NoEngine extends Error {
  override readonly name = 'NoEngine'
}

const DOCKERD = '/usr/sbin/dockerd'
const START_TIMEOUT_MS = 60_000

/** The server version when an engine answers the `docker` CLI, otherwise undefined. */
export function engineVersion(): string | undefined {
  const r = run('docker', ['version', '--format', '{{.Server.Version}}'], { timeoutMs: 15_000 })
  return r.ok ? r.stdout.trim() : undefined
}

/** True on Debian or a derivative with apt-get. */
export function isDebian(): boolean {
  return existsSync('/etc/debian_version') && run('apt-get', ['--version']).ok
}

/**
 * apt-get waits up to this long for the dpkg and package-list locks another process holds (an
 * unattended upgrade, a second `npm test`) instead of failing at once: `DPkg::Lock::Timeout`.
 */
export const APT_LOCK_WAIT_SECONDS = 300
/** The apt-get options that make it wait for the locks, bounded. */
export const APT_LOCK_OPTIONS = ['-o', `DPkg::Lock::Timeout=${APT_LOCK_WAIT_SECONDS}`]

/** Installs Debian packages with apt-get; the reason when that fails. */
export function aptInstall(packages: string[]): string | undefined {
  const env = { DEBIAN_FRONTEND: 'noninteractive' }
  console.log(`installing Debian packages: ${packages.join(', ')}`)
  const lockMs = APT_LOCK_WAIT_SECONDS * 1000
  const update = run('apt-get', [...APT_LOCK_OPTIONS, 'update', '-qq'], {
    env,
    timeoutMs: 300_000 + lockMs,
  })
  if (!update.ok) return update.problem
  const install = run(
    'apt-get',
    [...APT_LOCK_OPTIONS, 'install', '-y', '-qq', '--no-install-recommends', ...packages],
    { env, timeoutMs: 600_000 + lockMs },
  )
  return install.ok ? undefined : install.problem
}

async function startDaemon(): Promise<Engine> {
  const log = join(tmpdir(), 'gatehouse-dockerd.log')
  const fd = openSync(log, 'a')
  // Its own session and no pipe to us: the daemon must not hold our output open.
  const daemon = spawn(DOCKERD, [], { detached: true, stdio: ['ignore', fd, fd] })
  closeSync(fd)
  const exited = new Promise<void>((resolve) => daemon.once('exit', () => resolve()))
  daemon.unref()
  const deadline = Date.now() + START_TIMEOUT_MS
  while (Date.now() < deadline) {
    const version = engineVersion()
    if (version) {
      console.log(`started dockerd ${version} (pid ${daemon.pid}, log ${log})`)
      return {
        version,
        async release() {
          if (daemon.exitCode !== null) return
          // Referenced again so that this process waits for the exit; the timer is not, so it
          // does not keep the process up once the daemon is gone.
          daemon.ref()
          daemon.kill('SIGTERM')
          await Promise.race([exited, sleep(30_000, undefined, { ref: false })])
        },
      }
    }
    if (daemon.exitCode !== null) break
    await sleep(500)
  }
  daemon.kill('SIGKILL')
  throw new NoEngine(`dockerd did not answer within ${START_TIMEOUT_MS / 1000} s; see ${log}`)
}

/**
 * The engine that answers; or, as root on Debian, `docker.io` installed and started. Throws
 * {@link NoEngine} naming what is missing when neither can be had.
 */
export async function ensureEngine(): Promise<Engine> {
  const version = engineVersion()
  if (version) return { version, async release() {} }
  if (process.env.DOCKER_HOST) {
    throw new NoEngine(`no Docker engine answers at DOCKER_HOST=${process.env.DOCKER_HOST}`)
  }
  if (!isRoot()) {
    throw new NoEngine(
      'no Docker engine answers and we are not root, so none can be installed here (start Docker or set DOCKER_HOST)',
    )
  }
  if (!isDebian()) {
    throw new NoEngine(
      'no Docker engine answers and this is not Debian, so docker.io cannot be installed here (start Docker or set DOCKER_HOST)',
    )
  }
  if (!existsSync(DOCKERD)) {
    const problem = aptInstall(['docker.io'])
    if (problem)
      throw new NoEngine(`no Docker engine answers and installing docker.io failed: ${problem}`)
  }
  return startDaemon()
}
