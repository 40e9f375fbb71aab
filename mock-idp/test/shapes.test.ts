/**
 * The IdP shapes besides the bridged IdP's default: open registration, RFC 8414 path form,
 * RFC 8707 resource indicators, Client ID Metadata Documents, confidential pre-registered clients
 * and per-grant token lifetimes — each off by default (the bridged IdP's gaps stay the default).
 */
import { decodeJwt } from 'jose'
import { afterAll, describe, expect, it } from 'vitest'
import { type MockIdp, type MockIdpOptions, startMockIdp } from '../src/index.js'
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
