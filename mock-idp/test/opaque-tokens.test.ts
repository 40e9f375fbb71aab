/**
 * The opaque-token shapes (`opaqueAccessTokens`): oidc-provider's opaque access tokens, judged by
 * its RFC 7662 introspection endpoint (client-authenticated) or, Google-shaped, by its UserInfo
 * endpoint; and the faults those two endpoints can be given through the control API.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { controlClient } from '../src/control-client.js'
import { type MockIdp, type MockIdpOptions, startMockIdp } from '../src/index.js'
import { authorizeRequest } from './helpers.js'

const started: MockIdp[] = []
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()))
})

const REDIRECT = 'http://127.0.0.1:4711/callback'

async function idpWith(options: MockIdpOptions): Promise<MockIdp> {
  const idp = await startMockIdp({ autoSignIn: 'alice', ...options })
  started.push(idp)
  return idp
}

/** An access token for alice from a code flow with the public client. */
async function accessToken(idp: MockIdp, issuer = idp.issuer): Promise<string> {
  const { url, verifier } = authorizeRequest(issuer, {
    client_id: idp.publicClientId,
    redirect_uri: REDIRECT,
    scope: 'openid profile',
  })
  const answer = await fetch(url, { redirect: 'manual' })
  const location = answer.headers.get('location')
  const code = location ? new URL(location).searchParams.get('code') : null
  if (!code) throw new Error(`no code: HTTP ${answer.status} ${location ?? ''}`)
  const res = await fetch(`${issuer}/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: idp.publicClientId,
    }),
  })
  const body = (await res.json()) as { access_token: string }
  return body.access_token
}

/** RFC 7662 introspection of `token` with the given credentials. */
async function introspect(
  idp: MockIdp,
  token: string,
  auth: { basic: [string, string] } | { post: [string, string] },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new URLSearchParams({ token })
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' }
  if ('basic' in auth) {
    headers.authorization = `Basic ${Buffer.from(auth.basic.join(':')).toString('base64')}`
  } else {
    form.set('client_id', auth.post[0])
    form.set('client_secret', auth.post[1])
  }
  const res = await fetch(`${idp.issuer}/v1/introspect`, { method: 'POST', headers, body: form })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

describe('opaqueAccessTokens: introspection', () => {
  it('issues opaque tokens that introspection describes with aud, iss, exp and groups', async () => {
    const idp = await idpWith({ opaqueAccessTokens: 'introspection' })
    const token = await accessToken(idp)
    expect(token.split('.')).toHaveLength(1)
    const { clientId, clientSecret } = idp.serviceClient
    const { status, body } = await introspect(idp, token, { basic: [clientId, clientSecret] })
    expect(status).toBe(200)
    expect(body).toMatchObject({
      active: true,
      aud: 'api://default',
      iss: idp.issuer,
      sub: 'alice',
      groups: ['AI-Users', 'Everyone'],
      token_type: 'Bearer',
    })
    expect(body.exp).toBeGreaterThan(Date.now() / 1000)
    expect(Object.values(body)).not.toContain(token)
  })

  it('answers client_secret_post for a client registered with it, and 401 to wrong credentials', async () => {
    const idp = await idpWith({
      opaqueAccessTokens: 'introspection',
      clients: [
        {
          clientId: 'rs',
          clientSecret: 'rs-secret',
          tokenEndpointAuthMethod: 'client_secret_post',
        },
      ],
    })
    const token = await accessToken(idp)
    expect((await introspect(idp, token, { post: ['rs', 'rs-secret'] })).body.active).toBe(true)
    expect((await introspect(idp, token, { post: ['rs', 'wrong'] })).status).toBe(401)
  })

  it('makes introspection fail on demand, and recover', async () => {
    const idp = await idpWith({ opaqueAccessTokens: 'introspection' })
    const token = await accessToken(idp)
    await controlClient(idp.controlUrl).setFault({
      endpoint: 'introspection',
      mode: 'error',
      status: 502,
    })
    const { clientId, clientSecret } = idp.serviceClient
    expect((await introspect(idp, token, { basic: [clientId, clientSecret] })).status).toBe(502)
    await controlClient(idp.controlUrl).clearFaults()
    expect((await introspect(idp, token, { basic: [clientId, clientSecret] })).status).toBe(200)
  })
})

describe('opaqueAccessTokens: userinfo (Google-shaped)', () => {
  it('issues opaque tokens without audience that UserInfo answers with the user claims', async () => {
    const idp = await idpWith({ opaqueAccessTokens: 'userinfo' })
    const token = await accessToken(idp)
    expect(token.split('.')).toHaveLength(1)
    const res = await fetch(`${idp.issuer}/v1/userinfo`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ sub: 'alice', groups: ['AI-Users', 'Everyone'] })
    const bad = await fetch(`${idp.issuer}/v1/userinfo`, {
      headers: { authorization: 'Bearer not-a-token' },
    })
    expect(bad.status).toBe(401)
  })

  it('makes UserInfo fail on demand', async () => {
    const idp = await idpWith({ opaqueAccessTokens: 'userinfo' })
    const token = await accessToken(idp)
    await controlClient(idp.controlUrl).setFault({
      endpoint: 'userinfo',
      mode: 'error',
      status: 500,
    })
    const res = await fetch(`${idp.issuer}/v1/userinfo`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(res.status).toBe(500)
  })
})

describe('opaqueAccessTokens per authorization server', () => {
  it('issues opaque client-credentials tokens with their own lifetime on one server, JWTs on the other', async () => {
    const idp = await idpWith({
      authServers: [
        { id: 'default', audience: 'api://default' },
        {
          id: 'opaque',
          audience: 'api://opaque',
          opaqueAccessTokens: 'introspection',
          accessTokenTtlSeconds: 5,
        },
      ],
    })
    expect((await accessToken(idp)).split('.')).toHaveLength(3)
    const { clientId, clientSecret } = idp.serviceClient
    const basic = Buffer.from(`${clientId}:${clientSecret}`).toString('base64')
    const res = await fetch(`${idp.issuerFor('opaque')}/v1/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${basic}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'openid' }),
    })
    const body = (await res.json()) as { access_token: string; expires_in: number }
    expect(body.access_token.split('.')).toHaveLength(1)
    expect(body.expires_in).toBe(5)
    const answer = await fetch(`${idp.issuerFor('opaque')}/v1/introspect`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${basic}`,
      },
      body: new URLSearchParams({ token: body.access_token }),
    })
    expect(await answer.json()).toMatchObject({ active: true, aud: 'api://opaque' })
  })
})
