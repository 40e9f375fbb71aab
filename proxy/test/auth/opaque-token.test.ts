/**
 * Opaque-token validation (proxy/src/auth/opaque-token.ts) against a real loopback server playing
 * the IdP's introspection (RFC 7662) or UserInfo endpoint: what the gateway sends, how each answer
 * is judged (RFC 7662 §2.2 members: active, aud, iss, exp, nbf, token_type, cnf) and the fail-closed
 * paths — 5xx, refused client credentials, non-JSON, an answer past the size bound, an endpoint
 * that never answers — each of which a real server produces on demand, so no msw.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { MAX_ANSWER_BYTES, OpaqueTokenValidator } from '../../src/auth/opaque-token.js'
import { BackendConfigSchema, OpaqueTokensSchema } from '../../src/config/schema.js'
import { createUpstream } from '../../src/http/upstream.js'

const ISSUER = 'https://idp.example.com/oauth2/default'
const TOKEN = 'opaque.TOKEN-value_1234567890'

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.()
})

interface Seen {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
}

type Handler = (req: IncomingMessage, res: ServerResponse, seen: Seen) => void

/** A loopback IdP endpoint answering with `handler`, and a validator configured for it. */
async function idp(handler: Handler, config: Record<string, unknown> = {}) {
  const seen: Seen[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => {
      body += c.toString()
    })
    req.on('end', () => {
      const s = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body }
      seen.push(s)
      handler(req, res, s)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  cleanups.push(() => new Promise((r) => server.close(r)))
  cleanups.push(() => server.closeAllConnections())
  const { port } = server.address() as AddressInfo
  const upstream = createUpstream(
    BackendConfigSchema.parse({ static: { host: '127.0.0.1', port } }),
  )
  cleanups.push(() => upstream.close())
  const parsed = OpaqueTokensSchema.parse({
    issuer: ISSUER,
    audiences: ['api://default'],
    introspection: {
      backendRef: { name: 'idp' },
      path: '/introspect',
      clientId: 'gatehouse:rs',
      clientSecret: 's3cr/t+?',
    },
    ...config,
  })
  return { validator: new OpaqueTokenValidator(parsed, upstream), seen, port }
}

const json = (status: number, body: unknown) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

const now = () => Math.floor(Date.now() / 1000)
const active = (extra: Record<string, unknown> = {}) => ({
  active: true,
  sub: 'alice',
  aud: 'api://default',
  iss: ISSUER,
  exp: now() + 600,
  scope: 'openid profile',
  groups: ['AI-Users'],
  token_type: 'Bearer',
  ...extra,
})

describe('OpaqueTokenValidator (introspection)', () => {
  it('POSTs the token as a form with client_secret_basic credentials (RFC 7662 §2.1)', async () => {
    const { validator, seen } = await idp(json(200, active()))
    const result = await validator.validate(TOKEN)
    expect(result).toMatchObject({ ok: true, issuer: ISSUER })
    const [req] = seen
    expect(req?.method).toBe('POST')
    expect(req?.url).toBe('/introspect')
    expect(req?.headers['content-type']).toBe('application/x-www-form-urlencoded')
    const form = new URLSearchParams(req?.body)
    expect(form.get('token')).toBe(TOKEN)
    expect(form.get('token_type_hint')).toBe('access_token')
    expect(form.get('client_secret')).toBeNull()
    // RFC 6749 §2.3.1: id and secret form-encoded before Base64 (":" and "/" escaped).
    const basic = Buffer.from(
      String(req?.headers.authorization).replace(/^Basic /, ''),
      'base64',
    ).toString()
    expect(basic).toBe('gatehouse%3Ars:s3cr%2Ft%2B%3F')
  })

  it('sends the credentials as form fields with client_secret_post', async () => {
    const { validator, seen } = await idp(json(200, active()), {
      introspection: {
        backendRef: { name: 'idp' },
        path: '/introspect',
        clientId: 'rs',
        clientSecret: 'secret',
        authMethod: 'client_secret_post',
      },
    })
    expect((await validator.validate(TOKEN)).ok).toBe(true)
    const form = new URLSearchParams(seen[0]?.body)
    expect(form.get('client_id')).toBe('rs')
    expect(form.get('client_secret')).toBe('secret')
    expect(seen[0]?.headers.authorization).toBeUndefined()
  })

  it("gives the answer's claims, without any member that echoes the token", async () => {
    const { validator } = await idp(json(200, active({ jti: TOKEN, username: 'alice' })))
    const result = await validator.validate(TOKEN)
    if (!result.ok) throw new Error(result.description)
    expect(result.claims).toMatchObject({ sub: 'alice', groups: ['AI-Users'], username: 'alice' })
    expect(Object.values(result.claims)).not.toContain(TOKEN)
  })

  it('refuses an inactive token with invalid_token (RFC 7662 §2.2 active: false)', async () => {
    const { validator } = await idp(json(200, { active: false }))
    expect(await validator.validate(TOKEN)).toMatchObject({ ok: false, check: 'inactive' })
  })

  it.each([
    ['no aud', { aud: undefined }, 'audience', /names no audience/],
    ['another aud', { aud: 'api://other' }, 'audience', /not for this audience/],
    ['another iss', { iss: 'https://evil.example.com' }, 'issuer', /accepted issuer/],
    ['an exp in the past', { exp: now() - 3600 }, 'expired', /expired/],
    ['an nbf in the future', { nbf: now() + 3600 }, 'not_yet_valid', /not yet valid/],
    ['a refresh token type', { token_type: 'refresh_token' }, 'claims', /not a bearer/],
    ['a cnf (sender-constrained)', { cnf: { jkt: 'x' } }, 'claims', /sender-constrained/],
  ])('refuses an active answer with %s', async (_name, extra, check, description) => {
    const { validator } = await idp(json(200, active(extra)))
    const result = await validator.validate(TOKEN)
    expect(result).toMatchObject({ ok: false, check })
    if (result.ok) throw new Error('accepted')
    expect(result.description).toMatch(description)
    expect(result.code).toBeUndefined()
  })

  it.each([
    ['an aud list naming the audience', { aud: ['x', 'api://default'] }],
    ['no iss (RFC 7662 §2.2: optional)', { iss: undefined }],
    ['no exp and no token_type', { exp: undefined, token_type: undefined }],
    ['token_type in lower case', { token_type: 'bearer' }],
  ])('accepts an active answer with %s', async (_name, extra) => {
    const { validator } = await idp(json(200, active(extra)))
    expect((await validator.validate(TOKEN)).ok).toBe(true)
  })

  it('asks the IdP once for a token it accepted, and once for one it refused (refusalCacheDuration)', async () => {
    let answer: unknown = active()
    const { validator, seen } = await idp((req, res) => json(200, answer)(req, res))
    await validator.validate(TOKEN)
    await validator.validate(TOKEN)
    expect(seen).toHaveLength(1)
    answer = { active: false }
    expect(await validator.validate('another-token')).toMatchObject({
      ok: false,
      check: 'inactive',
    })
    expect(await validator.validate('another-token')).toMatchObject({
      ok: false,
      check: 'inactive',
    })
    expect(seen).toHaveLength(2)
    expect(validator.dump()).toMatchObject({ cached: 1, refusalsCached: 1 })
  })

  it('asks again for a refused token with refusalCacheDuration 0s', async () => {
    const { validator, seen } = await idp(json(200, { active: false }), {
      refusalCacheDuration: '0s',
    })
    await validator.validate(TOKEN)
    await validator.validate(TOKEN)
    expect(seen).toHaveLength(2)
  })

  it('a flood of random tokens from one address: perSource calls reach the IdP, the rest get 503 unasked', async () => {
    const { validator, seen } = await idp(json(200, { active: false }), {
      idpCallLimit: { perSource: 5, window: '1m' },
    })
    const outcomes = []
    for (let i = 0; i < 50; i++)
      outcomes.push(await validator.validate(`random-${i}`, '203.0.113.7'))
    expect(seen).toHaveLength(5)
    expect(outcomes.slice(0, 5).every((o) => !o.ok && o.check === 'inactive')).toBe(true)
    const limited = outcomes.slice(5)
    expect(limited.every((o) => !o.ok && o.code === 'GW_ERR_TOKEN_VALIDATION_UNAVAILABLE')).toBe(
      true,
    )
    expect(!limited[0]?.ok && limited[0]?.cause).toMatch(/idpCallLimit\.perSource/)
    // Another address has its own allowance; a remembered refusal costs none.
    expect(await validator.validate('random-0', '198.51.100.1')).toMatchObject({
      check: 'inactive',
    })
    expect(await validator.validate('random-50', '198.51.100.1')).toMatchObject({
      check: 'inactive',
    })
    expect(seen).toHaveLength(6)
  })

  it('at most maxInFlight calls run at once, over all addresses', async () => {
    const held: ServerResponse[] = []
    let hold = true
    const { validator, seen } = await idp(
      (req, res) => (hold ? held.push(res) : json(200, { active: false })(req, res)),
      {
        idpCallLimit: { maxInFlight: 2 },
      },
    )
    const first = [validator.validate('t-1', 'a'), validator.validate('t-2', 'b')]
    await vi.waitFor(() => expect(seen).toHaveLength(2))
    expect(await validator.validate('t-3', 'c')).toMatchObject({
      ok: false,
      code: 'GW_ERR_TOKEN_VALIDATION_UNAVAILABLE',
      cause: expect.stringMatching(/idpCallLimit\.maxInFlight/),
    })
    hold = false
    for (const res of held) json(200, { active: false })(undefined as never, res)
    await Promise.all(first)
    expect(await validator.validate('t-3', 'c')).toMatchObject({ check: 'inactive' })
  })

  it("never uses a cached answer past the token's exp (RFC 7662 §4), however long cacheDuration is", async () => {
    const exp = now() + 30
    const { validator, seen } = await idp(json(200, active({ exp })), { cacheDuration: '1h' })
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() })
    try {
      expect((await validator.validate(TOKEN)).ok).toBe(true)
      vi.setSystemTime(exp * 1000 - 1000)
      expect((await validator.validate(TOKEN)).ok).toBe(true)
      expect(seen).toHaveLength(1)
      vi.setSystemTime(exp * 1000 + 61_000)
      expect(await validator.validate(TOKEN)).toMatchObject({ ok: false, check: 'expired' })
      expect(seen).toHaveLength(2)
    } finally {
      vi.useRealTimers()
    }
  })

  it('makes one introspection call for 1,000 concurrent requests with the same new token', async () => {
    const { validator, seen } = await idp(json(200, active()))
    const results = await Promise.all(
      Array.from({ length: 1000 }, () => validator.validate('fresh-token')),
    )
    expect(results.every((r) => r.ok)).toBe(true)
    expect(seen).toHaveLength(1)
  })
})

describe('OpaqueTokenValidator fails closed', () => {
  const unavailable = {
    ok: false,
    check: 'validation_unavailable',
    code: 'GW_ERR_TOKEN_VALIDATION_UNAVAILABLE',
    description: 'the identity provider could not validate the token; try again later',
  }

  it.each([
    ['a 5xx', json(503, { error: 'down' }), /HTTP 503/],
    ['a 401 for the gateway credentials', json(401, { error: 'invalid_client' }), /HTTP 401/],
    [
      'a body that is not JSON',
      (_q: IncomingMessage, r: ServerResponse) => r.end('<html>'),
      /not an RFC 7662/,
    ],
    ['JSON without active', json(200, { sub: 'alice' }), /not an RFC 7662/],
    ['a JSON array', json(200, [{ active: true }]), /not an RFC 7662/],
    ['active as a string', json(200, { active: 'true', aud: 'api://default' }), /not an RFC/],
    [
      'an answer past the size bound',
      (_q: IncomingMessage, r: ServerResponse) => {
        r.writeHead(200, { 'content-type': 'application/json' })
        r.end(JSON.stringify(active({ padding: 'x'.repeat(MAX_ANSWER_BYTES) })))
      },
      /larger than 65536 bytes/,
    ],
  ])('refuses with 503 when the IdP answers %s', async (_name, handler, cause) => {
    const { validator, port } = await idp(handler)
    const result = await validator.validate(TOKEN)
    expect(result).toMatchObject(unavailable)
    if (result.ok) throw new Error('accepted')
    expect(result.cause).toMatch(cause)
    // What the client sees names neither the IdP's address nor the token.
    expect(result.description).not.toContain(String(port))
    expect(result.description).not.toContain(TOKEN)
  })

  it('refuses with 503 when the endpoint never answers (timeout)', async () => {
    const { validator } = await idp(() => {}, { timeout: '100ms' })
    const result = await validator.validate(TOKEN)
    expect(result).toMatchObject(unavailable)
    if (result.ok) throw new Error('accepted')
    expect(result.cause).toMatch(/timed out|abort/i)
  })

  it('refuses with 503 when nothing listens at the endpoint', async () => {
    const closed = createServer()
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
    const { port } = closed.address() as AddressInfo
    await new Promise((r) => closed.close(r))
    const upstream = createUpstream(
      BackendConfigSchema.parse({ static: { host: '127.0.0.1', port } }),
    )
    cleanups.push(() => upstream.close())
    const config = OpaqueTokensSchema.parse({
      issuer: ISSUER,
      audiences: ['api://default'],
      introspection: { backendRef: { name: 'idp' }, path: '/i', clientId: 'c', clientSecret: 's' },
    })
    const result = await new OpaqueTokenValidator(config, upstream).validate(TOKEN)
    expect(result).toMatchObject(unavailable)
    if (result.ok) throw new Error('accepted')
    expect(result.cause).toMatch(/refused/i)
  })

  it('asks again after a failure: the outage is not remembered', async () => {
    let down = true
    const { validator, seen } = await idp((req, res) =>
      down ? json(500, {})(req, res) : json(200, active())(req, res),
    )
    expect((await validator.validate(TOKEN)).ok).toBe(false)
    down = false
    expect((await validator.validate(TOKEN)).ok).toBe(true)
    expect(seen).toHaveLength(2)
  })
})

describe('OpaqueTokenValidator (userinfo)', () => {
  const userinfo = { userinfo: { backendRef: { name: 'google' }, path: '/v1/userinfo' } }
  const config = { ...userinfo, introspection: undefined, audiences: undefined }

  it('GETs UserInfo with the token as a bearer and takes its claims', async () => {
    const { validator, seen } = await idp(
      json(200, { sub: '1093', email: 'alice@example.com', hd: 'example.com' }),
      config,
    )
    const result = await validator.validate(TOKEN)
    expect(result).toMatchObject({ ok: true, claims: { sub: '1093', hd: 'example.com' } })
    expect(seen[0]?.method).toBe('GET')
    expect(seen[0]?.url).toBe('/v1/userinfo')
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`)
  })

  it('refuses a token UserInfo answers 401 for', async () => {
    const { validator } = await idp(json(401, { error: 'invalid_token' }), config)
    expect(await validator.validate(TOKEN)).toMatchObject({ ok: false, check: 'inactive' })
  })

  it.each([
    ['a 5xx', json(500, {})],
    ['a 429', json(429, {})],
    ['an answer without sub (OIDC Core §5.3.2)', json(200, { email: 'a@example.com' })],
  ])('fails closed with 503 on %s', async (_name, handler) => {
    const { validator } = await idp(handler, config)
    expect(await validator.validate(TOKEN)).toMatchObject({
      ok: false,
      code: 'GW_ERR_TOKEN_VALIDATION_UNAVAILABLE',
    })
  })

  it('dumps its settings without the client secret', async () => {
    const { validator } = await idp(json(200, active()))
    const dump = JSON.stringify(validator.dump())
    expect(dump).toContain('gatehouse:rs')
    expect(dump).not.toContain('s3cr/t+?')
  })
})
