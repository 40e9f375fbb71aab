/**
 * The module graph of proxy/src points one way (docs/design/layering.md): no import cycle between files, and
 * none between its directories (auth/ and dataplane/ once imported each other's types). Each
 * directory and root file sits in a layer (CONTRIBUTING, "Adding a policy feature") and imports
 * only from lower layers (docs/design/layering.md): cli → index → compile → admin, dataplane → auth, mcp → http
 * → config → telemetry, with errors.ts and version.ts under everything.
 * Type-only imports count: they couple modules as much as value imports do.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = new URL('../../proxy/src/', import.meta.url).pathname

/** Relative imports (static, re-exports, dynamic) of every `.ts` file under `dir`. */
function importGraph(dir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) =>
    f.endsWith('.ts'),
  )
  for (const file of files) {
    const text = readFileSync(join(dir, file), 'utf8')
    const targets = [...text.matchAll(/(?:\bfrom\s+|\bimport\(\s*)'(\.{1,2}\/[^']+)'/g)].map((m) =>
      normalize(join(dirname(file), (m[1] as string).replace(/\.js$/, '.ts'))),
    )
    graph.set(normalize(file), targets)
  }
  return graph
}

/** Strongly connected components with more than one member, or a self-loop (Tarjan). */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  let next = 0
  const visit = (v: string): void => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number))
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) as number, index.get(w) as number))
      }
    }
    if (low.get(v) !== index.get(v)) return
    const component: string[] = []
    let w: string
    do {
      w = stack.pop() as string
      onStack.delete(w)
      component.push(w)
    } while (w !== v)
    if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.sort())
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return found
}

/** The graph between top-level directories (files at the root are left out: they wire). */
function directoryGraph(graph: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const dirs = new Map<string, Set<string>>()
  const top = (f: string) =>
    FILE_UNITS.includes(f) ? f : f.includes('/') ? f.split('/')[0] : undefined
  for (const [file, targets] of graph) {
    const from = top(file)
    if (!from) continue
    const set = dirs.get(from) ?? new Set<string>()
    dirs.set(from, set)
    for (const t of targets) {
      const to = top(relative('.', t))
      if (to && to !== from && to !== '..') set.add(to)
    }
  }
  return new Map([...dirs].map(([d, s]) => [d, [...s]]))
}

/**
 * The layers, top first. A module imports only from a lower layer (its own directory aside), so
 * two directories of one layer (auth/ and mcp/) do not import each other either. A new directory
 * or root file must be placed here. broker/ and store/ are the token broker's (docs/design/broker.md).
 */
const LAYERS: readonly (readonly string[])[] = [
  ['cli.ts'],
  ['index.ts', 'cluster'],
  ['lifecycle'],
  ['lifecycle/compile.ts'],
  ['admin', 'dataplane'],
  ['broker'],
  ['auth', 'mcp'],
  ['http', 'store', 'cluster/ipc.ts'],
  ['config'],
  ['telemetry'],
  ['errors.ts', 'version.ts'],
]

/**
 * Files that are a unit of their own, apart from their directory: `cluster/ipc.ts`, the cluster's
 * channel, which the workers (`index.ts`, `admin/worker-agent.ts`) speak over as the primary
 * (`cluster/`) does, so it sits under both; `lifecycle/compile.ts`, which the live runtime and
 * reload (the rest of `lifecycle/`) build on and `gatehouse --validate` uses alone.
 */
const FILE_UNITS: readonly string[] = ['cluster/ipc.ts', 'lifecycle/compile.ts']

/**
 * The top-level directory or root file of a path relative to proxy/src (`..` when outside), or
 * the file itself where it is one of {@link FILE_UNITS}.
 */
function unitOf(file: string): string {
  const path = normalize(file)
  return FILE_UNITS.includes(path) ? path : (path.split('/')[0] as string)
}

/**
 * Imports that go up or sideways between layers, as `from → to` (`to` is the imported file), and
 * the units the table does not place.
 */
function layerViolations(graph: ReadonlyMap<string, readonly string[]>): {
  upward: string[]
  unplaced: string[]
} {
  const rank = new Map(LAYERS.flatMap((units, i) => units.map((u) => [u, i] as const)))
  const upward: string[] = []
  const unplaced = new Set<string>()
  for (const [file, targets] of graph) {
    const from = unitOf(file)
    const fromRank = rank.get(from)
    if (fromRank === undefined) unplaced.add(from)
    for (const target of targets) {
      const to = unitOf(target)
      if (to === from || to === '..') continue
      const toRank = rank.get(to)
      if (toRank === undefined) unplaced.add(to)
      else if (fromRank !== undefined && toRank <= fromRank) upward.push(`${file} → ${target}`)
    }
  }
  return { upward: upward.sort(), unplaced: [...unplaced].sort() }
}

describe('module graph of proxy/src', () => {
  const graph = importGraph(SRC)

  it('reads the imports it is meant to judge', () => {
    expect(graph.get('dataplane/pipeline.ts')).toContain('dataplane/forward.ts')
    expect(graph.get('auth/types.ts')).toContain('http/local-response.ts')
  })

  it('has no cycle between files', () => {
    expect(cycles(graph)).toEqual([])
  })

  it('has no cycle between directories', () => {
    expect(cycles(directoryGraph(graph))).toEqual([])
  })

  it('imports only from lower layers, and places every directory and root file in one', () => {
    expect(layerViolations(graph)).toEqual({ upward: [], unplaced: [] })
  })

  it('finds an import that goes up or sideways, and a unit the layers do not place', () => {
    const planted = new Map(graph)
    // Up (mcp/ under admin/) and sideways (admin/ and dataplane/ are one layer); neither closes a
    // cycle, so only the layer check sees them.
    planted.set('mcp/json-rpc.ts', [
      ...(graph.get('mcp/json-rpc.ts') ?? []),
      'admin/config-dump.ts',
    ])
    planted.set('dataplane/forward.ts', [
      ...(graph.get('dataplane/forward.ts') ?? []),
      'admin/server.ts',
    ])
    planted.set('extra/new.ts', ['config/schema.ts'])
    expect(cycles(directoryGraph(planted))).toEqual([])
    expect(layerViolations(planted)).toEqual({
      upward: ['dataplane/forward.ts → admin/server.ts', 'mcp/json-rpc.ts → admin/config-dump.ts'],
      unplaced: ['extra'],
    })
  })

  it('finds a cycle where there is one', () => {
    const planted = new Map(graph)
    planted.set('http/upstream.ts', [...(graph.get('http/upstream.ts') ?? []), 'auth/types.ts'])
    expect(cycles(directoryGraph(planted))).toEqual([expect.arrayContaining(['auth', 'http'])])
    expect(
      cycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', ['a.ts']],
        ]),
      ),
    ).toEqual([['a.ts', 'b.ts']])
  })
})

/** The repository's root, and its workspaces (package.json `workspaces`). */
const ROOT = new URL('../../', import.meta.url).pathname
const WORKSPACES = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] }
).workspaces

/** Every `.ts`/`.tsx` file of a workspace, relative to it (node_modules and dist aside). */
function workspaceFiles(ws: string): string[] {
  return readdirSync(join(ROOT, ws), { recursive: true, encoding: 'utf8' }).filter(
    (f) =>
      /\.tsx?$/.test(f) &&
      !f.endsWith('.d.ts') &&
      !f.split('/').some((part) => part === 'node_modules' || part === 'dist'),
  )
}

const IMPORT = /(?:\bfrom\s+|\bimport\(\s*)'([^']+)'/g

/** A workspace's relative imports, as a graph of paths relative to the workspace. */
function workspaceGraph(ws: string): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of workspaceFiles(ws)) {
    const text = readFileSync(join(ROOT, ws, file), 'utf8')
    const targets = [...text.matchAll(IMPORT)]
      .map((m) => m[1] as string)
      .filter((s) => s.startsWith('.'))
      .map((s) => normalize(join(dirname(file), s.replace(/\.js$/, '.ts'))))
    graph.set(normalize(file), targets)
  }
  // `x.js` may be `x.tsx`.
  for (const [file, targets] of graph) {
    graph.set(
      file,
      targets.map((t) => (graph.has(t) ? t : t.replace(/\.ts$/, '.tsx'))),
    )
  }
  return graph
}

/**
 * The relative imports of one file (`file`, relative to workspace `ws`) that leave `ws` for
 * another workspace, as `from → to` from the root.
 */
function crossWorkspaceImportsOf(ws: string, file: string, text: string): string[] {
  const found: string[] = []
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] as string
    if (!spec.startsWith('.')) continue
    const target = normalize(join(ws, dirname(file), spec))
    const top = target.split('/')[0] as string
    if (top !== ws && WORKSPACES.includes(top)) found.push(`${ws}/${file} → ${target}`)
  }
  return found
}

/**
 * Relative imports that leave their workspace for another one, in every workspace. There are
 * none: a workspace imports another by its package name (`@gatehouse/<name>/<subpath>`), which
 * that workspace's package.json `exports` offers, so what crosses a workspace's edge is declared.
 */
function crossWorkspaceImports(): string[] {
  return WORKSPACES.flatMap((ws) =>
    workspaceFiles(ws).flatMap((file) =>
      crossWorkspaceImportsOf(ws, file, readFileSync(join(ROOT, ws, file), 'utf8')),
    ),
  ).sort()
}

/**
 * File cycles known today; the list only shrinks. gwctl: the commands import `cli.ts`'s types and
 * `cli.ts` imports the commands. (conformance's client scenarios and shapers, which imported each
 * other, no longer do: the types live with the shapes and shapers, 2026-11-28.)
 */
const CYCLES_ALLOWED: Readonly<Record<string, readonly string[][]>> = {
  gwctl: [
    [
      'src/cli.ts',
      'src/commands/config.ts',
      'src/commands/context.ts',
      'src/commands/log.ts',
      'src/commands/metrics.ts',
      'src/commands/profile.ts',
      'src/commands/status.ts',
      'src/commands/trace.ts',
      'src/commands/version.ts',
      'src/io.ts',
    ],
  ],
}

/** A workspace's package.json. */
function readPackage(ws: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(ROOT, ws, 'package.json'), 'utf8')) as Record<string, unknown>
}

/** The files a workspace's package.json `exports` names, relative to the workspace. */
function exportedFiles(ws: string): string[] {
  const exports = (readPackage(ws).exports ?? {}) as Record<string, string>
  return Object.values(exports)
}

/** The `@gatehouse/<name>` packages a workspace imports, and those its package.json declares. */
function gatehouseImports(ws: string): { imported: string[]; declared: string[] } {
  const pkg = JSON.parse(readFileSync(join(ROOT, ws, 'package.json'), 'utf8')) as Record<
    string,
    Record<string, string> | undefined
  >
  const declared = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((n) =>
    n.startsWith('@gatehouse/'),
  )
  const imported = new Set<string>()
  for (const file of workspaceFiles(ws)) {
    const text = readFileSync(join(ROOT, ws, file), 'utf8')
    for (const m of text.matchAll(IMPORT)) {
      const name = /^(@gatehouse\/[^/]+)/.exec(m[1] as string)?.[1]
      if (name) imported.add(name)
    }
  }
  return { imported: [...imported].sort(), declared: declared.sort() }
}

describe('module graph of every workspace', () => {
  it('reads every workspace', () => {
    expect(WORKSPACES).toEqual(expect.arrayContaining(['proxy', 'conformance', 'support', 'gwctl']))
    expect(workspaceGraph('conformance').get('src/catalogue/index.ts')?.length).toBeGreaterThan(0)
    expect(workspaceGraph('gwctl').get('src/commands/trace.ts')).toContain(
      'src/trace/trace-view.tsx',
    )
  })

  it.each(WORKSPACES)('%s has no import cycle between its files', (ws) => {
    expect(cycles(workspaceGraph(ws))).toEqual(CYCLES_ALLOWED[ws] ?? [])
  })

  it('imports another workspace only by its package name, never by a relative path into it', () => {
    expect(
      crossWorkspaceImports(),
      'import the workspace as @gatehouse/<name>/<subpath> (add the subpath to its package.json exports)',
    ).toEqual([])
  })

  it.each(WORKSPACES)('%s declares every @gatehouse package it imports', (ws) => {
    const { imported, declared } = gatehouseImports(ws)
    expect(imported.filter((n) => n !== `@gatehouse/${ws}` && !declared.includes(n))).toEqual([])
  })

  it.each(WORKSPACES)('%s exports only files that exist', (ws) => {
    expect(exportedFiles(ws).filter((f) => !existsSync(join(ROOT, ws, f)))).toEqual([])
  })

  it('packs every export of a published workspace but its ./internal/ ones', () => {
    // conformance is published without src/ and test/: what mutation/, peers/ and the proxy's
    // tests import from it (`@gatehouse/conformance/internal/…`) resolves inside the repository
    // only, and is the only part of its exports a packed copy does not carry.
    const published = WORKSPACES.filter((ws) => !readPackage(ws).private)
    expect(published).toEqual(['conformance'])
    for (const ws of published) {
      const files = (readPackage(ws).files ?? []) as string[]
      const packed = (f: string) =>
        files.some((p) => (p.endsWith('/') ? f.startsWith(`./${p}`) : f === `./${p}`)) ||
        f === './package.json'
      const exports = Object.entries(readPackage(ws).exports as Record<string, string>)
      expect(exports.filter(([name, f]) => !name.startsWith('./internal/') && !packed(f))).toEqual(
        [],
      )
      expect(exports.filter(([name, f]) => name.startsWith('./internal/') && packed(f))).toEqual([])
    }
  })

  it('keeps the suite off the proxy, and support and redact off every workspace', () => {
    expect(gatehouseImports('conformance').imported).not.toContain('@gatehouse/proxy')
    expect(gatehouseImports('support').imported).toEqual([])
    expect(gatehouseImports('redact').imported).toEqual([])
  })

  it('finds a relative import into another workspace, and a cycle, where there is one', () => {
    expect(
      cycles(
        new Map([
          ['src/a.ts', ['src/b.ts']],
          ['src/b.ts', ['src/a.ts']],
        ]),
      ),
    ).toEqual([['src/a.ts', 'src/b.ts']])
    // A static import, a re-export and a dynamic import into proxy/ from bench/; a relative import
    // inside bench/ and a package import are not.
    const text = [
      "import { MemoryStore } from '../proxy/src/store/memory.js'",
      "export { redisSkipReason } from '../proxy/test/store/redis-server.js'",
      "const index = await import('../proxy/src/index.js')",
      "import { growthRows } from './growth.js'",
      "import { RedisStore } from '@gatehouse/proxy/store/redis'",
    ].join('\n')
    expect(crossWorkspaceImportsOf('bench', 'store.ts', text)).toEqual([
      'bench/store.ts → proxy/src/store/memory.js',
      'bench/store.ts → proxy/test/store/redis-server.js',
      'bench/store.ts → proxy/src/index.js',
    ])
  })
})
