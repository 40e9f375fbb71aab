/**
 * What `npm run build` compiles: one esbuild bundle per command, written to `<workspace>/dist/`.
 * Each bundle inlines the repository's own code — its workspace's sources and the workspaces it
 * imports (`@gatehouse/*`, whose `exports` point at TypeScript sources) — and leaves every npm
 * package external, so it runs against its workspace's production dependencies (those must be
 * declared in that workspace's package.json; a test checks it). Dynamic imports become chunks
 * (`dist/chunks/`), which is how `gatehouse --help` avoids loading the proxy.
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
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
  },
]

/**
 * The prefix of the repository's own packages, which are bundled rather than installed: a
 * workspace lists the ones it imports under devDependencies, never dependencies.
 */
export const OWN_SCOPE = '@gatehouse/'

/** Keeps npm packages external; lets esbuild bundle relative imports and our workspaces. */
const externalPackages: Plugin = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith(OWN_SCOPE) ? undefined : { path: args.path, external: true },
    )
  },
}

/** The esbuild options of one bundle. */
export function buildOptions(bundle: Bundle): BuildOptions & { outdir: string } {
  return {
    absWorkingDir: ROOT,
    entryPoints: [join(bundle.workspace, bundle.entry)],
    outdir: join(ROOT, bundle.workspace, 'dist'),
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    // package.json engines: Node >= 20.19.
    target: 'node20.19',
    jsx: 'automatic',
    plugins: [externalPackages],
    logLevel: 'warning',
  }
}
