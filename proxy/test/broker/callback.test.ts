/**
 * `GET <issuer>/oauth/callback` (docs/design/broker.md), against the real mock-idp: the IdP leg's
 * state is one-time and bound to the browser that consented; the client gets a gateway code with
 * its state and iss = the gateway (RFC 9207); IdP errors are passed on (RFC 6749 §4.1.2.1); an
 * IdP that is down or hangs mid-flow gives the client a clear error, never a hang.
 */
import { controlClient } from '@gatehouse/mock-idp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Page, pkce, signInThroughBroker, TestBrowser } from './browser.js'
import { obtainCode } from './flow.js'
import { authorizationUrl, type BrokerStack, startBrokerStack } from './stack.js'

const REDIRECT = 'http://127.0.0.1:33418/callback'

/**
 * Plays the user up to the IdP's redirect back to the gateway, without following it.
 * @returns the browser and the callback URL the IdP sent it to
 */
async function upToCallback(
  stack: BrokerStack,
  login = 'alice',
): Promise<{ browser: TestBrowser; callback: URL }> {
  const browser = new TestBrowser()
  const atCallback = (to: URL) => to.pathname.endsWith('/oauth/callback')
  let page: Page = await browser.follow(
    authorizationUrl(stack, {
      state: 'st-cb',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    }),
    atCallback,
  )
  if (page.text.includes('name="decision"'))
    page = await browser.submit(page, { decision: 'approve' }, atCallback)
  if (page.text.includes('name="login"')) page = await browser.submit(page, { login }, atCallback)
  if (!page.location || !atCallback(page.location))
    throw new Error(`not at the callback: ${page.status} ${page.text.slice(0, 300)}`)
  return { browser, callback: page.location }
}

describe('broker callback', () => {
  let stack: BrokerStack
  beforeAll(async () => {
    stack = await startBrokerStack({ idpTimeout: '1s' })
  })
  afterAll(async () => {
    await stack?.stop()
  })

  it('returns a one-time gateway code with the client’s state and iss = the gateway (RFC 9207)', async () => {
    const { back, code } = await obtainCode(stack, 'alice')
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT)
    expect(back.searchParams.get('state')).toMatch(/^st-/)
    expect(back.searchParams.get('iss')).toBe(stack.issuer)
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })

  it('returns the client’s state exactly as sent, whatever its characters', async () => {
    const state = 'a b&c=d/é?#%20+'
    const browser = new TestBrowser()
    const back = await signInThroughBroker(
      browser,
      authorizationUrl(stack, {
        state,
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
      'alice',
      REDIRECT,
    )
    expect(back.searchParams.get('state')).toBe(state)
    expect(back.searchParams.get('code')).toBeTruthy()
  })

  it('the IdP’s own code and issuer never reach the client', async () => {
    const { browser, callback } = await upToCallback(stack)
    const idpCode = callback.searchParams.get('code')
    expect(callback.searchParams.get('iss')).toBe(stack.idp.issuer)
    const res = await browser.request(callback)
    const back = res.location as URL
    expect(back.searchParams.get('code')).not.toBe(idpCode)
    expect(back.searchParams.get('iss')).toBe(stack.issuer)
  })

  it('refuses a tampered IdP-leg state with a page, and sends nothing to the client', async () => {
    const { browser, callback } = await upToCallback(stack)
    const tampered = new URL(callback)
    const state = tampered.searchParams.get('state') ?? ''
    tampered.searchParams.set('state', state.slice(0, -1) + (state.endsWith('A') ? 'B' : 'A'))
    const res = await browser.request(tampered)
    expect(res.status).toBe(400)
    expect(res.location).toBeUndefined()
    // The genuine one still completes (a wrong state consumed nothing).
    const ok = await browser.request(callback)
    expect(ok.status).toBe(303)
    expect(ok.location?.searchParams.get('code')).toBeTruthy()
  })

  it('completes an IdP-leg state once', async () => {
    const { browser, callback } = await upToCallback(stack)
    expect((await browser.request(callback)).status).toBe(303)
    const again = await browser.request(callback)
    expect(again.status).toBe(400)
    expect(again.location).toBeUndefined()
  })

  it('refuses the IdP’s answer in a browser that did not consent (captured IdP URL, confused deputy)', async () => {
    const { callback } = await upToCallback(stack)
    // The attacker's captured URL, opened in a victim's browser: another binding cookie, or none.
    const victim = new TestBrowser()
    await victim.request(
      authorizationUrl(stack, {
        state: 'v',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
    )
    const res = await victim.request(callback)
    expect(res.status).toBe(403)
    expect(res.location).toBeUndefined()
    const none = await new TestBrowser().request(callback)
    expect([400, 403]).toContain(none.status)
    expect(none.location).toBeUndefined()
  })

  it('refuses an authorization response whose iss is not the IdP’s (RFC 9207 mix-up)', async () => {
    const { browser, callback } = await upToCallback(stack)
    const mixed = new URL(callback)
    mixed.searchParams.set('iss', 'https://attacker.example/oauth2/default')
    const res = await browser.request(mixed)
    const back = res.location as URL
    expect(back.searchParams.get('error')).toBe('server_error')
    expect(back.searchParams.get('error_description')).toContain('RFC 9207')
    expect(back.searchParams.get('code')).toBeNull()
  })

  it('IdP down mid-flow: the client gets temporarily_unavailable with its state, at once', async () => {
    const own = await startBrokerStack({ idpTimeout: '1s' })
    try {
      const { browser, callback } = await upToCallback(own)
      await own.idp.stop()
      const res = await browser.request(callback)
      expect(res.status).toBe(303)
      const back = res.location as URL
      expect(back.searchParams.get('error')).toBe('temporarily_unavailable')
      expect(back.searchParams.get('error_description')).toContain('token endpoint')
      expect(back.searchParams.get('error_description')).toContain('Try again in a few minutes')
      expect(back.searchParams.get('state')).toBe('st-cb')
      expect(back.searchParams.get('iss')).toBe(own.issuer)
      const logged = own.gh.logs.find((l) => l.code === 'GW_ERR_IDP_UNAVAILABLE')
      expect(String(logged?.msg)).toMatch(/^broker: code exchange at the IdP failed: /)
    } finally {
      await own.gh.stop('done')
      await own.backend.stop()
    }
  })

  it('IdP token endpoint hangs: the exchange is cut by the IdP backend’s timeout and the client told', async () => {
    const { browser, callback } = await upToCallback(stack)
    const control = controlClient(stack.idp.controlUrl)
    await control.setFault({ endpoint: 'token', mode: 'hang' })
    try {
      const res = await browser.request(callback)
      const back = res.location as URL
      expect(back.searchParams.get('error')).toBe('temporarily_unavailable')
      expect(back.searchParams.get('state')).toBe('st-cb')
    } finally {
      await control.clearFaults()
    }
  })
})

describe('broker callback with an IdP that refuses the request', () => {
  it('passes the IdP’s error on to the client (RFC 6749 §4.1.2.1) with the client’s state and iss', async () => {
    // An audience the IdP does not serve: it answers access_denied to the gateway's callback.
    const own = await startBrokerStack({ audience: 'api://not-this-server' })
    try {
      const { browser, callback } = await upToCallback(own)
      expect(callback.searchParams.get('error')).toBe('access_denied')
      const res = await browser.request(callback)
      const back = res.location as URL
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT)
      expect(back.searchParams.get('error')).toBe('access_denied')
      expect(back.searchParams.get('state')).toBe('st-cb')
      expect(back.searchParams.get('iss')).toBe(own.issuer)
      // The person is told what to do in the gateway's words; the IdP's text is for the log.
      const description = back.searchParams.get('error_description') ?? ''
      expect(description).toMatch(/did not allow this sign-in .*ask your administrator/)
      expect(description).not.toContain('Policy evaluation failed')
      const logged = own.gh.logs.find((l) => l.code === 'GW_ERR_IDP_SIGN_IN_FAILED')
      expect(logged).toMatchObject({ idpError: 'access_denied' })
      expect(String(logged?.idpDescription)).toContain('Policy evaluation failed')
    } finally {
      await own.stop()
    }
  })
})
