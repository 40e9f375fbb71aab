/**
 * A TypeScript program of this repository started as plain JavaScript, for tests and harnesses
 * that start the same program dozens of times (the client mode's clients, the real-peer wrappers,
 * the conformance command itself). `tsx file.ts` costs about 2 s of CPU a start here (two node
 * processes and a module loader hook on every import); the bundle this module writes starts on
 * about 0.5 s (2026-11-28, the SDK example client, Node 20, shared 2-core machine: 1.7+0.6 s
 * against 0.3+0.1 s of user+system time), and the CI runs such starts some 400 times.
 *
 * What runs is the same code: esbuild compiles the repository's own modules (the entry and every
 * `@gatehouse/*` workspace it imports) into one ES module and leaves every other package external,
 * so each is loaded by Node from the `node_modules` the entry would have used (the bundle is
 * written under the entry's workspace's `node_modules/.cache/`, so a workspace's pinned version
 * still wins); each module keeps its own `import.meta.url` (replaced by its source file's URL), so
 * paths computed from it do not move.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join, parse, relative, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build, type Plugin } from 'esbuild'

/** The workspace directory holding `file`: the nearest parent with a package.json. */
function workspaceOf(file: string): string {
  let dir = dirname(file)
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir)
    if (parent === dir) throw new Error(`${file} is in no npm package (no package.json above it)`)
    dir = parent
  }
  return dir
}

/**
 * The prefix of the repository's own packages, which are bundled rather than installed: a
 * workspace lists the ones it imports under devDependencies, never dependencies.
 */
export const OWN_SCOPE = '@gatehouse/'

/**
 * Keeps npm packages external (Node resolves them at run time) and lets esbuild bundle relative
 * imports and the repository's own workspaces: the bundles of `npm run build`
 * (scripts/build-config.ts) and of {@link scriptBundle}.
 */
export const externalPackages: Plugin = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith(OWN_SCOPE) ? undefined : { path: args.path, external: true },
    )
  },
}

/**
 * Bundled CommonJS code `require`s what it needs, and an ES module has no `require`: a bundle
 * gets one, made from its own URL.
 */
export const REQUIRE_BANNER =
  "import { createRequire as __gatehouseCreateRequire } from 'node:module'; const require = __gatehouseCreateRequire(import.meta.url);"

/** Keeps each module's `import.meta.url`, `.filename` and `.dirname` those of its source file. */
const ownImportMeta: Plugin = {
  name: 'gatehouse-own-import-meta',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, (args) => {
      if (args.path.includes(`${sep}node_modules${sep}`)) return undefined
      const source = readFileSync(args.path, 'utf8')
      const contents = source
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.filename', JSON.stringify(args.path))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
      const ext = parse(args.path).ext.replace(/^\.[cm]?/, '')
      return { contents, loader: ext as 'ts' | 'js' | 'tsx' | 'jsx' }
    })
  },
}

const built = new Map<string, Promise<string>>()

/**
 * Bundles `entry` (an absolute path to a `.ts` program of this repository) and resolves to the
 * bundle's path: `node <path> …` runs what `tsx <entry> …` runs. Built once per process; the file
 * is named by its content's hash, so processes building the same sources share it, and an edit
 * gives a new file.
 */
export function scriptBundle(entry: string): Promise<string> {
  let pending = built.get(entry)
  if (!pending) {
    pending = bundle(entry)
    built.set(entry, pending)
    pending.catch(() => built.delete(entry))
  }
  return pending
}

async function bundle(entry: string): Promise<string> {
  const workspace = workspaceOf(entry)
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    plugins: [externalPackages, ownImportMeta],
    logLevel: 'silent',
    banner: { js: REQUIRE_BANNER },
  })
  const code = result.outputFiles[0]?.contents
  if (!code) throw new Error(`esbuild wrote nothing for ${entry}`)
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 16)
  const dir = join(workspace, 'node_modules/.cache/gatehouse-scripts')
  const name = `${relative(workspace, entry)
    .replaceAll(sep, '-')
    .replace(/\.[cm]?ts$/, '')}-${hash}.mjs`
  const file = join(dir, name)
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true })
    const partial = `${file}.${process.pid}.partial`
    writeFileSync(partial, code)
    renameSync(partial, file)
  }
  return file
}

/**
 * `command` with a leading `<…>/tsx <file>.ts` (the way the tests and the real-peer matrix write a
 * TypeScript client's command) replaced by `node <bundle>`; any other command as it is.
 */
export async function fastCommand(command: string, cwd: string): Promise<string> {
  const match = /^(\S*\/)?tsx\s+(\S+\.ts)(?=\s|$)/.exec(command)
  if (!match?.[2]) return command
  const entry = match[2].startsWith('/') ? match[2] : join(cwd, match[2])
  return `node ${await scriptBundle(entry)}${command.slice(match[0].length)}`
}
