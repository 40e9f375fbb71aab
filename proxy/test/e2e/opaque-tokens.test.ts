/**
 * Opaque access tokens end to end (docs/idp/opaque-tokens.md), real parts only: mock-idp's
 * oidc-provider issuing opaque tokens through a real authorization-code flow and answering RFC 7662
 * introspection for the gateway's client credentials; the official MCP SDK client listing tools
 * through gatehouse to the real MCP backend; revocation at the IdP, a user the rules refuse, the
 * introspection endpoint failing or hanging; and neither the token nor the client secret in the
 * logs, `/debug/trace` or `/config_dump`.
 */
import { accessTokenHeadless, controlClient, type MockIdp, startMockIdp } from '@gatehouse/mock-idp'
import { initializeRequest, type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { GatehouseConfigInput } from '../../src/config/schema.js'
import { authConfig } from '../auth/config.js'
import { startTestGatehouse, type TestGatehouse } from '../helpers.js'

let idp: MockIdp
let backend: McpBackend
let gh: TestGatehouse
const REDIRECT = 'http://127.0.0.1/callback'

/** The gateway's configuration, with opaque tokens introspected at mock-idp. */
function opaqueConfig(cacheDuration: string, timeout = '2s'): GatehouseConfigInput {
  const config = authConfig({
    idpPort: idp.port,
    backendPort: backend.port,
    issuer: idp.issuer,
    noMcp: true,
  })
  const policy = config.policies?.['mcp-auth']
  if (!policy) throw new Error('authConfig has no mcp-auth policy')
  policy.traffic.jwtAuthentication = {
    mode: 'Strict',
    opaqueTokens: {
      issuer: idp.issuer,
      audiences: ['api://default'],
      introspection: {
        backendRef: { name: 'idp' },
        path: '/oauth2/default/v1/introspect',
        clientId: idp.serviceClient.clientId,
        clientSecret: idp.serviceClient.clientSecret,
      },
      cacheDuration,
      timeout,
    },
  }
  return { ...config, config: { adminAddr: '127.0.0.1:0' } } as GatehouseConfigInput
}

/** A real opaque access token for `login`: authorization code with PKCE at mock-idp. */
async function signIn(login: string): Promise<string> {
  return accessTokenHeadless(idp.issuer, {
    clientId: idp.publicClientId,
    redirectUri: REDIRECT,
    scope: 'openid profile',
    loginHint: login,
  })
}

/** Revokes a token at the IdP (RFC 7009), as its client. */
async function revoke(token: string): Promise<void> {
  const res = await fetch(`${idp.issuer}/v1/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, client_id: idp.publicClientId }),
  })
  expect(res.status).toBe(200)
}

/** Introspection calls mock-idp has received so far. */
async function introspections(): Promise<number> {
  const requests = await controlClient(idp.controlUrl).requests()
  return requests.filter((r) => r.path === '/oauth2/default/v1/introspect').length
}

/** The gateway's answer to an MCP initialize with `token`. */
function initialize(target: TestGatehouse, token: string): Promise<Response> {
  return fetch(`${target.url}/mcp`, initializeRequest({ bearer: token }))
}

beforeAll(async () => {
  idp = await startMockIdp({ opaqueAccessTokens: 'introspection' })
  backend = await startMcpBackend()
  gh = await startTestGatehouse(opaqueConfig('1h'), { logFilter: 'trace' })
})
afterAll(async () => {
  await gh?.stop('done')
  await backend?.stop()
  await idp?.stop()
})
beforeEach(async () => {
  await controlClient(idp.controlUrl).clearFaults()
})

describe('opaque access tokens through RFC 7662 introspection', () => {
  it('accepts an opaque token: the SDK client lists the backend tools through the gateway', async () => {
    const token = await signIn('alice')
    // oidc-provider's opaque format: a random string, not a JWT.
    expect(token.split('.')).toHaveLength(1)
    const client = new Client({ name: 'opaque-e2e', version: '0.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gh.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    )
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toContain('echo')
    await client.close()
  })

  it('asks the IdP once for a token, then answers from the cache', async () => {
    const token = await signIn('alice')
    const before = await introspections()
    expect((await initialize(gh, token)).status).toBe(200)
    expect((await initialize(gh, token)).status).toBe(200)
    expect(await introspections()).toBe(before + 1)
  })

  it('answers 403 insufficient_scope to a user the rules refuse (bob is not in AI-Users)', async () => {
    const res = await initialize(gh, await signIn('bob'))
    expect(res.status).toBe(403)
    expect(res.headers.get('www-authenticate')).toMatch(/error="insufficient_scope"/)
  })

  it('answers 401 invalid_token to a token the IdP does not know', async () => {
    const res = await initialize(gh, 'not-a-token-the-idp-issued')
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/)
  })

  it('keeps a revoked token within the cache duration, and refuses it once that is over', async () => {
    const token = await signIn('alice')
    expect((await initialize(gh, token)).status).toBe(200)
    await revoke(token)
    // The documented window: this gateway remembers accepted tokens for 1h.
    expect((await initialize(gh, token)).status).toBe(200)
    // A gateway remembering them for 1s: refused as soon as its entry is over.
    const short = await startTestGatehouse(opaqueConfig('1s'))
    try {
      const fresh = await signIn('alice')
      expect((await initialize(short, fresh)).status).toBe(200)
      await revoke(fresh)
      const asked = await introspections()
      await vi.waitFor(async () => expect((await initialize(short, fresh)).status).toBe(401), {
        timeout: 20_000,
        interval: 100,
      })
      expect(await introspections()).toBeGreaterThan(asked)
    } finally {
      await short.stop('done')
    }
  })

  it.each([
    ['answers 500', { mode: 'error' as const, status: 500 }],
    ['hangs past the timeout', { mode: 'hang' as const }],
  ])('fails closed with 503 when the introspection endpoint %s', async (_name, fault) => {
    const token = await signIn('alice')
    await controlClient(idp.controlUrl).setFault({ endpoint: 'introspection', ...fault })
    const res = await initialize(gh, token)
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('5')
    const body = (await res.json()) as { error: string; error_description: string }
    expect(body.error).toBe('temporarily_unavailable')
    expect(body.error_description).not.toContain(String(idp.port))
    expect(
      gh.logs.some(
        (l) => l.code === 'GW_ERR_TOKEN_VALIDATION_UNAVAILABLE' && typeof l.cause === 'string',
      ),
    ).toBe(true)
    // Back up: the same token is accepted (the failure was not remembered).
    await controlClient(idp.controlUrl).clearFaults()
    expect((await initialize(gh, token)).status).toBe(200)
  })

  it('never shows the token or the client secret in the logs, /debug/trace or /config_dump', async () => {
    const token = await signIn('alice')
    const abort = new AbortController()
    const trace = await fetch(`${gh.adminUrl}/debug/trace`, { signal: abort.signal })
    const reader = trace.body?.getReader()
    if (!reader) throw new Error('no trace stream')
    const sent = initialize(gh, token)
    let raw = ''
    while (!raw.includes('request_finished')) {
      const { value, done } = await reader.read()
      if (done) break
      raw += new TextDecoder().decode(value)
    }
    abort.abort()
    expect((await sent).status).toBe(200)
    // The trace shows the introspected claims (what the rules judged) but not the token.
    expect(raw).toContain('AI-Users')
    const dump = await (await fetch(`${gh.adminUrl}/config_dump`)).text()
    expect(dump).toContain('/oauth2/default/v1/introspect')
    const logs = JSON.stringify(gh.logs)
    for (const [where, text] of [
      ['trace', raw],
      ['config_dump', dump],
      ['logs', logs],
    ] as const) {
      expect(text, where).not.toContain(token)
      expect(text, where).not.toContain(idp.serviceClient.clientSecret)
    }
  })
})
