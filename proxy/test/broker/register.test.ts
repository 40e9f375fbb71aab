/**
 * RFC 7591 registration answered by the gateway in broker mode (docs/design/broker.md), through a real
 * gatehouse: minted ids and secrets, the redirect URI check, RFC 7591 §3.2.2 errors, and the
 * bounds an unauthenticated flood meets.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authConfig } from '../auth/config.js'
import { startTinyIdp, type TinyIdp } from '../auth/tiny-idp.js'
import { startTestGatehouse, type TestGatehouse } from '../helpers.js'

let idp: TinyIdp
let backend: Server
const gatehouses: TestGatehouse[] = []

beforeAll(async () => {
  idp = await startTinyIdp()
  backend = createServer((_req, res) => res.end('backend'))
  await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r))
})
afterAll(async () => {
  for (const g of gatehouses) await g.stop('test done')
  await new Promise((r) => backend.close(r))
  await idp.stop()
})

async function start(broker: Record<string, unknown> = {}) {
  const g = await startTestGatehouse(
    authConfig({
      idpPort: idp.port,
      backendPort: (backend.address() as AddressInfo).port,
      issuer: idp.issuer,
      broker,
    }),
  )
  gatehouses.push(g)
  return g
}

let shared: TestGatehouse
beforeAll(async () => {
  shared = await start({ registration: { perSourceLimit: 1000 } })
})

async function register(
  g: TestGatehouse,
  body: unknown,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${g.url}/mcp/oauth/register`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown>,
    headers: res.headers,
  }
}

const INSPECTOR = {
  client_name: 'MCP Inspector',
  redirect_uris: ['http://localhost:6274/oauth/callback'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
}

describe('broker registration endpoint (RFC 7591)', () => {
  it('mints a public client with its own id and no secret', async () => {
    const a = await register(shared, INSPECTOR)
    const b = await register(shared, INSPECTOR)
    expect(a.status).toBe(201)
    expect(a.headers.get('cache-control')).toBe('no-store')
    expect(a.body).toMatchObject({
      client_name: 'MCP Inspector',
      redirect_uris: ['http://localhost:6274/oauth/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    })
    expect(a.body.client_id).toMatch(/^gh_[A-Za-z0-9_-]{22}$/)
    expect(a.body.client_id).not.toBe(b.body.client_id)
    expect(a.body).not.toHaveProperty('client_secret')
    expect(typeof a.body.client_id_issued_at).toBe('number')
  })

  it('gives a confidential client a secret once, defaulting to client_secret_basic (RFC 7591 §2)', async () => {
    const { token_endpoint_auth_method: _, ...rest } = INSPECTOR
    const res = await register(shared, rest)
    expect(res.status).toBe(201)
    expect(res.body.token_endpoint_auth_method).toBe('client_secret_basic')
    expect(res.body.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(res.body.client_secret_expires_at).toBeGreaterThan(Number(res.body.client_id_issued_at))
    // The secret is in no log line.
    expect(JSON.stringify(shared.logs)).not.toContain(String(res.body.client_secret))
  })

  it.each([
    ['javascript:', ['javascript:alert(1)']],
    ['data:', ['data:text/html,x']],
    ['file:', ['file:///etc/passwd']],
    ['a relative URI', ['/cb']],
    ['a fragment', ['https://app.example/cb#x']],
    ['userinfo', ['https://evil.example@app.example/cb']],
    ['http to a public host', ['http://app.example/cb']],
    ['a look-alike loopback host', ['http://localhost.evil.example/cb']],
    ['a backslash', ['https://evil.example\\@app.example/cb']],
    ['an empty list', []],
    ['one bad URI among good ones', ['https://app.example/cb', 'javascript:x']],
  ])('refuses %s in redirect_uris with invalid_redirect_uri (RFC 7591 §3.2.2)', async (_, uris) => {
    const res = await register(shared, { ...INSPECTOR, redirect_uris: uris })
    expect(res.status).toBe(400)
    expect(res.body.error).toBe('invalid_redirect_uri')
    expect(String(res.body.error_description)).toMatch(/^redirect_uris/)
  })

  it.each([
    [{ grant_types: ['client_credentials'] }, /grant_types/],
    [{ grant_types: ['refresh_token'] }, /must include authorization_code/],
    [{ response_types: ['token'] }, /response_types/],
    [{ token_endpoint_auth_method: 'private_key_jwt' }, /token_endpoint_auth_method/],
    [{ client_name: 'x'.repeat(201) }, /client_name/],
    [{ client_uri: 'javascript:alert(1)' }, /client_uri: expected an https URL/],
    [{ scope: 'a"b' }, /scope/],
  ])('refuses %j with invalid_client_metadata', async (extra, reason) => {
    const res = await register(shared, { ...INSPECTOR, ...extra })
    expect(res.status).toBe(400)
    expect(res.body.error).toBe('invalid_client_metadata')
    expect(String(res.body.error_description)).toMatch(reason)
  })

  it('refuses a body that is not a JSON object, or not JSON at all', async () => {
    expect((await register(shared, '[1]')).body.error).toBe('invalid_client_metadata')
    expect((await register(shared, '{')).body.error).toBe('invalid_client_metadata')
    const text = await register(shared, '{}', { 'content-type': 'text/plain' })
    expect(text.status).toBe(415)
    const get = await fetch(`${shared.url}/mcp/oauth/register`)
    expect(get.status).toBe(405)
    expect(get.headers.get('allow')).toBe('POST, OPTIONS')
  })

  it('refuses a body larger than 16 KiB with 413', async () => {
    const res = await register(shared, { ...INSPECTOR, client_name: 'x'.repeat(20_000) })
    expect(res.status).toBe(413)
  })

  it('answers a flood from one address with 429 and Retry-After once past perSourceLimit', async () => {
    const g = await start({ registration: { perSourceLimit: 5, perSourceWindow: '1h' } })
    const statuses: number[] = []
    for (let i = 0; i < 8; i++) statuses.push((await register(g, INSPECTOR)).status)
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429, 429, 429])
    const last = await register(g, INSPECTOR)
    expect(last.body.error).toBe('temporarily_unavailable')
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(3000)
  })

  it('stays bounded by the store: a full client namespace answers 503 with Retry-After', async () => {
    const g = await start({
      registration: { perSourceLimit: 100_000, perSourceUnusedLimit: 100_000 },
      store: { memory: { maxEntries: 100 } },
    })
    expect((await register(g, INSPECTOR)).status).toBe(201)
    const results = await Promise.all(
      Array.from({ length: 120 }, () => register(g, INSPECTOR).then((r) => r.status)),
    )
    expect(results.filter((s) => s === 201)).toHaveLength(99)
    expect(results.filter((s) => s === 503)).toHaveLength(21)
    const full = await register(g, INSPECTOR)
    expect(full.status).toBe(503)
    // Truthful: the earliest registration (unused) expires 1 h (unusedClientTtl) after it was
    // made, a few seconds ago — not a fixed 30 s.
    const retryAfter = Number(full.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThan(3500)
    expect(retryAfter).toBeLessThanOrEqual(3600)
    expect(String(full.body.error_description)).toMatch(/client store is full \(100 entries\)/)
  })

  it('bounds the unused registrations one address holds: perSourceUnusedLimit per unusedClientTtl', async () => {
    const g = await start({
      registration: { perSourceLimit: 100_000, perSourceUnusedLimit: 3, unusedClientTtl: '10m' },
    })
    for (let i = 0; i < 3; i++) expect((await register(g, INSPECTOR)).status).toBe(201)
    const limited = await register(g, INSPECTOR)
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('600')
    expect(String(limited.body.error_description)).toMatch(/at most 3 per 10m/)
  })
})
