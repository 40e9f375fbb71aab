import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { isBuiltin } from 'node:module'
import { join, normalize, relative } from 'node:path'
import { OWN_SCOPE } from '@gatehouse/support/script-bundle'
import { build, type Metafile } from 'esbuild'
import { describe, expect, it } from 'vitest'
import { BUNDLES, type Bundle, buildOptions, ROOT } from '../build-config.js'

/** Builds a bundle in memory and returns its metafile. */
async function metafile(bundle: Bundle): Promise<Metafile> {
  const result = await build({ ...buildOptions(bundle), write: false, metafile: true })
  return result.metafile
}

/** `@scope/name/sub/path.js` → `@scope/name`; `name/sub` → `name`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/')
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/')
}

/** Packages (not Node built-ins) that the given outputs import, directly or through chunks. */
function externalPackages(meta: Metafile, outputs: string[], kinds?: string[]): Set<string> {
  const found = new Set<string>()
  const seen = new Set<string>()
  const queue = [...outputs]
  for (let out = queue.shift(); out !== undefined; out = queue.shift()) {
    if (seen.has(out)) continue
    seen.add(out)
    for (const imp of meta.outputs[out]?.imports ?? []) {
      if (kinds && !kinds.includes(imp.kind)) continue
      if (!imp.external) queue.push(imp.path)
      else if (!isBuiltin(imp.path)) found.add(packageName(imp.path))
    }
  }
  return found
}

/**
 * The output built from the bundle's own entry. Chunks behind a dynamic `import()` carry an
 * `entryPoint` too, and the outputs' order follows their hashed names: match the path.
 */
function entryOutput(meta: Metafile, bundle: Bundle): string {
  const entry = join(bundle.workspace, bundle.entry)
  const out = Object.keys(meta.outputs).find((o) => meta.outputs[o]?.entryPoint === entry)
  if (!out) throw new Error(`${bundle.workspace}: no entry output`)
  return out
}

describe('build (scripts/build.ts)', () => {
  for (const bundle of BUNDLES) {
    it(`declares every package ${bundle.workspace}'s bundle and bin import in its dependencies`, async () => {
      const meta = await metafile(bundle)
      const launcher = await build({
        ...buildOptions(bundle),
        entryPoints: [join(bundle.workspace, bundle.launcher)],
        write: false,
        metafile: true,
      })
      const pkg = JSON.parse(
        readFileSync(join(ROOT, bundle.workspace, 'package.json'), 'utf8'),
      ) as { dependencies?: Record<string, string>; bin?: Record<string, string> }
      expect(Object.values(pkg.bin ?? {}).map((p) => normalize(p))).toEqual([bundle.launcher])
      const imported = [
        ...externalPackages(meta, Object.keys(meta.outputs)),
        ...externalPackages(launcher.metafile, Object.keys(launcher.metafile.outputs)),
      ].sort()
      // A self-contained bundle (the conformance package) imports no package at all, and so
      // declares none: it installs from its tarball with nothing from the registry.
      if (bundle.selfContained) {
        // Left to run time: node:sqlite (a built-in Node 20 does not know) and @redis/client's
        // optional `await import('@node-rs/xxhash')` for a command the proxy never sends.
        const optional = ['@node-rs/xxhash']
        expect(
          imported.filter((name) => !name.startsWith('node:') && !optional.includes(name)),
        ).toEqual([])
        expect(Object.keys(pkg.dependencies ?? {})).toEqual([])
        return
      }
      expect(imported.length).toBeGreaterThan(0)
      const undeclared = imported.filter((name) => !(name in (pkg.dependencies ?? {})))
      expect(undeclared, `${bundle.workspace}/package.json dependencies`).toEqual([])
    })

    it(`inlines the workspaces ${bundle.workspace} imports rather than importing @gatehouse packages`, async () => {
      const meta = await metafile(bundle)
      const imported = [...externalPackages(meta, [entryOutput(meta, bundle)])]
      expect(imported.filter((name) => name.startsWith(OWN_SCOPE))).toEqual([])
      // So they are devDependencies: a packed workspace (conformance) installs from the registry,
      // where no @gatehouse package exists.
      const pkg = JSON.parse(
        readFileSync(join(ROOT, bundle.workspace, 'package.json'), 'utf8'),
      ) as { dependencies?: Record<string, string> }
      const own = Object.keys(pkg.dependencies ?? {}).filter((d) => d.startsWith(OWN_SCOPE))
      expect(own, `${bundle.workspace}/package.json: move these to devDependencies`).toEqual([])
    })
  }

  it('keeps the proxy and every npm package out of what gatehouse --help loads', async () => {
    const proxy = BUNDLES.find((b) => b.workspace === 'proxy') as Bundle
    const meta = await metafile(proxy)
    const entry = entryOutput(meta, proxy)
    const eager = externalPackages(meta, [entry], ['import-statement'])
    expect([...eager]).toEqual([])
    // Everything else is there, behind the dynamic imports.
    const all = externalPackages(meta, [entry])
    // (undici is not among them: http/upstream.ts loads its dispatcher modules with createRequire.)
    expect([...all]).toEqual(expect.arrayContaining(['jose', 'pino', 'yaml', 'zod']))
    const eagerInputs = Object.keys(meta.outputs[entry]?.inputs ?? {}).map((i) =>
      relative('proxy', i),
    )
    expect(eagerInputs).not.toContain('src/index.ts')
  })

  it('imports the OpenTelemetry SDK only behind a dynamic import (tracing is optional)', async () => {
    const proxy = BUNDLES.find((b) => b.workspace === 'proxy') as Bundle
    const meta = await metafile(proxy)
    const sdk = Object.values(meta.outputs)
      .flatMap((o) => o.imports)
      .filter(
        (i) =>
          i.external && i.path.startsWith('@opentelemetry/') && i.path !== '@opentelemetry/api',
      )
    expect(sdk.map((i) => i.path)).toContain('@opentelemetry/sdk-trace-base')
    expect(sdk.filter((i) => i.kind !== 'dynamic-import')).toEqual([])
  })
})

describe('bin launchers', () => {
  const args: Record<string, [string[], RegExp]> = {
    proxy: [['--version'], /^gatehouse \d+\.\d+\.\d+\n$/],
    gwctl: [['version'], /^gwctl \d+\.\d+\.\d+ /],
    'mock-idp': [['--help'], /^usage: mock-idp/],
    'mock-mcp': [['--help'], /^usage: mcp-backend/],
    conformance: [['--help'], /^Usage: gatehouse-conformance/],
  }
  for (const bundle of BUNDLES) {
    const [argv, expected] = args[bundle.workspace] ?? [[], /never/]
    it(`${bundle.workspace}/${bundle.launcher} starts the built command`, () => {
      const r = spawnSync(
        process.execPath,
        [join(ROOT, bundle.workspace, bundle.launcher), ...argv],
        {
          encoding: 'utf8',
        },
      )
      expect(r.stderr).not.toContain('is missing')
      expect(r.stdout).toMatch(expected)
      expect(r.status).toBe(0)
    })
  }

  it('gatehouse from the build validates the demo configuration', () => {
    const r = spawnSync(
      process.execPath,
      [
        join(ROOT, 'proxy/bin/gatehouse.js'),
        '--validate',
        '-f',
        join(ROOT, 'examples/standalone/gatehouse.yaml'),
      ],
      { encoding: 'utf8' },
    )
    expect(r.stdout).toContain('configuration is valid')
    expect(r.status).toBe(0)
  })
})
