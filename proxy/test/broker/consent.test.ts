/**
 * The consent step of broker mode (docs/design/broker.md; MCP security best practices, "Confused
 * Deputy"): the form is CSRF-protected and answered once, approval is remembered per client,
 * redirect URI and scopes in a signed cookie, and denial goes back to the client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Page, pkce, TestBrowser } from './browser.js'
import { authorizationUrl, type BrokerStack, startBrokerStack } from './stack.js'

let stack: BrokerStack
let origin: string

beforeAll(async () => {
  stack = await startBrokerStack()
  origin = new URL(stack.issuer).origin
})
afterAll(async () => {
  await stack?.stop()
})

function url(extra: Record<string, string> = {}) {
  return authorizationUrl(stack, {
    state: 'st-c',
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    ...extra,
  })
}

/** The hidden fields of a consent page. */
function fields(page: Page): { request: string; csrf: string } {
  const request = /name="request" value="([^"]+)"/.exec(page.text)?.[1]
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1]
  if (!request || !csrf) throw new Error(`not a consent page: ${page.text.slice(0, 200)}`)
  return { request, csrf }
}

async function consentPage(browser: TestBrowser, extra?: Record<string, string>): Promise<Page> {
  const page = await browser.request(url(extra))
  expect(page.status).toBe(200)
  return page
}

function post(
  browser: TestBrowser,
  form: Record<string, string>,
  headers?: Record<string, string>,
) {
  return browser.request(`${stack.issuer}/oauth/consent`, { method: 'POST', form, headers })
}

describe('broker consent', () => {
  it('approve: on to the IdP with the gateway’s own client id, PKCE S256, state, audience and callback', async () => {
    const browser = new TestBrowser()
    const page = await consentPage(browser)
    const res = await post(browser, { ...fields(page), decision: 'approve' })
    expect(res.status).toBe(303)
    const to = res.location as URL
    expect(`${to.origin}${to.pathname}`).toBe(`${stack.idp.issuer}/v1/authorize`)
    const p = to.searchParams
    expect(p.get('client_id')).toBe('gatehouse-demo-client')
    expect(p.get('redirect_uri')).toBe(`${stack.issuer}/oauth/callback`)
    expect(p.get('code_challenge_method')).toBe('S256')
    expect(p.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(p.get('code_challenge')).not.toBe(new URL(url()).searchParams.get('code_challenge'))
    expect(p.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(p.get('state')).not.toBe('st-c')
    expect(p.get('audience')).toBe('api://default')
    expect(p.get('response_type')).toBe('code')
    // The remembered consent: signed, HttpOnly, SameSite=Lax, for the broker's paths only.
    const cookie = res.headers.get('set-cookie') ?? ''
    expect(cookie).toMatch(/^gatehouse_consent=[^;]+\.[A-Za-z0-9_-]{43};/)
    expect(cookie).toContain('HttpOnly')
    expect(cookie).toContain('SameSite=Lax')
    expect(cookie).toMatch(/Max-Age=\d+/)
  })

  it('deny: access_denied to the client with its state and iss, nobody sent to the IdP', async () => {
    const browser = new TestBrowser()
    const page = await consentPage(browser)
    const res = await post(browser, { ...fields(page), decision: 'deny' })
    expect(res.status).toBe(303)
    const back = res.location as URL
    expect(`${back.origin}${back.pathname}`).toBe('http://127.0.0.1:33418/callback')
    expect(back.searchParams.get('error')).toBe('access_denied')
    expect(back.searchParams.get('state')).toBe('st-c')
    expect(back.searchParams.get('iss')).toBe(stack.issuer)
    expect(res.headers.get('set-cookie')).toBeNull()
  })

  it('CSRF: a form posted from another browser (the attacker’s own fields) is refused', async () => {
    const attacker = new TestBrowser()
    const victim = new TestBrowser()
    const page = await consentPage(attacker)
    // The victim has a binding cookie of their own (they used the gateway before).
    await consentPage(victim)
    const res = await post(victim, { ...fields(page), decision: 'approve' })
    expect(res.status).toBe(403)
    expect(res.location).toBeUndefined()
    expect(res.text).toContain('CSRF')
  })

  it('CSRF: a form without the browser cookie, or with a tampered token, is refused', async () => {
    const browser = new TestBrowser()
    const page = await consentPage(browser)
    const f = fields(page)
    const bare = await new TestBrowser().request(`${stack.issuer}/oauth/consent`, {
      method: 'POST',
      form: { ...f, decision: 'approve' },
    })
    expect(bare.status).toBe(403)
    const flipped = f.csrf.slice(0, -1) + (f.csrf.endsWith('A') ? 'B' : 'A')
    const tampered = await post(browser, { ...f, csrf: flipped, decision: 'approve' })
    expect(tampered.status).toBe(403)
    // The genuine form still works afterwards: the refusals consumed nothing.
    const ok = await post(browser, { ...f, decision: 'approve' })
    expect(ok.status).toBe(303)
  })

  it('CSRF: a cross-origin post is refused by its Origin', async () => {
    const browser = new TestBrowser()
    const page = await consentPage(browser)
    const res = await post(
      browser,
      { ...fields(page), decision: 'approve' },
      { origin: 'https://evil.example' },
    )
    expect(res.status).toBe(403)
  })

  it('answers each consent form once', async () => {
    const browser = new TestBrowser()
    const f = fields(await consentPage(browser))
    expect((await post(browser, { ...f, decision: 'approve' })).status).toBe(303)
    const again = await post(browser, { ...f, decision: 'approve' })
    expect(again.status).toBe(400)
    expect(again.location).toBeUndefined()
  })

  it('remembers consent for that client and redirect URI, not for more scopes or another redirect URI', async () => {
    const browser = new TestBrowser()
    const f = fields(await consentPage(browser, { scope: 'openid' }))
    expect((await post(browser, { ...f, decision: 'approve' })).status).toBe(303)
    // Same client, same redirect URI, same scopes: straight on to the IdP.
    const again = await browser.request(url({ scope: 'openid' }))
    expect(again.status).toBe(303)
    expect(again.location?.toString()).toContain(`${stack.idp.issuer}/v1/authorize`)
    // More scopes, or another redirect URI: asked again.
    expect((await browser.request(url({ scope: 'openid profile' }))).status).toBe(200)
    const other = await browser.request(
      url({ scope: 'openid', redirect_uri: 'http://127.0.0.1:40000/cb' }),
    )
    expect(other.status).toBe(200)
  })

  it('does not accept a forged or altered consent cookie', async () => {
    const browser = new TestBrowser()
    const f = fields(await consentPage(browser, { scope: 'openid' }))
    await post(browser, { ...f, decision: 'approve' })
    const jar = browser.cookies(origin)
    const sealed = jar.get('gatehouse_consent') ?? ''
    const [payload, mac] = sealed.split('.')
    const list = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as Array<{
      c: string
    }>
    for (const a of list) a.c = 'another-client'
    jar.set(
      'gatehouse_consent',
      `${Buffer.from(JSON.stringify(list)).toString('base64url')}.${mac}`,
    )
    expect((await browser.request(url({ scope: 'openid' }))).status).toBe(200)
  })

  it('shows the page every time with consentTtl 0s', async () => {
    const own = await startBrokerStack({ broker: { authorization: { consentTtl: '0s' } } })
    try {
      const browser = new TestBrowser()
      const first = await browser.request(
        authorizationUrl(own, {
          state: 's',
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
        }),
      )
      const res = await browser.request(`${own.issuer}/oauth/consent`, {
        method: 'POST',
        form: { ...fields(first), decision: 'approve' },
      })
      expect(res.status).toBe(303)
      expect(res.headers.get('set-cookie')).toBeNull()
      const again = await browser.request(
        authorizationUrl(own, {
          state: 's',
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
        }),
      )
      expect(again.status).toBe(200)
    } finally {
      await own.stop()
    }
  })
})
