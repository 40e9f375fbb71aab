/**
 * createRouter (proxy/src/dataplane/router.ts): Gateway API path precedence — an `Exact` match
 * beats any prefix, the longest prefix wins, and a `PathPrefix` matches whole path elements only.
 */
import { describe, expect, it } from 'vitest'
import { createRouter, type RouteEntry } from '../../src/dataplane/router.js'

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
