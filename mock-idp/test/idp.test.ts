/** mock-idp over real HTTP: the shape of the bridged IdP, its gaps, the flow and the control API. */
import { createHash, randomBytes } from 'node:crypto'
import { get } from 'node:https'
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authorizeHeadless, controlClient, type MockIdp, startMockIdp } from '../src/index.js'

let idp: MockIdp
let control: ReturnType<typeof controlClient>

beforeAll(async () => {
  idp = await startMockIdp()
  control = controlClient(idp.controlUrl)
})
afterAll(async () => {
  await idp.stop()
})

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

function authorizeUrl(challenge: string, extra: Record<string, string> = {}): URL {
  const url = new URL(`${idp.issuer}/v1/authorize`)
  url.search = new URLSearchParams({
    client_id: idp.publicClientId,
    response_type: 'code',
    redirect_uri: 'http://127.0.0.1:53682/callback',
    scope: 'openid profile',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-1',
    ...extra,
  }).toString()
  return url
}

async function codeFlow(login: string, extra: Record<string, string> = {}): Promise<string> {
  return (await codeFlowTokens(login, extra)).access_token
}

/** The whole token response of a headless authorization-code + PKCE flow. */
async function codeFlowTokens(
  login: string,
  extra: Record<string, string> = {},
): Promise<{ access_token: string; refresh_token?: string; scope: string }> {
  const { verifier, challenge } = pkce()
  const back = await authorizeHeadless(authorizeUrl(challenge, extra), { loginHint: login })
  expect(back.origin).toBe('http://127.0.0.1:53682')
  expect(back.searchParams.get('state')).toBe('st-1')
  const res = await fetch(`${idp.issuer}/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: back.searchParams.get('code') ?? '',
      redirect_uri: 'http://127.0.0.1:53682/callback',
      client_id: idp.publicClientId,
      code_verifier: verifier,
      ...(extra.resource ? { resource: extra.resource } : {}),
    }),
  })
  expect(res.status).toBe(200)
  return (await res.json()) as { access_token: string; refresh_token?: string; scope: string }
}

describe('discovery and keys (seed: "Configuration variables used by the setup")', () => {
  it('publishes OIDC discovery under the issuer with an org-relative registration endpoint', async () => {
    const doc = (await (await fetch(idp.discoveryUrl)).json()) as Record<string, unknown>
    expect(doc).toMatchObject({
      issuer: `${idp.orgUrl}/oauth2/default`,
      jwks_uri: `${idp.orgUrl}/oauth2/default/v1/keys`,
      authorization_endpoint: `${idp.orgUrl}/oauth2/default/v1/authorize`,
      token_endpoint: `${idp.orgUrl}/oauth2/default/v1/token`,
      registration_endpoint: `${idp.orgUrl}/oauth2/v1/clients`,
      code_challenge_methods_supported: ['S256'],
    })
  })

  it('has the gaps: no /.well-known/jwks.json, no RFC 8414 path form', async () => {
    for (const path of [
      '/.well-known/jwks.json',
      '/oauth2/default/.well-known/jwks.json',
      '/.well-known/oauth-authorization-server/oauth2/default',
    ]) {
      expect((await fetch(`${idp.orgUrl}${path}`)).status, path).toBe(404)
    }
    const keys = (await (await fetch(idp.jwksUri)).json()) as {
      keys: Array<{ kid: string; d?: string }>
    }
    expect(keys.keys.length).toBeGreaterThanOrEqual(1)
    expect(keys.keys.every((k) => k.kid && k.d === undefined)).toBe(true)
  })
})

describe('authorization code + PKCE, headless', () => {
  it('issues a JWT access token for alice with groups, verifiable against /v1/keys', async () => {
    const token = await codeFlow('alice')
    const { payload, protectedHeader } = await jwtVerify(
      token,
      createRemoteJWKSet(new URL(idp.jwksUri)),
      {
        issuer: idp.issuer,
        audience: 'api://default',
      },
    )
    expect(protectedHeader.alg).toBe('RS256')
    expect(protectedHeader.kid).toBeTruthy()
    expect(payload).toMatchObject({
      sub: 'alice',
      cid: idp.publicClientId,
      uid: '00u-alice',
      groups: ['AI-Users', 'Everyone'],
    })
    expect(payload.scp).toEqual(expect.arrayContaining(['openid']))
  })

  it('issues a refresh token for offline_access that yields a new access token for the same user', async () => {
    const first = await codeFlowTokens('alice', {
      scope: 'openid offline_access',
      prompt: 'consent',
    })
    expect(first.scope.split(' ')).toContain('offline_access')
    expect(first.refresh_token).toBeTruthy()
    const res = await fetch(`${idp.issuer}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token ?? '',
        client_id: idp.publicClientId,
      }),
    })
    expect(res.status).toBe(200)
    const refreshed = (await res.json()) as { access_token: string }
    expect(refreshed.access_token).not.toBe(first.access_token)
    const { payload } = await jwtVerify(
      refreshed.access_token,
      createRemoteJWKSet(new URL(idp.jwksUri)),
      { issuer: idp.issuer, audience: 'api://default' },
    )
    expect(payload).toMatchObject({ sub: 'alice', groups: ['AI-Users', 'Everyone'] })
  })

  it('ignores the resource parameter: aud stays the server audience (no RFC 8707)', async () => {
    const token = await codeFlow('bob', { resource: 'http://gateway.example/mcp' })
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(idp.jwksUri)))
    expect(payload.aud).toBe('api://default')
    expect(payload.groups).toEqual(['Everyone'])
  })

  it('refuses an audience parameter that is not the server audience', async () => {
    // Back to the client (RFC 6749 §4.1.2.1), as its redirect URI is registered.
    const res = await fetch(authorizeUrl(pkce().challenge, { audience: 'api://other' }), {
      redirect: 'manual',
    })
    expect(res.status).toBe(303)
    const back = new URL(res.headers.get('location') ?? '')
    expect(`${back.origin}${back.pathname}`).toBe('http://127.0.0.1:53682/callback')
    expect(back.searchParams.get('error')).toBe('access_denied')
    expect(back.searchParams.get('error_description')).toContain('"api://other"')
    expect(back.searchParams.get('state')).toBe('st-1')
    expect(back.searchParams.get('iss')).toBe(idp.issuer)
    // An unknown client or redirect URI gets an error page: never redirect to an unverified URI.
    const unverified: Record<string, string>[] = [
      { client_id: 'nobody' },
      { redirect_uri: 'https://evil.example/cb' },
    ]
    for (const extra of unverified) {
      const page = await fetch(
        authorizeUrl(pkce().challenge, { audience: 'api://other', ...extra }),
        { redirect: 'manual' },
      )
      expect(page.status).toBe(400)
      expect(((await page.json()) as { error: string }).error).toBe('access_denied')
    }
    const ok = await authorizeHeadless(
      authorizeUrl(pkce().challenge, { audience: 'api://default' }),
      { loginHint: 'alice' },
    )
    expect(ok.searchParams.get('code')).toBeTruthy()
  })

  it('shows a sign-in page when there is no login_hint', async () => {
    const first = await fetch(authorizeUrl(pkce().challenge), { redirect: 'manual' })
    expect(first.status).toBe(303)
    const cookies = first.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ')
    const page = await fetch(new URL(first.headers.get('location') ?? '', idp.orgUrl), {
      headers: { cookie: cookies },
    })
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<form method="post">')
  })

  it('issues client-credentials tokens without groups or user', async () => {
    const basic = Buffer.from(
      `${idp.serviceClient.clientId}:${idp.serviceClient.clientSecret}`,
    ).toString('base64')
    const res = await fetch(`${idp.issuer}/v1/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${basic}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'openid' }),
    })
    expect(res.status).toBe(200)
    const { payload } = await jwtVerify(
      ((await res.json()) as { access_token: string }).access_token,
      createRemoteJWKSet(new URL(idp.jwksUri)),
    )
    expect(payload.sub).toBe(idp.serviceClient.clientId)
    expect(payload.groups).toBeUndefined()
    expect(payload.uid).toBeUndefined()
  })
})

describe('org-level Dynamic Client Registration', () => {
  const body = JSON.stringify({
    redirect_uris: ['http://127.0.0.1:7777/cb'],
    token_endpoint_auth_method: 'none',
    client_name: 'x',
  })

  it('needs an SSWS API token and answers 401 in the provider style without it', async () => {
    const res = await fetch(idp.registrationUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://app.example' },
      body,
    })
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({
      errorCode: 'E0000011',
      errorSummary: 'Invalid token provided',
    })
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('sends no CORS headers, preflight included', async () => {
    const pre = await fetch(idp.registrationUrl, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.example', 'access-control-request-method': 'POST' },
    })
    expect([...pre.headers.keys()].some((h) => h.startsWith('access-control-'))).toBe(false)
  })

  it('registers a client that can then run the flow, and records the registration', async () => {
    const res = await fetch(idp.registrationUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `SSWS ${idp.apiToken}` },
      body,
    })
    expect(res.status).toBe(201)
    const client = (await res.json()) as { client_id: string }
    const { challenge } = pkce()
    const url = authorizeUrl(challenge, {
      client_id: client.client_id,
      redirect_uri: 'http://127.0.0.1:7777/cb',
    })
    const back = await authorizeHeadless(url, { loginHint: 'alice' })
    expect(back.searchParams.get('code')).toBeTruthy()
    const seen = await control.registrations()
    expect(seen.at(-1)).toMatchObject({
      status: 201,
      headers: { authorization: 'SSWS <redacted>' },
    })
  })
})

describe('CORS at the token endpoint (trusted origins)', () => {
  // oidc-provider answers every preflight (it cannot know the client yet) and decides on the
  // actual request, whose answer the browser then hands to the page or not.
  async function tokenCors(server: MockIdp, origin: string): Promise<string | null> {
    const res = await fetch(`${server.issuer}/v1/token`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: 'not-a-code',
        client_id: server.publicClientId,
        redirect_uri: 'http://127.0.0.1:6274/oauth/callback',
        code_verifier: pkce().verifier,
      }),
    })
    expect(res.status).toBe(400)
    return res.headers.get('access-control-allow-origin')
  }

  it('allows none by default, like a fresh org', async () => {
    expect(await tokenCors(idp, 'http://127.0.0.1:6274')).toBeNull()
  })

  it('allows exactly the configured trusted origins', async () => {
    const trusting = await startMockIdp({ trustedOrigins: ['http://localhost:6274'] })
    try {
      expect(await tokenCors(trusting, 'http://localhost:6274')).toBe('http://localhost:6274')
      expect(await tokenCors(trusting, 'http://127.0.0.1:6274')).toBeNull()
    } finally {
      await trusting.stop()
    }
  })
})

describe('control API', () => {
  const jwks = () => createRemoteJWKSet(new URL(idp.jwksUri))

  it('mints tokens as the flow would, and with claims changed, deleted, expired or not yet valid', async () => {
    const alice = await control.token({ sub: 'alice' })
    expect(
      (await jwtVerify(alice.access_token, jwks(), { issuer: idp.issuer, audience: idp.audience }))
        .payload.groups,
    ).toContain('AI-Users')
    const noGroups = await control.token({
      sub: 'alice',
      claims: { groups: null, iss: 'https://evil.example' },
    })
    expect(noGroups.claims).not.toHaveProperty('groups')
    expect(noGroups.claims).toMatchObject({ iss: 'https://evil.example' })
    const expired = await control.token({ expiresIn: -60 })
    await expect(jwtVerify(expired.access_token, jwks())).rejects.toThrow(/exp/)
    const future = await control.token({ notBefore: 600 })
    await expect(jwtVerify(future.access_token, jwks())).rejects.toThrow(/nbf/)
    const service = await control.token({ client: 'service' })
    expect(service.claims).not.toHaveProperty('groups')
  })

  it.each(['PS256', 'ES256', 'EdDSA'] as const)(
    'signs %s tokens with a published key',
    async (alg) => {
      const t = await control.token({ alg })
      expect(decodeProtectedHeader(t.access_token).alg).toBe(alg)
      await expect(jwtVerify(t.access_token, jwks(), { issuer: idp.issuer })).resolves.toBeTruthy()
    },
  )

  it('forges unknown-kid, alg none and HS256-with-the-public-key tokens that do not verify', async () => {
    for (const forge of ['unknown-kid', 'alg-none', 'hs256-public-key'] as const) {
      const t = await control.token({ forge })
      const header = decodeProtectedHeader(t.access_token)
      expect(header.alg).toBe(
        forge === 'alg-none' ? 'none' : forge === 'unknown-kid' ? 'RS256' : 'HS256',
      )
      await expect(jwtVerify(t.access_token, jwks()), forge).rejects.toThrow()
    }
  })

  it('rotates the signing key: the new kid is published and signs; the old one is kept or dropped', async () => {
    const before = await control.token()
    const { kid } = await control.rotateKeys({ keepOld: true })
    const keys = (await (await fetch(idp.jwksUri)).json()) as { keys: Array<{ kid: string }> }
    expect(keys.keys.map((k) => k.kid)).toContain(kid)
    const after = await control.token()
    expect(decodeProtectedHeader(after.access_token).kid).toBe(kid)
    await expect(
      jwtVerify(before.access_token, createRemoteJWKSet(new URL(idp.jwksUri))),
    ).resolves.toBeTruthy()
    await control.rotateKeys({ keepOld: false })
    await expect(
      jwtVerify(before.access_token, createRemoteJWKSet(new URL(idp.jwksUri))),
    ).rejects.toThrow()
    expect(await codeFlow('alice')).toBeTruthy()
  })

  it('makes the key and discovery endpoints fail, slow down or hang', async () => {
    await control.setFault({ endpoint: 'jwks', mode: 'error', status: 503 })
    expect((await fetch(idp.jwksUri)).status).toBe(503)
    await control.setFault({ endpoint: 'discovery', mode: 'hang' })
    await expect(fetch(idp.discoveryUrl, { signal: AbortSignal.timeout(300) })).rejects.toThrow()
    await control.setFault({ endpoint: 'discovery', mode: 'slow', delayMs: 50 })
    expect((await fetch(idp.discoveryUrl)).status).toBe(200)
    await control.clearFaults()
    expect((await fetch(idp.jwksUri)).status).toBe(200)
  })

  it('lists the requests it received', async () => {
    await control.clearRequests()
    await fetch(idp.discoveryUrl)
    const seen = await control.requests()
    expect(seen.map((r) => r.path)).toContain('/oauth2/default/.well-known/openid-configuration')
  })

  it('is absent outside test mode', async () => {
    const prod = await startMockIdp({ testMode: false })
    expect((await fetch(`${prod.controlUrl}/token`, { method: 'POST' })).status).toBe(404)
    await prod.stop()
  })
})

describe('HTTPS', () => {
  it('serves discovery over TLS with a generated CA', async () => {
    const tls = await startMockIdp({ https: true })
    expect(tls.orgUrl).toMatch(/^https:/)
    const body = await new Promise<string>((resolve, reject) => {
      get(tls.discoveryUrl, { ca: tls.caCertPem }, (res) => {
        let text = ''
        res.on('data', (c) => {
          text += c
        })
        res.on('end', () => resolve(text))
      }).on('error', reject)
    })
    expect((JSON.parse(body) as { issuer: string }).issuer).toBe(tls.issuer)
    await expect(fetch(tls.discoveryUrl)).rejects.toThrow()
    await tls.stop()
  })
})
