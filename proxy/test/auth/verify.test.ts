/**
 * Token rules of the verifier over real HTTP (issue #10 item 7): a token without `exp` is refused
 * (RFC 9068 §2.2), and a header with an unknown critical extension says so (RFC 7515 §4.1.11).
 */
import { initializeRequest, type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestGatehouse, type TestGatehouse } from '../helpers.js'
import { authConfig } from './config.js'
import { startTinyIdp, type TinyIdp } from './tiny-idp.js'

let idp: TinyIdp
let backend: McpBackend
let gh: TestGatehouse

beforeAll(async () => {
  idp = await startTinyIdp()
  backend = await startMcpBackend()
  gh = await startTestGatehouse(
    authConfig({ idpPort: idp.port, backendPort: backend.port, issuer: idp.issuer }),
  )
})
afterAll(async () => {
  await gh.stop('done')
  await backend.stop()
  await idp.stop()
})

async function send(token: string): Promise<{ status: number; body: Record<string, string> }> {
  const res = await fetch(`${gh.url}/mcp`, initializeRequest({ bearer: token }))
  const text = await res.text()
  // A 200 is the MCP answer (possibly an event stream); a refusal is the JSON error body.
  return { status: res.status, body: res.ok ? {} : (JSON.parse(text) as Record<string, string>) }
}

/** A token signed with the IdP's current key, with the given claims and extra header members. */
function signed(claims: Record<string, unknown>, header: Record<string, unknown> = {}) {
  const key = idp.currentKey()
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({
    iss: idp.issuer,
    aud: 'api://default',
    sub: 'alice@example.com',
    groups: ['AI-Users'],
    iat: now,
    ...claims,
  })
    .setProtectedHeader({ alg: 'RS256', kid: key.kid, ...header })
    .sign(key.privateKey, { crit: { 'urn:example:ext': true } })
}

describe('TokenVerifier', () => {
  it('refuses a validly signed token without exp, naming the missing claim', async () => {
    const r = await send(await signed({}))
    expect(r.status).toBe(401)
    expect(r.body.error).toBe('invalid_token')
    expect(r.body.error_description).toMatch(/no exp claim.*RFC 9068 §2\.2/)
  })

  it('accepts the same token with exp (the check above can pass)', async () => {
    const r = await send(await signed({ exp: Math.floor(Date.now() / 1000) + 600 }))
    expect(r.status).toBe(200)
  })

  it('says an unknown critical extension is not understood, not that the algorithm is refused', async () => {
    const exp = Math.floor(Date.now() / 1000) + 600
    const r = await send(
      await signed({ exp }, { crit: ['urn:example:ext'], 'urn:example:ext': true }),
    )
    expect(r.status).toBe(401)
    expect(r.body.error_description).toContain('"urn:example:ext"')
    expect(r.body.error_description).toMatch(/critical \(crit\).*RFC 7515 §4\.1\.11/)
    expect(r.body.error_description).not.toContain('algorithm')
  })
})
