import { describe, expect, it } from 'vitest'
import { normalizePath, parseTarget } from '../../src/dataplane/target.js'

function path(url: string): string {
  const r = parseTarget(url)
  if (!r.ok) throw new Error(`refused ${url}: ${r.reason}`)
  return r.target.path
}

function refusal(url: string): string {
  const r = parseTarget(url)
  if (r.ok) throw new Error(`accepted ${url} as ${r.target.path}`)
  return r.reason
}

describe('parseTarget', () => {
  it('removes dot segments, plain or percent-encoded, before routing (RFC 3986 §5.2.4)', () => {
    for (const url of [
      '/healthz/../mcp',
      '/./mcp',
      '/%2e%2e/mcp',
      '/%2E%2E/mcp',
      '/.%2e/mcp',
      '/a/b/../../mcp',
      '/../../../mcp',
      '/mcp/./',
    ]) {
      expect(path(url).replace(/\/$/, ''), url).toBe('/mcp')
    }
  })

  it('merges runs of slashes, which some backends read as a host (//mcp)', () => {
    expect(path('//mcp')).toBe('/mcp')
    expect(path('/healthz//..//mcp')).toBe('/mcp')
    expect(path('///')).toBe('/')
  })

  it('keeps a trailing slash and the root as RFC 3986 does', () => {
    expect(path('/')).toBe('/')
    expect(path('/mcp/')).toBe('/mcp/')
    expect(path('/a/b/..')).toBe('/a/')
    expect(path('/..')).toBe('/')
  })

  it('decodes percent-encoded unreserved characters and upper-cases other escapes (RFC 3986 §6.2.2)', () => {
    expect(path('/%6Dcp')).toBe('/mcp')
    expect(path('/m%63p/%7euser')).toBe('/mcp/~user')
    expect(path('/caf%c3%a9')).toBe('/caf%C3%A9')
    expect(path('/a%20b')).toBe('/a%20b')
  })

  it('refuses what backends read in different ways', () => {
    expect(refusal('/healthz\\..\\mcp')).toContain('backslash')
    expect(refusal('/healthz%5c..%5cmcp')).toContain('%5c')
    expect(refusal('/healthz%2f..%2fmcp')).toContain('%2f')
    expect(refusal('/healthz%2F..%2Fmcp')).toContain('%2F')
    expect(refusal('/mcp%00.json')).toContain('NUL')
    expect(refusal('/%252e%252e/mcp')).toContain('double-encoded')
    expect(refusal('/healthz/..;/mcp')).toContain(';')
    expect(refusal('/healthz/%2e%2e;x/mcp')).toContain(';')
    expect(refusal('/a%zz')).toContain('malformed')
    expect(refusal('/a%2')).toContain('malformed')
    expect(refusal('/mcp#x')).toContain('fragment')
  })

  it('keeps the query untouched, dots and slashes included', () => {
    const r = parseTarget('/a/../mcp?next=/../x&y=%2e%2e')
    expect(r).toEqual({ ok: true, target: { path: '/mcp', query: '?next=/../x&y=%2e%2e' } })
  })

  it('routes an absolute-form target like origin-form and returns its authority (RFC 9112 §3.2.2)', () => {
    expect(parseTarget('http://Gateway.Example:3000/healthz/../mcp?x=1')).toEqual({
      ok: true,
      target: { path: '/mcp', query: '?x=1', authority: 'gateway.example:3000' },
    })
    expect(parseTarget('HTTPS://[::1]:8443')).toEqual({
      ok: true,
      target: { path: '/', query: '', authority: '[::1]:8443' },
    })
    expect(parseTarget('http://h?x')).toEqual({
      ok: true,
      target: { path: '/', query: '?x', authority: 'h' },
    })
  })

  it('refuses asterisk-form, other schemes, userinfo and empty hosts', () => {
    expect(refusal('*')).toContain('neither a path')
    expect(refusal('ftp://h/mcp')).toContain('neither a path')
    expect(refusal('mcp')).toContain('neither a path')
    expect(refusal('http://user@h/mcp')).toContain('userinfo')
    expect(refusal('http:///mcp')).toContain('no valid host')
  })
})

describe('normalizePath', () => {
  it('returns a path needing no work as it is', () => {
    expect(normalizePath('/mcp/tools')).toEqual({ ok: true, path: '/mcp/tools' })
    expect(normalizePath('/.well-known/oauth-protected-resource/mcp')).toEqual({
      ok: true,
      path: '/.well-known/oauth-protected-resource/mcp',
    })
  })
})
