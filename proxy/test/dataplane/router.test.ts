/**
 * createRouter (proxy/src/dataplane/router.ts): Gateway API path precedence — an `Exact` match
 * beats any prefix, the longest prefix wins, and a `PathPrefix` matches whole path elements only.
 * RouterBuilder: the same table, built one entry at a time (a large reload adds them between turns
 * of the event loop).
 */
import { describe, expect, it } from 'vitest'
import { createRouter, type RouteEntry, RouterBuilder } from '../../src/dataplane/router.js'

const prefix = (value: string, target = value): RouteEntry<string> => ({
  type: 'PathPrefix',
  value,
  target,
})
const exact = (value: string, target = `=${value}`): RouteEntry<string> => ({
  type: 'Exact',
  value,
  target,
})

function target(entries: RouteEntry<string>[], path: string): string | undefined {
  return createRouter(entries).match(path)?.entry.target
}

describe('createRouter', () => {
  it('matches a PathPrefix on whole path elements only', () => {
    const entries = [prefix('/mcp')]
    expect(target(entries, '/mcp')).toBe('/mcp')
    expect(target(entries, '/mcp/')).toBe('/mcp')
    expect(target(entries, '/mcp/x/y')).toBe('/mcp')
    expect(target(entries, '/mcpx')).toBeUndefined()
    expect(target(entries, '/mc')).toBeUndefined()
    expect(target(entries, '/other/mcp')).toBeUndefined()
  })

  it('treats a prefix written with a trailing slash as the same element', () => {
    const entries = [prefix('/mcp/')]
    expect(target(entries, '/mcp')).toBe('/mcp/')
    expect(target(entries, '/mcp/tools')).toBe('/mcp/')
    expect(target(entries, '/mcpx')).toBeUndefined()
  })

  it('lets the prefix / match every path', () => {
    const entries = [prefix('/')]
    for (const path of ['/', '/mcp', '/a/b/c']) expect(target(entries, path)).toBe('/')
  })

  it('prefers the longest prefix, whatever the order of the entries', () => {
    const entries = [prefix('/'), prefix('/api'), prefix('/api/mcp')]
    expect(target(entries, '/api/mcp/x')).toBe('/api/mcp')
    expect(target(entries, '/api/other')).toBe('/api')
    expect(target(entries, '/elsewhere')).toBe('/')
    expect(target([...entries].reverse(), '/api/mcp/x')).toBe('/api/mcp')
  })

  it('prefers an Exact match to any prefix, and an Exact match is exact', () => {
    const entries = [prefix('/mcp'), exact('/mcp')]
    expect(target(entries, '/mcp')).toBe('=/mcp')
    expect(target(entries, '/mcp/')).toBe('/mcp')
    expect(target([exact('/mcp')], '/mcp/')).toBeUndefined()
    expect(target([exact('/mcp')], '/MCP')).toBeUndefined()
  })

  it('keeps the first of two entries for the same path (configuration order)', () => {
    expect(target([exact('/a', 'first'), exact('/a', 'second')], '/a')).toBe('first')
    expect(target([prefix('/a', 'first'), prefix('/a', 'second')], '/a/b')).toBe('first')
  })

  it('matches nothing when no entry applies', () => {
    expect(target([], '/mcp')).toBeUndefined()
    expect(target([prefix('/a'), exact('/b')], '/c')).toBeUndefined()
  })
})

describe('createRouter at scale', () => {
  /** The rule as the Gateway API states it: Exact first, then the longest matching prefix. */
  function reference(entries: RouteEntry<string>[], path: string): string | undefined {
    const hit = entries.find((e) => e.type === 'Exact' && e.value === path)
    if (hit) return hit.target
    const matches = (prefix: string) => {
      if (prefix === '/') return true
      const p = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix
      return path.startsWith(p) && (path.length === p.length || path[p.length] === '/')
    }
    let best: RouteEntry<string> | undefined
    for (const e of entries) {
      if (e.type !== 'PathPrefix' || !matches(e.value)) continue
      if (!best || e.value.length > best.value.length) best = e
    }
    return best?.target
  }

  it('agrees with the longest-prefix rule on random entries and paths', () => {
    let seed = 7
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed % n
    }
    const parts = ['a', 'ab', 'b', '', 'mcp']
    const randomPath = () =>
      `/${Array.from({ length: 1 + random(4) }, () => parts[random(parts.length)]).join('/')}${random(4) === 0 ? '/' : ''}`
    for (let round = 0; round < 200; round++) {
      const entries = Array.from({ length: 1 + random(12) }, (_, i) => {
        const value = random(10) === 0 ? '/' : randomPath()
        return random(3) === 0 ? exact(value, `${i}=${value}`) : prefix(value, `${i}${value}`)
      })
      const router = createRouter(entries)
      for (let i = 0; i < 30; i++) {
        const path = randomPath()
        expect(router.match(path)?.entry.target, `${path} in ${JSON.stringify(entries)}`).toBe(
          reference(entries, path),
        )
      }
    }
  })

  it('finds a route among 10,000 by its path elements, not by walking them', () => {
    const entries = Array.from({ length: 10_000 }, (_, i) => prefix(`/t${i}/mcp`))
    const walked: string[] = []
    const watched = entries.map((e) => ({
      ...e,
      get value() {
        walked.push(e.value)
        return e.value
      },
    }))
    const router = createRouter(watched)
    walked.length = 0
    expect(router.match('/t9999/mcp/x')?.entry.target).toBe('/t9999/mcp')
    expect(router.match('/t5/other')).toBeUndefined()
    // Matching reads no entry: it looks its candidates up.
    expect(walked).toEqual([])
  })
})

describe('RouterBuilder', () => {
  it('picks the longer of two prefixes for one element, whichever was added first', () => {
    for (const entries of [
      [prefix('/mcp', 'short'), prefix('/mcp/', 'long')],
      [prefix('/mcp/', 'long'), prefix('/mcp', 'short')],
    ]) {
      const builder = new RouterBuilder<string>()
      for (const e of entries) builder.add(e)
      const router = builder.build()
      expect(router.match('/mcp/x')?.entry.target).toBe('long')
      expect(router.match('/mcp')?.entry.target).toBe('long')
    }
  })

  it('keeps the first added of equal entries: Exact, PathPrefix and the prefix /', () => {
    const builder = new RouterBuilder<string>()
    for (const e of [
      exact('/a', 'exact first'),
      prefix('/b', 'prefix first'),
      prefix('/', 'root first'),
      exact('/a', 'exact second'),
      prefix('/b', 'prefix second'),
      prefix('/', 'root second'),
    ])
      builder.add(e)
    const router = builder.build()
    expect(router.match('/a')?.entry.target).toBe('exact first')
    expect(router.match('/b/c')?.entry.target).toBe('prefix first')
    expect(router.match('/z')?.entry.target).toBe('root first')
  })

  it('takes no entry after build, so that a built router never changes under its requests', () => {
    const builder = new RouterBuilder<string>()
    builder.add(prefix('/a'))
    const router = builder.build()
    expect(() => builder.add(prefix('/b'))).toThrow(/after build/)
    expect(router.match('/b')).toBeUndefined()
  })
})
