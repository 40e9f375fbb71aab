/**
 * The IdP shapes besides the bridged IdP's default: open registration, RFC 8414 path form,
 * RFC 8707 resource indicators, Client ID Metadata Documents, confidential pre-registered clients
 * and per-grant token lifetimes — each off by default (the bridged IdP's gaps stay the default).
 */
import { decodeJwt } from 'jose'
import { afterAll, describe, expect, it } from 'vitest'
import { controlClient, type MockIdp, type MockIdpOptions, startMockIdp } from '../src/index.js'
import { authorizeRequest } from './helpers.js'

const started: MockIdp[] = []
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()))
})

async function idpWith(options: MockIdpOptions): Promise<MockIdp> {
  const idp = await startMockIdp({ autoSignIn: 'alice', ...options })
  started.push(idp)
  return idp
}

const REDIRECT = 'http://127.0.0.1:4711/callback'

interface Flow {
  clientId: string
  extra?: Record<string, string>
  tokenExtra?: Record<string, string>
  basic?: string
}

/** A code flow with automatic sign-in; the token endpoint's JSON answer and its status. */
async function codeFlow(
  idp: MockIdp,
  flow: Flow,
): Promise<{ status: number; body: Record<string, string> }> {
  const { url, verifier } = authorizeRequest(idp.issuer, {
    client_id: flow.clientId,
    redirect_uri: REDIRECT,
    ...flow.extra,
  })
  const answer = await fetch(url, { redirect: 'manual' })
  const location = answer.headers.get('location')
  const code = location ? new URL(location).searchParams.get('code') : null
  if (!code) throw new Error(`no code: HTTP ${answer.status} ${location ?? ''}`)
  const res = await fetch(`${idp.issuer}/v1/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(flow.basic ? { authorization: `Basic ${flow.basic}` } : {}),
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      ...(flow.basic ? {} : { client_id: flow.clientId }),
      ...flow.tokenExtra,
    }),
  })
  return { status: res.status, body: (await res.json()) as Record<string, string> }
}

describe('registration: open', () => {
  it('registers a client without an API token, which can then sign in', async () => {
    const idp = await idpWith({ registration: 'open' })
    const res = await fetch(idp.registrationUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
    })
    expect(res.status).toBe(201)
    const { client_id } = (await res.json()) as { client_id: string }
    expect((await codeFlow(idp, { clientId: client_id })).status).toBe(200)
  })
})

describe('rfc8414PathForm', () => {
  it('serves the metadata at the RFC 8414 path-insertion URL, off by default', async () => {
    const idp = await idpWith({ rfc8414PathForm: true })
    const url = `${idp.orgUrl}/.well-known/oauth-authorization-server/oauth2/default`
    const res = await fetch(url)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({
      issuer: idp.issuer,
      authorization_endpoint: `${idp.issuer}/v1/authorize`,
      token_endpoint: `${idp.issuer}/v1/token`,
    })
    const plain = await idpWith({})
    expect(
      (await fetch(`${plain.orgUrl}/.well-known/oauth-authorization-server/oauth2/default`)).status,
    ).toBe(404)
  })
})

describe('resourceIndicators (RFC 8707)', () => {
  it('issues a token for the resource named, and for the server audience without one', async () => {
    const idp = await idpWith({ resourceIndicators: true })
    const resource = 'http://127.0.0.1:9/mcp'
    const named = await codeFlow(idp, {
      clientId: idp.publicClientId,
      extra: { resource },
      tokenExtra: { resource },
    })
    expect(decodeJwt(named.body.access_token ?? '').aud).toBe(resource)
    const unnamed = await codeFlow(idp, { clientId: idp.publicClientId })
    expect(decodeJwt(unnamed.body.access_token ?? '').aud).toBe('api://default')
  })

  it('is off by default: the resource parameter does not change aud', async () => {
    const idp = await idpWith({})
    const flow = await codeFlow(idp, {
      clientId: idp.publicClientId,
      extra: { resource: 'http://127.0.0.1:9/mcp' },
    })
    expect(decodeJwt(flow.body.access_token ?? '').aud).toBe('api://default')
  })
})

describe('clientIdMetadataDocuments', () => {
  const clientId = 'https://client.example/.well-known/mcp-client.json'
  const doc = {
    client_id: clientId,
    client_name: 'a CIMD client',
    redirect_uris: ['http://127.0.0.1/callback'],
    token_endpoint_auth_method: 'none',
    application_type: 'native',
    grant_types: ['authorization_code'],
    response_types: ['code'],
  }

  it('advertises support and accepts a URL client_id whose document it knows', async () => {
    const idp = await idpWith({ clientIdMetadataDocuments: { documents: { [clientId]: doc } } })
    const meta = (await (await fetch(idp.discoveryUrl)).json()) as Record<string, unknown>
    expect(meta.client_id_metadata_document_supported).toBe(true)
    const flow = await codeFlow(idp, { clientId })
    expect(flow.status).toBe(200)
    expect(decodeJwt(flow.body.access_token ?? '').client_id).toBe(clientId)
  })

  it('is off by default: no advertisement, and a URL client_id is an unknown client', async () => {
    const idp = await idpWith({})
    const meta = (await (await fetch(idp.discoveryUrl)).json()) as Record<string, unknown>
    expect(meta.client_id_metadata_document_supported).toBeUndefined()
    await expect(codeFlow(idp, { clientId })).rejects.toThrow(/no code/)
  })
})

describe('clients: a confidential pre-registered client', () => {
  it('redeems its code with client_secret_basic and not without the secret', async () => {
    const client = { clientId: 'pre-registered-client', clientSecret: 'pre-registered-secret' }
    const idp = await idpWith({ clients: [client] })
    const basic = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')
    expect((await codeFlow(idp, { clientId: client.clientId, basic })).status).toBe(200)
    expect((await codeFlow(idp, { clientId: client.clientId })).status).toBe(401)
  })
})

describe('clients: non-loopback redirect URIs', () => {
  it('redirects to a registered non-loopback URI exactly, and never to another', async () => {
    const web = { clientId: 'web-client', redirectUris: ['https://app.example.com/callback'] }
    const idp = await idpWith({ clients: [web] })
    const ask = (redirect_uri: string) =>
      fetch(authorizeRequest(idp.issuer, { client_id: web.clientId, redirect_uri }).url, {
        redirect: 'manual',
      })
    const ok = await ask('https://app.example.com/callback')
    expect(ok.status).toBe(303)
    const back = new URL(ok.headers.get('location') ?? '')
    expect(`${back.origin}${back.pathname}`).toBe('https://app.example.com/callback')
    expect(back.searchParams.get('code')).toBeTruthy()
    for (const other of ['https://app.example.com/callback/', 'https://evil.example/callback']) {
      const refused = await ask(other)
      expect(refused.status, other).toBe(400)
      expect(refused.headers.get('location'), other).toBeNull()
    }
  })
})

describe('accessTokenTtlByGrant', () => {
  it('issues code-exchange tokens with their own lifetime, refreshed ones with the default', async () => {
    const idp = await idpWith({ accessTokenTtlByGrant: { authorization_code: 1 } })
    const first = await codeFlow(idp, {
      clientId: idp.publicClientId,
      extra: { scope: 'openid offline_access', prompt: 'consent' },
    })
    const claims = decodeJwt(first.body.access_token ?? '')
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(1)
    const refreshed = await fetch(`${idp.issuer}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: first.body.refresh_token ?? '',
        client_id: idp.publicClientId,
      }),
    })
    const again = decodeJwt(((await refreshed.json()) as { access_token: string }).access_token)
    expect((again.exp ?? 0) - (again.iat ?? 0)).toBe(3600)
  })
})

describe('shape: other IdPs (src/shapes.ts)', () => {
  /** A code flow through the endpoints discovery names (the shape's public URLs). */
  async function shapedFlow(idp: MockIdp, scope: string, extra: Record<string, string> = {}) {
    const doc = (await (await fetch(idp.discoveryUrl)).json()) as Record<string, string>
    const { url, verifier } = authorizeRequest(idp.issuer, {
      client_id: 'gatehouse-demo-client',
      redirect_uri: REDIRECT,
      scope,
      ...extra,
    })
    const authorize = new URL(doc.authorization_endpoint as string)
    authorize.search = url.search
    const answer = await fetch(authorize, { redirect: 'manual' })
    const back = new URL(answer.headers.get('location') ?? 'http://none/')
    const code = back.searchParams.get('code')
    if (!code) return { doc, back, token: undefined }
    const res = await fetch(doc.token_endpoint as string, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: 'gatehouse-demo-client',
      }),
    })
    const body = (await res.json()) as Record<string, string>
    return { doc, back, token: decodeJwt(body.access_token as string), body }
  }

  it('auth0: issuer with a trailing slash, keys at /.well-known/jwks.json, namespaced groups, no DCR', async () => {
    const idp = await idpWith({ shape: 'auth0' })
    expect(idp.issuer).toBe(`${idp.orgUrl}/`)
    const { doc, token } = await shapedFlow(idp, 'openid', { audience: 'api://default' })
    expect(doc).toMatchObject({
      issuer: idp.issuer,
      jwks_uri: `${idp.orgUrl}/.well-known/jwks.json`,
    })
    expect(doc.registration_endpoint).toBeUndefined()
    expect((await fetch(doc.jwks_uri as string)).status).toBe(200)
    expect(token).toMatchObject({
      iss: idp.issuer,
      'https://example.com/groups': ['AI-Users', 'Everyone'],
    })
    expect(token?.groups).toBeUndefined()
  })

  it("entra: the API's token only for an api:// scope (else Graph's), roles, v1 issuer on another host", async () => {
    const v2 = await idpWith({ shape: 'entra', audience: 'api://app-1' })
    const api = await shapedFlow(v2, 'openid api://app-1/mcp.access')
    expect(api.token).toMatchObject({ iss: v2.issuer, aud: 'app-1', scp: 'mcp.access', ver: '2.0' })
    expect(api.token?.roles).toEqual(['AI-Users', 'Everyone'])
    const graph = await shapedFlow(v2, 'openid')
    expect(graph.token?.aud).toBe('00000003-0000-0000-c000-000000000000')
    const v1 = await idpWith({ shape: 'entra', audience: 'api://app-1', entraTokenVersion: 1 })
    const old = await shapedFlow(v1, 'openid api://app-1/mcp.access')
    expect(old.token).toMatchObject({ iss: v1.entraV1?.issuer, aud: 'api://app-1', ver: '1.0' })
    expect(new URL(v1.entraV1?.issuer ?? '').host).not.toBe(new URL(v1.issuer).host)
    const doc1 = (await (await fetch(v1.entraV1?.discoveryUrl ?? '')).json()) as { issuer: string }
    expect(doc1.issuer).toBe(v1.entraV1?.issuer)
  })

  it('keycloak: realm issuer, groups as full paths, realm roles, a refresh token without offline_access', async () => {
    const idp = await idpWith({ shape: 'keycloak' })
    const { token, body } = await shapedFlow(idp, 'openid')
    expect(idp.issuer).toBe(`${idp.orgUrl}/realms/gatehouse`)
    expect(token).toMatchObject({
      groups: ['/AI-Users', '/Everyone'],
      realm_access: { roles: ['AI-Users', 'Everyone'] },
    })
    expect(body?.refresh_token).toBeTruthy()
  })

  it('google: token endpoint and keys on other hosts; offline_access refused, access_type=offline refreshes', async () => {
    const idp = await idpWith({ shape: 'google', users: [{ login: 'alice', groups: [] }] })
    const refused = await shapedFlow(idp, 'openid offline_access')
    expect(refused.back.searchParams.get('error')).toBe('invalid_scope')
    expect(refused.doc.scopes_supported).not.toContain('offline_access')
    expect(new URL(refused.doc.token_endpoint as string).origin).not.toBe(idp.orgUrl)
    expect(new URL(refused.doc.jwks_uri as string).origin).not.toBe(idp.orgUrl)
    expect(
      (await shapedFlow(idp, 'openid', { audience: 'x' })).back.searchParams.get('error'),
    ).toBe('invalid_request')
    const offline = await shapedFlow(idp, 'openid email', {
      access_type: 'offline',
      prompt: 'consent',
    })
    expect(offline.body?.refresh_token).toBeTruthy()
    expect(offline.token).toMatchObject({ email: 'alice@example.com', hd: 'example.com' })
  })
  it('google: each host serves only its own endpoints (the token endpoint and keys are not on the org host)', async () => {
    const idp = await idpWith({ shape: 'google' })
    const doc = (await (await fetch(idp.discoveryUrl)).json()) as Record<string, string>
    const token = new URL(doc.token_endpoint as string)
    const keys = new URL(doc.jwks_uri as string)
    const on = (origin: string, path: string, init?: RequestInit) =>
      fetch(`${origin}${path}`, { redirect: 'manual', ...init }).then((r) => r.status)
    expect(await on(keys.origin, keys.pathname)).toBe(200)
    expect(await on(idp.orgUrl, keys.pathname)).toBe(404)
    expect(await on(token.origin, keys.pathname)).toBe(404)
    const post = { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token' }) }
    expect(await on(token.origin, token.pathname, post)).not.toBe(404)
    expect(await on(idp.orgUrl, token.pathname, post)).toBe(404)
    const authorize = new URL(doc.authorization_endpoint as string).pathname
    expect(await on(token.origin, authorize)).toBe(404)
    expect(await on(token.origin, '/.well-known/openid-configuration')).toBe(404)
    expect(await on(keys.origin, '/__control/requests')).toBe(404)
  })

  it('google: hostUrls are the public origins of its other hosts; hosts gives their ports', async () => {
    const hostUrls = { token: 'http://token.example.test:4400', keys: 'http://keys.example.test' }
    const idp = await idpWith({ shape: 'google', hostUrls })
    const doc = (await (await fetch(idp.discoveryUrl)).json()) as Record<string, string>
    expect(doc).toMatchObject({
      issuer: idp.orgUrl,
      token_endpoint: `${hostUrls.token}/token`,
      revocation_endpoint: `${hostUrls.token}/revoke`,
      jwks_uri: `${hostUrls.keys}/oauth2/v3/certs`,
    })
    expect(idp.jwksUri).toBe(doc.jwks_uri)
    expect(idp.hosts?.token.url).toBe(hostUrls.token)
    const keys = await fetch(`http://127.0.0.1:${idp.hosts?.keys.port}/oauth2/v3/certs`)
    expect(((await keys.json()) as { keys: unknown[] }).keys.length).toBeGreaterThan(0)
    expect((await idpWith({ shape: 'auth0' })).hosts).toBeUndefined()
  })

  it('hostUrls: refused without the google shape, or when not an origin', async () => {
    await expect(startMockIdp({ hostUrls: { token: 'http://t.test' } })).rejects.toThrow(
      /hostUrls: only the google shape has other hosts/,
    )
    await expect(
      startMockIdp({ shape: 'google', hostUrls: { keys: 'http://k.test/certs' } }),
    ).rejects.toThrow(/hostUrls\.keys: expected an origin/)
  })

  it("control tokens take the shape's claims layout, as its flow's tokens do; overrides still apply", async () => {
    const users = [{ login: 'alice', groups: ['AI-Users'] }]
    const control = async (idp: MockIdp, body: Record<string, unknown> = {}) =>
      decodeJwt((await controlClient(idp.controlUrl).token(body)).access_token)
    const keycloak = await idpWith({ shape: 'keycloak', users })
    expect(await control(keycloak)).toMatchObject({
      iss: keycloak.issuer,
      groups: ['/AI-Users'],
      realm_access: { roles: ['AI-Users'] },
    })
    const v1 = await idpWith({
      shape: 'entra',
      audience: 'api://app-1',
      entraTokenVersion: 1,
      users,
    })
    expect(await control(v1)).toMatchObject({
      iss: v1.entraV1?.issuer,
      aud: 'api://app-1',
      roles: ['AI-Users'],
    })
    expect(await control(v1, { claims: { aud: 'api://another' } })).toMatchObject({
      aud: 'api://another',
    })
  })
})
