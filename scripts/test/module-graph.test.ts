/**
 * The module graph of proxy/src points one way (issue #15): no import cycle between files, and
 * none between its directories (auth/ and dataplane/ once imported each other's types).
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
