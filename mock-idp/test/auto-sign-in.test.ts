/** autoSignIn: the authorize endpoint answers a scripted client with its redirect at once. */
import { decodeJwt } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockIdp, startMockIdp } from '../src/index.js'
import { authorizeRequest } from './helpers.js'

let idp: MockIdp

beforeAll(async () => {
  idp = await startMockIdp({ autoSignIn: 'alice' })
})
afterAll(async () => {
  await idp.stop()
})

const REDIRECT = 'http://localhost:3000/callback'

function authorizeUrl(server: MockIdp, extra: Record<string, string> = {}) {
  return authorizeRequest(server.issuer, {
    client_id: server.publicClientId,
    redirect_uri: REDIRECT,
    scope: 'openid profile',
    state: 'st-auto',
    ...extra,
  })
}

/** What the official conformance suite's clients do: one GET, read the Location. */
async function oneHop(url: URL): Promise<Response> {
  return fetch(url, { redirect: 'manual' })
}

async function redeem(server: MockIdp, code: string, verifier: string) {
  const res = await fetch(`${server.issuer}/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: server.publicClientId,
      code_verifier: verifier,
    }),
  })
  expect(res.status).toBe(200)
  return decodeJwt(((await res.json()) as { access_token: string }).access_token)
}

describe('autoSignIn', () => {
  it('answers the authorization request itself with the redirect back to the client (code, state, iss)', async () => {
    const { url, verifier } = authorizeUrl(idp)
    const res = await oneHop(url)
    expect(res.status).toBe(303)
    const back = new URL(res.headers.get('location') ?? '')
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT)
    expect(back.searchParams.get('state')).toBe('st-auto')
    expect(back.searchParams.get('iss')).toBe(idp.issuer)
    // No cookie reaches the client: the IdP played the browser on its own.
    expect(res.headers.getSetCookie()).toEqual([])
    const claims = await redeem(idp, back.searchParams.get('code') ?? '', verifier)
    expect(claims.sub).toBe('alice')
  })

  it('processes a request without scope with the default scope openid (RFC 6749 §3.3)', async () => {
    const { url, verifier } = authorizeUrl(idp)
    url.searchParams.delete('scope')
    const res = await oneHop(url)
    const back = new URL(res.headers.get('location') ?? '')
    expect(back.searchParams.get('error')).toBeNull()
    const claims = await redeem(idp, back.searchParams.get('code') ?? '', verifier)
    expect(claims.scp).toEqual(['openid'])
  })

  it('signs in the known user a login_hint names instead', async () => {
    const { url, verifier } = authorizeUrl(idp, { login_hint: 'bob' })
    const back = new URL((await oneHop(url)).headers.get('location') ?? '')
    expect((await redeem(idp, back.searchParams.get('code') ?? '', verifier)).sub).toBe('bob')
  })

  it('passes the flow’s own error redirect on (a request without PKCE)', async () => {
    const { url } = authorizeUrl(idp)
    url.searchParams.delete('code_challenge')
    url.searchParams.delete('code_challenge_method')
    const res = await oneHop(url)
    expect(res.status).toBe(303)
    const back = new URL(res.headers.get('location') ?? '')
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT)
    expect(back.searchParams.get('error')).toBe('invalid_request')
    expect(back.searchParams.get('code')).toBeNull()
  })

  it('passes an error page on when the redirect URI is not the client’s', async () => {
    const { url } = authorizeUrl(idp, { redirect_uri: 'https://evil.example/cb' })
    const res = await oneHop(url)
    expect(res.status).toBe(400)
    expect(res.headers.get('location')).toBeNull()
  })

  it('is refused for a user the directory does not have, and outside test mode', async () => {
    await expect(startMockIdp({ autoSignIn: 'mallory' })).rejects.toThrow(
      'autoSignIn: "mallory" is not a user of the directory',
    )
    await expect(startMockIdp({ autoSignIn: 'alice', testMode: false })).rejects.toThrow(
      'autoSignIn: signs users in without a page, so it needs test mode (testMode: true)',
    )
  })

  it('is off by default: the authorization request goes to the sign-in interaction', async () => {
    const plain = await startMockIdp()
    try {
      const res = await oneHop(authorizeUrl(plain).url)
      expect(res.status).toBe(303)
      expect(res.headers.get('location')).toMatch(/\/oauth2\/default\/interaction\//)
    } finally {
      await plain.stop()
    }
  })
})
