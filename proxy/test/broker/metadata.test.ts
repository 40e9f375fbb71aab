/**
 * Broker-mode authorization-server metadata through a real gatehouse (docs/design/broker.md): the
 * gateway is the issuer, consistent with the protected-resource metadata (RFC 8414 §3.3, MCP
 * 2025-11-25 discovery), and it needs nothing from the IdP.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authConfig } from '../auth/config.js'
import { startTinyIdp, type TinyIdp } from '../auth/tiny-idp.js'
import { startTestGatehouse, type TestGatehouse } from '../helpers.js'

let idp: TinyIdp
let backend: Server
let backendHits = 0
const gatehouses: TestGatehouse[] = []

beforeAll(async () => {
  idp = await startTinyIdp()
  backend = createServer((_req, res) => {
    backendHits++
    res.end('backend')
  })
  await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r))
})
afterAll(async () => {
  for (const g of gatehouses) await g.stop('test done')
  await new Promise((r) => backend.close(r))
  await idp.stop()
})

async function start(o: { broker?: Record<string, unknown>; resource?: string } = {}) {
  const g = await startTestGatehouse(
    authConfig({
      idpPort: idp.port,
      backendPort: (backend.address() as AddressInfo).port,
      issuer: idp.issuer,
      ...o,
    }),
  )
  gatehouses.push(g)
  return g
}

async function json(url: string): Promise<Record<string, unknown>> {
  const res = await fetch(url)
  expect(res.status).toBe(200)
  return (await res.json()) as Record<string, unknown>
}

describe('broker-mode authorization-server metadata', () => {
  it('names the gateway as issuer and its own endpoints (RFC 8414 §2, §3.3)', async () => {
    const g = await start({ broker: {} })
    const as = await json(`${g.url}/.well-known/oauth-authorization-server/mcp`)
    expect(as).toEqual({
      issuer: 'http://gateway.example:3000/mcp',
      authorization_endpoint: 'http://gateway.example:3000/mcp/oauth/authorize',
      token_endpoint: 'http://gateway.example:3000/mcp/oauth/token',
      registration_endpoint: 'http://gateway.example:3000/mcp/oauth/register',
      scopes_supported: ['openid', 'profile'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    })
  })

  it('uses one issuer across the protected-resource metadata and the metadata URL it names', async () => {
    const g = await start({ broker: {} })
    const prm = await json(`${g.url}/.well-known/oauth-protected-resource/mcp`)
    const [issuer] = prm.authorization_servers as string[]
    // MCP 2025-11-25: for an issuer with a path, the well-known suffix goes between host and path.
    const u = new URL(issuer as string)
    const as = await json(`${g.url}/.well-known/oauth-authorization-server${u.pathname}`)
    expect(as.issuer).toBe(issuer)
    expect(issuer).toBe('http://gateway.example:3000/mcp')
  })

  it('derives the issuer of a resource with a trailing slash without it', async () => {
    const slash = await start({ broker: {}, resource: 'http://gateway.example:3000/mcp/' })
    const as = await json(`${slash.url}/.well-known/oauth-authorization-server/mcp`)
    expect(as.issuer).toBe('http://gateway.example:3000/mcp')
    expect(as.token_endpoint).toBe('http://gateway.example:3000/mcp/oauth/token')
  })

  it('omits the registration endpoint when registration is off, and says so when CIMD is off', async () => {
    const g = await start({
      broker: { registration: { enabled: false }, clientMetadataDocuments: { enabled: false } },
    })
    const as = await json(`${g.url}/.well-known/oauth-authorization-server/mcp`)
    expect(as).not.toHaveProperty('registration_endpoint')
    expect(as.client_id_metadata_document_supported).toBe(false)
    const reg = await fetch(`${g.url}/mcp/oauth/register`, { method: 'POST' })
    expect(reg.status).toBe(404)
  })

  it('is served while the IdP is down (it needs nothing from the IdP)', async () => {
    const g = await start({ broker: {} })
    idp.discoveryDown(true)
    try {
      const as = await json(`${g.url}/.well-known/oauth-authorization-server/mcp`)
      expect(as.issuer).toBe('http://gateway.example:3000/mcp')
    } finally {
      idp.discoveryDown(false)
    }
  })

  it('answers an unknown path under <issuer>/oauth/ with 404 itself, never the backend', async () => {
    const g = await start({ broker: {} })
    const before = backendHits
    for (const path of ['/mcp/oauth/', '/mcp/oauth/nope', '/mcp/oauth/register/x']) {
      const res = await fetch(`${g.url}${path}`)
      expect(res.status).toBe(404)
      expect(((await res.json()) as { error: string }).error).toBe('not_found')
    }
    expect(backendHits).toBe(before)
  })

  it('keeps the pass-through metadata (the IdP issuer) when there is no broker block', async () => {
    const g = await start()
    const as = await json(`${g.url}/.well-known/oauth-authorization-server/mcp`)
    expect(as.issuer).toBe(idp.issuer)
    expect(String(as.registration_endpoint)).toMatch(/\/client-registration$/)
  })
})
