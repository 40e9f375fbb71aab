/**
 * Licences (docs/design/dependencies.md): every workspace names its own, and every package of the
 * production dependency tree (each workspace's `dependencies` and `optionalDependencies`, the
 * root's `dependencies` and `optionalDependencies`, transitively, as `npm ls --omit=dev --all`
 * walks it) carries a licence on the allow-list. The tree is read from the lockfile, which is what
 * `npm ci` installs; where the package is installed, its own package.json must say the same.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/**
 * Permissive licences (SPDX identifiers) a production dependency may carry. A new one is a
 * decision: add it here with a line in docs/design/dependencies.md.
 */
const ALLOWED = new Set([
  'MIT',
  'Apache-2.0',
  'ISC',
  'BSD-2-Clause',
  'BSD-3-Clause',
  '0BSD',
  'BlueOak-1.0.0',
  'CC0-1.0',
  'Zlib',
  // argparse, js-yaml's CLI dependency (docs/design/dependencies.md, "js-yaml").
  'PSF-2.0',
])

interface LockEntry {
  name?: string
  license?: string
  link?: boolean
  resolved?: string
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  workspaces?: string[]
}

type Lock = Record<string, LockEntry>

/** Node's resolution over the lockfile's paths: `<from>/node_modules/<name>`, then up. */
function resolve(packages: Lock, from: string, name: string): string | undefined {
  let dir = from
  for (;;) {
    const candidate = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`
    if (packages[candidate]) return candidate
    if (dir === '') return undefined
    const up = dir.lastIndexOf('/node_modules/')
    dir = up >= 0 ? dir.slice(0, up) : ''
  }
}

/** The lockfile paths of the production tree below the root and every workspace. */
function productionTree(packages: Lock): string[] {
  const seen = new Set<string>()
  const visit = (path: string, own: LockEntry, includePeers: boolean): void => {
    const names = Object.keys({
      ...own.dependencies,
      ...own.optionalDependencies,
      ...(includePeers ? own.peerDependencies : {}),
    })
    for (const name of names) {
      const found = resolve(packages, path, name)
      // An optional or peer dependency this platform did not install.
      if (!found || seen.has(found)) continue
      seen.add(found)
      const entry = packages[found] as LockEntry
      const target = entry.link && entry.resolved ? entry.resolved : found
      visit(target, packages[target] ?? entry, true)
    }
  }
  const root = packages[''] as LockEntry
  visit('', root, false)
  for (const ws of root.workspaces ?? []) visit(ws, packages[ws] as LockEntry, false)
  return [...seen].filter((p) => !packages[p]?.link).sort()
}

/** Whether an SPDX expression (`MIT`, `(MIT OR CC0-1.0)`, `(MIT AND Zlib)`) is allowed. */
function allowed(expression: string | undefined): boolean {
  if (!expression) return false
  const text = expression.replace(/[()]/g, '').trim()
  if (/\bOR\b/.test(text)) return text.split(/\s+OR\s+/).some((e) => allowed(e))
  if (/\bAND\b/.test(text)) return text.split(/\s+AND\s+/).every((e) => allowed(e))
  return ALLOWED.has(text)
}

const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Lock
}
const tree = productionTree(lock.packages)

describe('licences', () => {
  it('names a licence in the root and every workspace package.json', () => {
    const root = lock.packages[''] as LockEntry
    const missing = ['', ...(root.workspaces ?? [])].filter((ws) => {
      const pkg = JSON.parse(readFileSync(join(ROOT, ws, 'package.json'), 'utf8')) as LockEntry
      return !allowed(pkg.license)
    })
    expect(missing, 'add "license": "Apache-2.0" to these package.json files').toEqual([])
  })

  it('walks the production tree of every workspace', () => {
    // The data plane's, the suite's and the CLI's direct dependencies, and one two levels down.
    for (const name of ['jose', 'fastify', 'commander', 'oidc-provider', 'fast-json-stringify']) {
      expect(tree).toContain(`node_modules/${name}`)
    }
    expect(tree).not.toContain('node_modules/vitest')
    expect(tree.length).toBeGreaterThan(100)
  })

  it('allows every production dependency licence', () => {
    const refused = tree
      .map((path) => ({ path, license: lock.packages[path]?.license }))
      .filter(({ license }) => !allowed(license))
    expect(
      refused,
      'a production dependency with a licence off the allow-list: replace it, or record the decision (docs/design/dependencies.md) and add the licence to ALLOWED',
    ).toEqual([])
  })

  it('reads the same licence from the installed package as from the lockfile', () => {
    const differ = tree.flatMap((path) => {
      const file = join(ROOT, path, 'package.json')
      if (!existsSync(file)) return []
      const installed = (JSON.parse(readFileSync(file, 'utf8')) as LockEntry).license
      const locked = lock.packages[path]?.license
      return installed === locked ? [] : [{ path, installed, locked }]
    })
    expect(differ, 'node_modules is stale: run npm ci').toEqual([])
  })

  it('refuses a licence off the list, in an expression too', () => {
    expect(allowed('MIT')).toBe(true)
    expect(allowed('(MIT OR CC0-1.0)')).toBe(true)
    expect(allowed('(MIT AND Zlib)')).toBe(true)
    expect(allowed('GPL-3.0-only')).toBe(false)
    expect(allowed('(MIT AND GPL-3.0-only)')).toBe(false)
    expect(allowed('(GPL-3.0-only OR MIT)')).toBe(true)
    expect(allowed(undefined)).toBe(false)
    expect(allowed('SEE LICENSE IN LICENSE.txt')).toBe(false)
  })
})
