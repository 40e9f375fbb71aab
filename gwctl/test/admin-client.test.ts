import { describe, expect, it } from 'vitest'
import { formatAdminAddress, parseAdminAddress, resolveAdminAddress } from '../src/admin-client.js'
import { GwctlError } from '../src/errors.js'

describe('resolveAdminAddress', () => {
  it('assumes 127.0.0.1:15000 without -p or --admin', () => {
    expect(resolveAdminAddress({})).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 15000 })
  })

  it('uses -p as a port on 127.0.0.1', () => {
    expect(resolveAdminAddress({ port: '15001' })).toEqual({
      kind: 'tcp',
      host: '127.0.0.1',
      port: 15001,
    })
  })

  it('prefers --admin over -p', () => {
    expect(resolveAdminAddress({ port: '15001', admin: 'localhost:9901' })).toEqual({
      kind: 'tcp',
      host: 'localhost',
      port: 9901,
    })
  })

  it.each(['0', '65536', 'abc', '15000x'])('rejects -p %s as a usage error', (port) => {
    const err = (() => {
      try {
        resolveAdminAddress({ port })
      } catch (e) {
        return e
      }
    })()
    expect(err).toBeInstanceOf(GwctlError)
    expect((err as GwctlError).exitCode).toBe(2)
  })
})

describe('parseAdminAddress', () => {
  it('reads unix:/path', () => {
    expect(parseAdminAddress('unix:/run/gh.sock')).toEqual({ kind: 'unix', path: '/run/gh.sock' })
  })

  it('reads the http:// URL gatehouse prints at start-up', () => {
    expect(parseAdminAddress('http://127.0.0.1:15000/')).toEqual({
      kind: 'tcp',
      host: '127.0.0.1',
      port: 15000,
    })
  })

  it('reads a bracketed IPv6 host', () => {
    expect(formatAdminAddress(parseAdminAddress('[::1]:15000'))).toBe('[::1]:15000')
  })

  it.each(['15000', 'unix:', 'host:', 'a:b:c'])('rejects %s with the accepted forms', (value) => {
    expect(() => parseAdminAddress(value)).toThrow(/expected/)
  })
})
