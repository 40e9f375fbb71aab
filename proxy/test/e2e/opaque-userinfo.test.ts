/**
 * Google-shaped opaque tokens end to end (docs/idp/opaque-tokens.md, userinfo mode): mock-idp
 * issues tokens only its UserInfo endpoint accepts (no audience, no introspection for the
 * gateway), the gateway accepts a token when UserInfo answers 200 and the route's rules accept
 * the claims it answered, and fails closed when UserInfo fails.
 */
import { accessTokenHeadless, controlClient, type MockIdp, startMockIdp } from '@gatehouse/mock-idp'
import { initializeRequest, type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GatehouseConfigInput } from '../../src/config/schema.js'
import { authConfig } from '../auth/config.js'
import { startTestGatehouse, type TestGatehouse } from '../helpers.js'

let idp: MockIdp
let backend: McpBackend
let gh: TestGatehouse
const REDIRECT = 'http://127.0.0.1/callback'

/** A real Google-shaped token for `login`: authorization code with PKCE at mock-idp. */
async function signIn(login: string): Promise<string> {
  return accessTokenHeadless(idp.issuer, {
    clientId: idp.publicClientId,
    redirectUri: REDIRECT,
    scope: 'openid profile email',
    loginHint: login,
  })
}

function initialize(token: string): Promise<Response> {
  return fetch(`${gh.url}/mcp`, initializeRequest({ bearer: token }))
}

beforeAll(async () => {
  idp = await startMockIdp({ opaqueAccessTokens: 'userinfo' })
  backend = await startMcpBackend()
  const config = authConfig({
    idpPort: idp.port,
    backendPort: backend.port,
    issuer: idp.issuer,
    noMcp: true,
    rules: ['"AI-Users" in jwt.groups && jwt.email.endsWith("@example.com")'],
  })
  const policy = config.policies?.['mcp-auth']
  if (!policy) throw new Error('authConfig has no mcp-auth policy')
  policy.traffic.jwtAuthentication = {
    opaqueTokens: {
      issuer: idp.issuer,
      userinfo: { backendRef: { name: 'idp' }, path: '/oauth2/default/v1/userinfo' },
      timeout: '2s',
    },
  }
  gh = await startTestGatehouse(config as GatehouseConfigInput)
})
afterAll(async () => {
  await gh?.stop('done')
  await backend?.stop()
  await idp?.stop()
})

describe('opaque access tokens through OIDC UserInfo (Google-shaped)', () => {
  it('accepts a token UserInfo answers for, when the rules accept its claims', async () => {
    const token = await signIn('alice')
    expect(token.split('.')).toHaveLength(1)
    const res = await initialize(token)
    expect(res.status).toBe(200)
    const tools = await fetch(`${gh.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': res.headers.get('mcp-session-id') ?? '',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    })
    expect(tools.status).toBe(200)
    expect(await tools.text()).toContain('"echo"')
  })

  it('answers 403 to a user whose UserInfo claims the rules refuse', async () => {
    expect((await initialize(await signIn('bob'))).status).toBe(403)
  })

  it('answers 401 to a token UserInfo refuses', async () => {
    const res = await initialize('not-a-google-token')
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/)
  })

  it('fails closed with 503 while UserInfo answers 500', async () => {
    const token = await signIn('alice')
    await controlClient(idp.controlUrl).setFault({
      endpoint: 'userinfo',
      mode: 'error',
      status: 500,
    })
    try {
      const res = await initialize(token)
      expect(res.status).toBe(503)
      expect(((await res.json()) as { error: string }).error).toBe('temporarily_unavailable')
    } finally {
      await controlClient(idp.controlUrl).clearFaults()
    }
  })
})
