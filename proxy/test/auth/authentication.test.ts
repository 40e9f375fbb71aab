/**
 * The first two stages of a policy as units (proxy/src/auth/authentication.ts, authorization.ts):
 * what each outcome answers, what it records in the request trace (`gwctl trace`) and what it
 * logs, for static keys (inline JWKS and a JWKS file) and the duplicate-Authorization refusal
 * (RFC 6750 §3.1). The trace is read through a recorder: the stages only call `event` on it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import type { JWK } from 'jose'
import { beforeAll, describe, expect, it } from 'vitest'
import { JwtAuthentication } from '../../src/auth/authentication.js'
import { RuleAuthorization } from '../../src/auth/authorization.js'
import { Challenge } from '../../src/auth/challenge.js'
import type { AuthContext, AuthStageRequest } from '../../src/auth/types.js'
import type { GatehouseConfig } from '../../src/config/schema.js'
import { JwtProviderSchema } from '../../src/config/schema.js'
import { createLogging } from '../../src/telemetry/logging.js'
import { TaskRegistry } from '../../src/telemetry/tasks.js'
import { capturedLogging } from '../helpers.js'
import { type Es256Signer, es256Signer } from './signer.js'

const ISSUER = 'https://idp.example/oauth2/default'
const PRM = 'https://gw.example/.well-known/oauth-protected-resource/mcp'

let jwk: JWK
let sign: Es256Signer['sign']
beforeAll(async () => {
  const signer = await es256Signer({
    iss: ISSUER,
    aud: 'api://default',
    sub: 'alice',
    groups: ['AI-Users'],
  })
  jwk = signer.jwk
  sign = signer.sign
})

interface Recorded {
  type: string
  data: Record<string, unknown>
}

function setup(
  o: { mode?: 'Strict' | 'Optional'; jwks?: Record<string, unknown>; clockSkew?: string } = {},
) {
  const logs: Array<Record<string, unknown>> = []
  const logging = capturedLogging(logs, 'debug')
  const ctx: AuthContext = {
    config: {} as GatehouseConfig,
    upstreams: new Map(),
    logging,
    tasks: new TaskRegistry(),
  }
  const provider = JwtProviderSchema.parse({
    issuer: ISSUER,
    audiences: ['api://default'],
    jwks: o.jwks ?? { inline: { keys: [jwk] } },
    ...(o.clockSkew ? { clockSkew: o.clockSkew } : {}),
  })
  const challenge = new Challenge(PRM)
  const authn = new JwtAuthentication(
    'mcp-auth',
    { mode: o.mode ?? 'Strict', providers: [provider] },
    ctx,
    challenge,
  )
  const authz = new RuleAuthorization('mcp-auth', ['"AI-Users" in jwt.groups'], logging, challenge)
  return { authn, authz, logs }
}

function request(authorization: string[] = []): AuthStageRequest & { events: Recorded[] } {
  const events: Recorded[] = []
  return {
    method: 'POST',
    path: '/mcp',
    headers: authorization.length > 0 ? { authorization: authorization[0] } : {},
    headersDistinct: authorization.length > 0 ? { authorization } : {},
    events,
    trace: {
      requestId: 'req-1',
      watched: true,
      event: (type, data) => events.push({ type, data }),
      finish: () => {},
    },
  }
}

describe('JwtAuthentication', () => {
  it('passes a valid token with its claims, and traces issuer, subject and claims', async () => {
    const { authn } = setup()
    const req = request([`Bearer ${await sign()}`])
    const r = await authn.authenticate(req)
    expect(r).toMatchObject({ ok: true, claims: { sub: 'alice', groups: ['AI-Users'] } })
    expect(req.events).toEqual([
      {
        type: 'authentication',
        data: {
          policy: 'mcp-auth',
          result: 'ok',
          issuer: ISSUER,
          subject: 'alice',
          claims: expect.objectContaining({ sub: 'alice' }),
        },
      },
    ])
    expect(authn.mode).toBe('Strict')
  })

  it('traces a null subject for a token without sub (a client-credentials token)', async () => {
    const { authn } = setup()
    const req = request([`Bearer ${await sign({ sub: undefined })}`])
    expect((await authn.authenticate(req)).ok).toBe(true)
    expect(req.events[0]?.data.subject).toBeNull()
  })

  it('refuses a request without a token in Strict mode: 401 with the challenge, traced as missing', async () => {
    const { authn } = setup()
    const req = request()
    const r = await authn.authenticate(req)
    expect(r).toEqual({
      ok: false,
      reason: 'missing_token',
      response: {
        status: 401,
        headers: {
          'cache-control': 'no-store',
          'www-authenticate': `Bearer resource_metadata="${PRM}"`,
        },
        body: { error: 'unauthorized', error_description: 'a bearer token is required' },
        code: 'GW_ERR_UNAUTHENTICATED',
      },
    })
    expect(req.events).toEqual([
      {
        type: 'authentication',
        data: { policy: 'mcp-auth', result: 'missing', check: 'no bearer token' },
      },
    ])
  })

  it('lets a request without a token through without claims in Optional mode, but not a bad token', async () => {
    const { authn } = setup({ mode: 'Optional' })
    expect(authn.mode).toBe('Optional')
    expect(await authn.authenticate(request())).toEqual({ ok: true, claims: undefined })
    const bad = await authn.authenticate(request(['Bearer abc']))
    expect(bad).toMatchObject({ ok: false, response: { status: 401 } })
  })

  it('refuses two Authorization headers with 400 invalid_request, naming how many', async () => {
    const { authn } = setup()
    const token = await sign()
    const req = request([`Bearer ${token}`, `Bearer ${token}`])
    const r = await authn.authenticate(req)
    const description =
      'the request carries 2 Authorization headers; send exactly one ("Authorization: Bearer <token>")'
    expect(r).toMatchObject({
      ok: false,
      reason: 'duplicate_authorization',
      response: { status: 400, body: { error: 'invalid_request', error_description: description } },
    })
    expect(req.events[0]?.data).toEqual({
      policy: 'mcp-auth',
      result: 'failed',
      check: 'duplicate authorization',
    })
  })

  it('refuses an invalid token with invalid_token and its description, traced and logged at debug without the token', async () => {
    const { authn, logs } = setup()
    const token = await sign({ aud: 'api://other' })
    const req = request([`Bearer ${token}`])
    const r = await authn.authenticate(req)
    expect(r).toMatchObject({
      ok: false,
      reason: 'audience',
      response: {
        status: 401,
        body: { error: 'invalid_token', error_description: 'the token is not for this audience' },
      },
    })
    expect(req.events[0]?.data).toEqual({
      policy: 'mcp-auth',
      result: 'failed',
      check: 'audience',
      reason: 'the token is not for this audience',
    })
    expect(logs.find((l) => l.code === 'GW_ERR_INVALID_TOKEN')).toMatchObject({
      level: 'debug',
      policy: 'mcp-auth',
      check: 'audience',
    })
    expect(JSON.stringify(logs)).not.toContain(token)
  })

  it('judges a malformed Authorization header as an invalid token, not a missing one', async () => {
    const { authn } = setup()
    for (const header of ['Basic dXNlcjpwdw==', 'Bearer', 'Bearer a b']) {
      const r = await authn.authenticate(request([header]))
      expect({ header, r }).toMatchObject({
        header,
        r: { ok: false, response: { status: 401, body: { error: 'invalid_token' } } },
      })
    }
  })

  it('reads the bearer credential as RFC 6750 §2.1 writes it: 1*SP, the b64token, optional trailing space', async () => {
    const { authn } = setup()
    const token = await sign()
    for (const header of [`Bearer ${token}`, `Bearer   ${token}`, `bearer ${token}  `]) {
      expect({ header, ok: (await authn.authenticate(request([header]))).ok }).toEqual({
        header,
        ok: true,
      })
    }
    for (const header of [`xBearer ${token}`, `Bearer ${token} junk`, `Bearer${token}`]) {
      expect({ header, ok: (await authn.authenticate(request([header]))).ok }).toEqual({
        header,
        ok: false,
      })
    }
  })

  it('reads the keys from a JWKS file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gatehouse-authn-')), 'jwks.json')
    writeFileSync(file, JSON.stringify({ keys: [jwk] }))
    const { authn } = setup({ jwks: { file } })
    expect(authn.keySets[0]?.url).toBe(`file:${file}`)
    expect((await authn.authenticate(request([`Bearer ${await sign()}`]))).ok).toBe(true)
  })

  it('names an inline key set by its place in the configuration', () => {
    const { authn } = setup()
    expect(authn.keySets.map((k) => k.url)).toEqual(['policies.mcp-auth.providers[0].jwks.inline'])
  })

  it('applies the clock skew in whole seconds', async () => {
    const expired = await sign({ exp: Math.floor(Date.now() / 1000) - 30 })
    const lenient = setup({ clockSkew: '45s' }).authn
    expect((await lenient.authenticate(request([`Bearer ${expired}`]))).ok).toBe(true)
    const strict = setup({ clockSkew: '10s' }).authn
    expect((await strict.authenticate(request([`Bearer ${expired}`]))).ok).toBe(false)
  })

  it('refuses a provider whose JWKS backend does not exist', () => {
    expect(() =>
      setup({ jwks: { remote: { backendRef: { name: 'nowhere' }, jwksPath: '/keys' } } }),
    ).toThrow('policies.mcp-auth: backend nowhere does not exist')
  })
})

describe('RuleAuthorization', () => {
  it('allows claims that satisfy every rule and traces each rule with its result', () => {
    const { authz } = setup()
    const req = request()
    expect(authz.authorize({ groups: ['AI-Users'] }, req)).toBeUndefined()
    expect(req.events).toEqual([
      {
        type: 'authorization',
        data: {
          policy: 'mcp-auth',
          allowed: true,
          rules: [
            expect.objectContaining({ expression: '"AI-Users" in jwt.groups', matched: true }),
          ],
        },
      },
    ])
    expect(authz.expressions).toEqual(['"AI-Users" in jwt.groups'])
  })

  it('answers 403 insufficient_scope to claims that fail a rule, and logs the rules at debug', () => {
    const { authz, logs } = setup()
    const req = request()
    const r = authz.authorize({ groups: ['Others'] }, req)
    expect(r).toEqual({
      status: 403,
      headers: {
        'cache-control': 'no-store',
        'www-authenticate': `Bearer resource_metadata="${PRM}", error="insufficient_scope"`,
      },
      body: {
        error: 'insufficient_scope',
        error_description:
          'the token is valid but does not satisfy the authorization rules of this route',
      },
      code: 'GW_ERR_INSUFFICIENT_SCOPE',
    })
    expect(req.events[0]?.data.allowed).toBe(false)
    expect(logs.find((l) => l.code === 'GW_ERR_INSUFFICIENT_SCOPE')).toMatchObject({
      level: 'debug',
      policy: 'mcp-auth',
      rules: [{ expression: '"AI-Users" in jwt.groups', matched: false }],
    })
  })

  it('denies when any one of several rules fails', () => {
    const logging = createLogging({
      filter: 'error',
      destination: new Writable({ write: (_c, _e, cb) => cb() }),
    })
    const two = new RuleAuthorization(
      'mcp-auth',
      ['"AI-Users" in jwt.groups', 'jwt.sub == "alice"'],
      logging,
      new Challenge(PRM),
    )
    expect(two.authorize({ groups: ['AI-Users'], sub: 'alice' }, request())).toBeUndefined()
    expect(two.authorize({ groups: ['AI-Users'], sub: 'bob' }, request())?.status).toBe(403)
  })

  it('judges the empty claim set of a request without a token (Optional mode)', () => {
    const { authz } = setup()
    expect(authz.authorize(undefined, request())?.status).toBe(403)
  })

  it('remembers the outcome per claims object, and judges another object afresh', () => {
    const { authz } = setup()
    const claims = { groups: ['AI-Users'] }
    expect(authz.authorize(claims, request())).toBeUndefined()
    // The same verified claims object (a cached token) keeps its outcome …
    expect(authz.authorize(claims, request())).toBeUndefined()
    // … while equal-looking claims in another object are evaluated on their own.
    expect(authz.authorize({ groups: ['Others'] }, request())?.status).toBe(403)
  })
})
