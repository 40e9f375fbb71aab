/** The broker's cookies (`proxy/src/broker/cookies.ts`). */
import { describe, expect, it } from 'vitest'
import { BrokerCookies, readCookie } from '../../src/broker/cookies.js'

describe('broker cookies', () => {
  it('are __Host- cookies on an https issuer: Secure, Path=/', () => {
    const c = new BrokerCookies('https://mcp.example.com/mcp')
    expect(c.browserName).toBe('__Host-gatehouse_broker')
    expect(c.set(c.consentName, 'v', 60)).toBe(
      '__Host-gatehouse_consent=v; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=60',
    )
  })

  it('are limited to the broker’s paths on an http (loopback) issuer', () => {
    const c = new BrokerCookies('http://127.0.0.1:3000/mcp')
    expect(c.set(c.browserName, 'v')).toBe(
      'gatehouse_broker=v; Path=/mcp/oauth/; HttpOnly; SameSite=Lax',
    )
  })

  it('reads one cookie, and trusts none of two different values under one name', () => {
    expect(readCookie({ cookie: 'a=1; gatehouse_broker=x; b=2' }, 'gatehouse_broker')).toBe('x')
    expect(
      readCookie({ cookie: 'gatehouse_broker=x; gatehouse_broker=x' }, 'gatehouse_broker'),
    ).toBe('x')
    expect(
      readCookie({ cookie: 'gatehouse_broker=x; gatehouse_broker=y' }, 'gatehouse_broker'),
    ).toBeUndefined()
    expect(readCookie({}, 'gatehouse_broker')).toBeUndefined()
    expect(readCookie({ cookie: 'xgatehouse_broker=1' }, 'gatehouse_broker')).toBeUndefined()
  })
})
