/**
 * The admin browser guard (proxy/src/admin/browser-guard.ts) as a unit: which requests a page in
 * the operator's browser could send are refused, and that direct clients pass. Over HTTP, before
 * every endpoint: app.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { browserRefusal, requestAuthority } from '../../src/admin/browser-guard.js'

const HOST = '127.0.0.1:15000'

describe('browserRefusal', () => {
  it('lets curl, gwctl and the admin UI (same-origin, or typed in: none) through', () => {
    expect(browserRefusal({ url: '/memory', headers: { host: HOST } }, true)).toBeUndefined()
    for (const site of ['same-origin', 'none', 'Same-Origin']) {
      const headers = { host: HOST, origin: `http://${HOST}`, 'sec-fetch-site': site }
      expect(browserRefusal({ url: '/memory', headers }, true), site).toBeUndefined()
    }
  })

  it.each([
    ['another scheme', { origin: `https://${HOST}` }, 'cross-origin request from https://'],
    ['another port', { origin: 'http://127.0.0.1:3000' }, 'cross-origin request'],
    ['an opaque origin', { origin: 'null' }, 'cross-origin request from null'],
    ['cross-site fetch metadata', { 'sec-fetch-site': 'cross-site' }, 'Sec-Fetch-Site: cross-site'],
    ['same-site fetch metadata', { 'sec-fetch-site': 'same-site' }, 'Sec-Fetch-Site: same-site'],
  ])('refuses %s', (_what, extra: Record<string, string>, message) => {
    expect(browserRefusal({ url: '/memory', headers: { host: HOST, ...extra } }, true)).toContain(
      message,
    )
  })

  it('takes the authority of an absolute-form target over Host (RFC 9112 §3.2.2)', () => {
    const rebound = { url: 'http://evil.example:15000/memory', headers: { host: HOST } }
    expect(requestAuthority(rebound)).toBe('evil.example:15000')
    expect(browserRefusal(rebound, true)).toContain('Host "evil.example:15000" refused')
    // Off loopback the name is not judged, but an Origin is compared with that authority.
    expect(browserRefusal(rebound, false)).toBeUndefined()
    const origin = { ...rebound, headers: { host: HOST, origin: `http://${HOST}` } }
    expect(browserRefusal(origin, false)).toContain('cross-origin request')
  })
})
