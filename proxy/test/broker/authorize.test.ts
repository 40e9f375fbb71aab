/**
 * `GET <issuer>/oauth/authorize` in broker mode (docs/design/broker.md), over real HTTP against
 * gatehouse and mock-idp: what is refused with a page (never a redirect to an unverified URI),
 * what goes back to the client as an error, and that nobody is sent to the IdP before consent.
 */
import { controlClient } from '@gatehouse/mock-idp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pkce, TestBrowser } from './browser.js'
import { authorizationUrl, type BrokerStack, startBrokerStack } from './stack.js'

let stack: BrokerStack

beforeAll(async () => {
  stack = await startBrokerStack()
})
afterAll(async () => {
  await stack?.stop()
})

const REDIRECT = 'http://127.0.0.1:33418/callback'

function validParams(extra: Record<string, string | undefined> = {}) {
  return {
    state: 'st-1',
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    ...extra,
  }
}

async function get(url: URL) {
  const res = await fetch(url, { redirect: 'manual' })
  return { res, text: await res.text(), location: res.headers.get('location') }
}

/** Asserts an error redirect to the client with state and iss = the gateway (RFC 9207). */
function expectClientError(location: string | null, error: string, state: string | null = 'st-1') {
  expect(location).not.toBeNull()
  const back = new URL(location ?? '')
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT)
  expect(back.searchParams.get('error')).toBe(error)
  expect(back.searchParams.get('error_description')).toBeTruthy()
  expect(back.searchParams.get('state')).toBe(state)
  expect(back.searchParams.get('iss')).toBe(stack.issuer)
}

describe('broker /authorize', () => {
  it('shows a consent page naming the client, the redirect host and the scopes, all escaped', async () => {
    const { res, text } = await get(
      authorizationUrl(stack, validParams({ scope: 'openid <script>alert(1)</script>' })),
    )
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    expect(res.headers.get('x-frame-options')).toBe('DENY')
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(text).toContain('gatehouse-demo-client')
    expect(text).toContain('http://127.0.0.1:33418')
    expect(text).toContain('<code>openid</code>')
    expect(text).toContain('&#60;script&#62;alert(1)&#60;/script&#62;')
    expect(text).not.toContain('<script>')
    expect(text).toContain(`action="${stack.issuer}/oauth/consent"`)
    // The browser-binding cookie the consent form's CSRF token is bound to.
    const cookie = res.headers.get('set-cookie') ?? ''
    expect(cookie).toMatch(/^gatehouse_broker=[A-Za-z0-9_-]{43};/)
    expect(cookie).toContain('HttpOnly')
    expect(cookie).toContain('SameSite=Lax')
    expect(cookie).toContain('Path=/mcp/oauth/')
  })

  it('takes a request without state (PKCE S256 binds the code; RFC 9700 §4.7.1) to the consent page', async () => {
    const { res, text } = await get(authorizationUrl(stack, validParams({ state: undefined })))
    expect(res.status).toBe(200)
    expect(res.headers.get('location')).toBeNull()
    expect(text).toContain(`action="${stack.issuer}/oauth/consent"`)
  })

  it('sends nobody to the IdP before the user consented', async () => {
    const control = controlClient(stack.idp.controlUrl)
    await control.clearRequests()
    const { res } = await get(authorizationUrl(stack, validParams()))
    expect(res.status).toBe(200)
    expect(res.headers.get('location')).toBeNull()
    const atIdp = (await control.requests()).filter((r) => r.path.endsWith('/v1/authorize'))
    expect(atIdp).toEqual([])
  })

  it('refuses an unknown client with a page, never a redirect', async () => {
    const { res, text, location } = await get(
      authorizationUrl(stack, validParams({ client_id: 'nobody-registered-me' })),
    )
    expect(res.status).toBe(400)
    expect(location).toBeNull()
    expect(text).toContain('nobody-registered-me')
    expect(text).toContain('is not registered')
  })

  it('never redirects to a redirect URI the client did not register (open redirect)', async () => {
    for (const evil of [
      'https://evil.example/callback',
      'http://evil.example:33418/callback',
      'javascript:alert(1)',
    ]) {
      const { res, text, location } = await get(
        authorizationUrl(stack, validParams({ redirect_uri: evil, response_type: 'token' })),
      )
      expect(res.status, evil).toBe(400)
      expect(location, evil).toBeNull()
      expect(text).toContain('Redirect URI not registered')
    }
  })

  it('refuses plain PKCE, and a request without code_challenge_method (plain by default)', async () => {
    const plain = await get(
      authorizationUrl(
        stack,
        validParams({ code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' }),
      ),
    )
    expectClientError(plain.location, 'invalid_request')
    expect(new URL(plain.location ?? '').searchParams.get('error_description')).toContain('S256')
    const absent = await get(
      authorizationUrl(stack, validParams({ code_challenge_method: undefined })),
    )
    expectClientError(absent.location, 'invalid_request')
  })

  it('refuses a request without code_challenge (PKCE is required)', async () => {
    const { location } = await get(
      authorizationUrl(
        stack,
        validParams({ code_challenge: undefined, code_challenge_method: undefined }),
      ),
    )
    expectClientError(location, 'invalid_request')
    expect(new URL(location ?? '').searchParams.get('error_description')).toContain('PKCE')
  })

  it('refuses a resource other than the gateway’s (RFC 8707 invalid_target)', async () => {
    const { location } = await get(
      authorizationUrl(stack, validParams({ resource: 'https://other.example/mcp' })),
    )
    expectClientError(location, 'invalid_target')
  })

  it('accepts the resource with a trailing slash and without one', async () => {
    for (const resource of [stack.issuer, `${stack.issuer}/`]) {
      const { res } = await get(authorizationUrl(stack, validParams({ resource })))
      expect(res.status, resource).toBe(200)
    }
  })

  it('refuses a response_type other than code', async () => {
    const { location } = await get(authorizationUrl(stack, validParams({ response_type: 'token' })))
    expectClientError(location, 'unsupported_response_type')
  })

  it('refuses a repeated parameter with a page (two redirect_uris must not split check and use)', async () => {
    const url = authorizationUrl(stack, validParams())
    url.searchParams.append('redirect_uri', 'https://evil.example/cb')
    const { res, location } = await get(url)
    expect(res.status).toBe(400)
    expect(location).toBeNull()
  })

  it('answers 405 to a POST and a local 404 to an unknown path under <issuer>/oauth/', async () => {
    const post = await fetch(stack.authorizeUrl, { method: 'POST' })
    expect(post.status).toBe(405)
    const unknown = await fetch(`${stack.issuer}/oauth/nothing-here`)
    expect(unknown.status).toBe(404)
    expect(((await unknown.json()) as { error: string }).error).toBe('not_found')
    const atBackend = await (await fetch(`${stack.backend.origin}/__requests`)).text()
    expect(atBackend).not.toContain('nothing-here')
  })

  it('keeps a browser its binding cookie across requests', async () => {
    const browser = new TestBrowser()
    await browser.request(authorizationUrl(stack, validParams()))
    const first = browser.cookies(new URL(stack.issuer).origin).get('gatehouse_broker')
    const again = await browser.request(authorizationUrl(stack, validParams()))
    expect(again.headers.get('set-cookie')).toBeNull()
    expect(browser.cookies(new URL(stack.issuer).origin).get('gatehouse_broker')).toBe(first)
  })
})
