/**
 * The module graph of proxy/src points one way (issue #15): no import cycle between files, and
 * none between its directories (auth/ and dataplane/ once imported each other's types). Each
 * directory and root file sits in a layer (CONTRIBUTING, "Adding a policy feature") and imports
 * only from lower layers (issue #27): cli → index → compile → admin, dataplane → auth, mcp → http
 * → config → telemetry, with errors.ts and version.ts under everything.
 * Type-only imports count: they couple modules as much as value imports do.
 */
import { readdirSync, readFileSync } from 'node:fs'
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
  const top = (f: string) => (f.includes('/') ? f.split('/')[0] : undefined)
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
 * or root file must be placed here. broker/ and store/ are the token broker's (issue #22).
 */
const LAYERS: readonly (readonly string[])[] = [
  ['cli.ts'],
  ['index.ts', 'cluster'],
  ['live-runtime.ts', 'reload.ts'],
  ['compile.ts'],
  ['admin', 'dataplane'],
  ['broker'],
  ['auth', 'mcp'],
  ['http', 'store'],
  ['config'],
  ['telemetry'],
  ['errors.ts', 'version.ts'],
]

/** The top-level directory or root file of a path relative to proxy/src (`..` when outside). */
function unitOf(file: string): string {
  return normalize(file).split('/')[0] as string
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
