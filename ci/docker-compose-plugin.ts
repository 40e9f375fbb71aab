/**
 * Docker Compose v2 (`docker compose`) for the smoke test. Debian bookworm only packages Compose
 * v1, so as root on Debian the v2 plugin is taken from Debian trixie's `docker-compose` package:
 * the archive's InRelease is checked against the host's Debian archive keyring with gpgv, the
 * package against the SHA-256 its signed index names, and only the plugin binary is extracted into
 * the CLI's plugin folder. The host's apt state (sources, lists, dpkg database) is never touched.
 */
import { createHash } from 'node:crypto'
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isDebian } from './docker-engine.js'
import { isRoot, run } from './docker-run.js'

const MIRROR = 'http://deb.debian.org/debian'
const SUITE = 'trixie'
const KEYRING = '/usr/share/keyrings/debian-archive-keyring.gpg'
/** One of the folders the docker CLI looks in for plugins, outside any package's files. */
const PLUGIN_DIR = '/usr/local/lib/docker/cli-plugins'

/** The Compose version when `docker compose` works, otherwise undefined. */
export function composeVersion(): string | undefined {
  const r = run('docker', ['compose', 'version', '--short'], { timeoutMs: 15_000 })
  return r.ok ? r.stdout.trim() : undefined
}

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex')
}

function fetchTo(url: string, file: string): string | undefined {
  const r = run('curl', ['-fsSL', '--retry', '2', '-o', file, url], { timeoutMs: 300_000 })
  return r.ok ? undefined : r.problem
}

/** The `Filename` and `SHA256` of a package in a Debian `Packages` index. */
function findPackage(index: string, name: string): { path: string; sha256: string } | undefined {
  for (const stanza of index.split('\n\n')) {
    const field = (f: string): string | undefined =>
      stanza.match(new RegExp(`^${f}: (.+)$`, 'm'))?.[1]?.trim()
    if (field('Package') !== name) continue
    const path = field('Filename')
    const sum = field('SHA256')
    if (path && sum) return { path, sha256: sum }
  }
  return undefined
}

/** Downloads, verifies and installs the plugin; the reason when a step fails. */
function installFromTrixie(): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-compose-'))
  try {
    const inRelease = join(dir, 'InRelease')
    const fetchRelease = fetchTo(`${MIRROR}/dists/${SUITE}/InRelease`, inRelease)
    if (fetchRelease) return fetchRelease
    const verified = run('gpgv', [
      '--keyring',
      KEYRING,
      '--output',
      join(dir, 'Release'),
      inRelease,
    ])
    if (!verified.ok) return `the ${SUITE} InRelease signature does not verify: ${verified.problem}`
    const release = readFileSync(join(dir, 'Release'), 'utf8')
    const indexSum = release.match(/^ ([0-9a-f]{64})\s+\d+ main\/binary-amd64\/Packages\.xz$/m)?.[1]
    if (!indexSum) return `the ${SUITE} Release names no SHA-256 for main/binary-amd64/Packages.xz`
    const indexFile = join(dir, 'Packages.xz')
    const fetchIndex = fetchTo(`${MIRROR}/dists/${SUITE}/main/binary-amd64/Packages.xz`, indexFile)
    if (fetchIndex) return fetchIndex
    if (sha256(indexFile) !== indexSum) return `the ${SUITE} Packages.xz does not match its Release`
    const index = run('xz', ['-dc', indexFile])
    if (!index.ok) return index.problem
    const pkg = findPackage(index.stdout, 'docker-compose')
    if (!pkg) return `${SUITE} has no docker-compose package`
    const deb = join(dir, 'docker-compose.deb')
    const fetchDeb = fetchTo(`${MIRROR}/${pkg.path}`, deb)
    if (fetchDeb) return fetchDeb
    if (sha256(deb) !== pkg.sha256) return `${pkg.path} does not match the SHA-256 of its index`
    const extracted = run('dpkg-deb', ['-x', deb, join(dir, 'root')])
    if (!extracted.ok) return extracted.problem
    mkdirSync(PLUGIN_DIR, { recursive: true })
    const target = join(PLUGIN_DIR, 'docker-compose')
    copyFileSync(join(dir, 'root/usr/libexec/docker/cli-plugins/docker-compose'), target)
    chmodSync(target, 0o755)
    console.log(`installed Docker Compose from ${pkg.path} into ${PLUGIN_DIR}`)
    return undefined
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The Compose v2 version, installing the plugin from Debian trixie as root on Debian (amd64) when
 * `docker compose` is missing; otherwise the reason it cannot be had.
 */
export function ensureCompose(): { version: string } | { missing: string } {
  const version = composeVersion()
  if (version) return { version }
  if (!isRoot() || !isDebian() || process.arch !== 'x64') {
    return {
      missing:
        'Docker Compose v2 (`docker compose`) is missing; it is installed here only as root on Debian amd64 (install the docker-compose-plugin package)',
    }
  }
  const problem = installFromTrixie()
  if (problem)
    return { missing: `Docker Compose v2 could not be installed from Debian ${SUITE}: ${problem}` }
  const installed = composeVersion()
  return installed
    ? { version: installed }
    : { missing: `docker compose does not run after installing it into ${PLUGIN_DIR}` }
}
