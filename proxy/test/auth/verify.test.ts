/**
 * The verifier (proxy/src/auth/verify.ts): over real HTTP, a token without `exp` is refused
 * (RFC 9068 §2.2) and an unknown critical extension says so (RFC 7515 §4.1.11); as a unit, the
 * cache, issuer, audience, lifetime with clock skew, algorithms and signature.
 */

import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { initializeRequest, type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { SignJWT } from 'jose'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { KeySet } from '../../src/auth/jwks.js'
import { TokenVerifier } from '../../src/auth/verify.js'
import { createLogging } from '../../src/telemetry/logging.js'
import { TaskRegistry } from '../../src/telemetry/tasks.js'
import { startTestGatehouse, type TestGatehouse } from '../helpers.js'
import { authConfig } from './config.js'
import { startTinyIdp, type TinyIdp } from './tiny-idp.js'

let idp: TinyIdp
let backend: McpBackend
let gh: TestGatehouse | undefined

beforeAll(async () => {
  idp = await startTinyIdp()
  backend = await startMcpBackend()
})
afterEach(async () => {
  await gh?.stop('done')
  gh = undefined
})
afterAll(async () => {
  await backend.stop()
  await idp.stop()
})

/**
 * Sends an MCP initialize with the token through a gatehouse started for the test (not in a
 * beforeAll hook: the key set it builds would make every mutant of the auth code "static").
 */
async function send(
  token: string,
): Promise<{ status: number; body: Record<string, string>; challenge: string | null }> {
  gh ??= await startTestGatehouse(
    authConfig({ idpPort: idp.port, backendPort: backend.port, issuer: idp.issuer }),
  )
  const res = await fetch(`${gh.url}/mcp`, initializeRequest({ bearer: token }))
  const text = await res.text()
  // A 200 is the MCP answer (possibly an event stream); a refusal is the JSON error body.
  return {
    status: res.status,
    body: res.ok ? {} : (JSON.parse(text) as Record<string, string>),
    challenge: res.headers.get('www-authenticate'),
  }
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

  it('answers 401, not 500, for a crit naming a non-Latin-1 extension (RFC 6750 §3 quoted-string)', async () => {
    const exp = Math.floor(Date.now() / 1000) + 600
    const ext = '中\u001b[31m'
    // Built by hand: jose refuses to sign a crit it does not know. The verdict comes before the
    // signature is checked, so the signature part need not verify.
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
    const header = { alg: 'RS256', kid: idp.currentKey().kid, crit: [ext], [ext]: true }
    const payload = { iss: idp.issuer, aud: 'api://default', sub: 'alice', exp }
    const r = await send(`${b64(header)}.${b64(payload)}.${b64('sig')}`)
    expect(r.status).toBe(401)
    // Only the characters RFC 6750 §3 allows in error_description: %x20-21 / %x23-5B / %x5D-7E.
    expect(r.challenge).toMatch(/^[\x20-\x7e]+$/)
    expect(r.challenge).toContain('error="invalid_token"')
    expect(r.challenge).toContain('%E4%B8%AD')
    // The JSON body keeps the text as it is (JSON escapes what it must).
    expect(r.body.error_description).toContain('中')
  })
})

describe('TokenVerifier (unit, static keys)', () => {
  async function verifierFor(clockSkewSec = 60) {
    const keys = new KeySet(
      idp.issuer,
      { kind: 'static', jwks: idp.publicJwks() as never, origin: 'inline' },
      createLogging({ filter: 'error' }).logger('proxy::auth::jwks'),
      new TaskRegistry(),
    )
    return new TokenVerifier([
      { issuer: idp.issuer, audiences: ['api://default'], clockSkewSec, keys },
    ])
  }
  const now = () => Math.floor(Date.now() / 1000)

  it('caches a verified token: the same claims object comes back', async () => {
    const v = await verifierFor()
    const token = await idp.sign()
    const a = await v.verify(token)
    const b = await v.verify(token)
    expect(a.ok && b.ok).toBe(true)
    if (a.ok && b.ok) expect(b.claims).toBe(a.claims)
  })

  it('holds memory for the tokens it cached, not for its 10,000-token bound up front', async () => {
    // Regression: the cache allocated its arrays for 10,000 entries when built, about 370 KiB
    // per verifier (so per JWT policy) before a single token was seen.
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    setFlagsFromString('--no-expose-gc')
    const token = await idp.sign()
    const held: TokenVerifier[] = []
    gc()
    const before = process.memoryUsage().heapUsed
    for (let i = 0; i < 50; i++) {
      const v = await verifierFor()
      expect((await v.verify(token)).ok).toBe(true)
      held.push(v)
    }
    gc()
    const perVerifierKiB = (process.memoryUsage().heapUsed - before) / held.length / 1024
    expect(perVerifierKiB).toBeLessThan(64)
  })

  it.each([
    ['an unaccepted issuer', { iss: 'https://evil.example/oauth2/default' }, 'issuer'],
    ['another audience', { aud: 'api://other' }, 'audience'],
    ['exp beyond the clock skew', { exp: now() - 120 }, 'expired'],
    ['nbf beyond the clock skew', { nbf: now() + 120 }, 'not_yet_valid'],
  ])('refuses a token with %s', async (_what, claims, check) => {
    const v = await verifierFor()
    const r = await v.verify(await idp.sign(claims))
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.check).toBe(check)
  })

  it('accepts exp within the clock skew and refuses it with skew 0', async () => {
    const token = await idp.sign({ exp: now() - 30 })
    expect((await (await verifierFor(60)).verify(token)).ok).toBe(true)
    expect((await (await verifierFor(0)).verify(token)).ok).toBe(false)
  })

  it('refuses alg none and an HMAC token signed with the public key (RFC 8725 §3.1)', async () => {
    const v = await verifierFor()
    const payload = Buffer.from(
      JSON.stringify({ iss: idp.issuer, aud: 'api://default', exp: now() + 600 }),
    ).toString('base64url')
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`
    expect(await v.verify(none)).toMatchObject({ ok: false })
    const jwk = idp.publicJwks().keys[0]
    const hs = await new SignJWT({ iss: idp.issuer, aud: 'api://default', exp: now() + 600 })
      .setProtectedHeader({ alg: 'HS256', kid: jwk?.kid })
      .sign(new TextEncoder().encode(JSON.stringify(jwk)))
    const r = await v.verify(hs)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.check).toBe('algorithm')
  })

  it('refuses a token whose signature was tampered with', async () => {
    const v = await verifierFor()
    const [h, , s] = (await idp.sign()).split('.')
    const forged = Buffer.from(
      JSON.stringify({
        iss: idp.issuer,
        aud: 'api://default',
        exp: now() + 600,
        groups: ['AI-Users', 'Admins'],
      }),
    ).toString('base64url')
    const r = await v.verify(`${h}.${forged}.${s}`)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.check).toBe('signature')
  })
})
