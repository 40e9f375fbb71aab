/**
 * What the verifier (proxy/src/auth/verify.ts) tells a client whose token it refuses: each failed
 * check with the exact description that becomes the 401's `error_description` (RFC 6750 §3), the
 * algorithms it accepts (RFC 7518 §3.1, RFC 8037), and the key set's part: fail closed without
 * keys, retry once after a rotation, forget cached verdicts when the keys change.
 */
import { Writable } from 'node:stream'
import {
  type CryptoKey,
  exportJWK,
  generateKeyPair,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { KeySet } from '../../src/auth/jwks.js'
import { ACCEPTED_ALGORITHMS, TokenVerifier } from '../../src/auth/verify.js'
import { BackendConfigSchema } from '../../src/config/schema.js'
import { createUpstream, type Upstream } from '../../src/http/upstream.js'
import { createLogging } from '../../src/telemetry/logging.js'
import { TaskRegistry } from '../../src/telemetry/tasks.js'
import { startTinyIdp, type TinyIdp } from './tiny-idp.js'

const ISSUER = 'https://idp.example/oauth2/default'
const AUDIENCE = 'api://default'
const now = () => Math.floor(Date.now() / 1000)
/** A logger that writes nowhere (the key set logs its failures; these tests read verdicts). */
const quiet = () =>
  createLogging({
    filter: 'error',
    destination: new Writable({ write: (_c, _e, cb) => cb() }),
  }).logger('proxy::auth::jwks')

interface Signer {
  alg: string
  kid: string
  privateKey: CryptoKey
  jwk: JWK
}

async function signer(alg: string, kid = alg): Promise<Signer> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true })
  return { alg, kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg } }
}

function staticVerifier(keys: JWK[], issuer = ISSUER): TokenVerifier {
  const keySet = new KeySet(
    issuer,
    { kind: 'static', jwks: { keys } as never, origin: 'inline' },
    quiet(),
    new TaskRegistry(),
  )
  return new TokenVerifier([{ issuer, audiences: [AUDIENCE], clockSkewSec: 60, keys: keySet }])
}

function sign(
  s: Signer,
  claims: JWTPayload = {},
  header: Record<string, unknown> = {},
): Promise<string> {
  return new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'alice', exp: now() + 600, ...claims })
    .setProtectedHeader({ alg: s.alg, kid: s.kid, ...header })
    .sign(s.privateKey, { crit: { 'urn:example:a': true, 'urn:example:b': true } })
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')

let rs: Signer
let verifier: TokenVerifier
beforeAll(async () => {
  rs = await signer('RS256', 'rs')
})
beforeEach(() => {
  verifier = staticVerifier([rs.jwk])
})

describe('TokenVerifier: the description of each refusal', () => {
  const cases: Array<[string, () => Promise<string> | string, string, string]> = [
    ['not a JWT', () => 'abc', 'malformed', 'the bearer token is not a JWT'],
    [
      'a payload that is not JSON',
      () => `${b64({ alg: 'RS256' })}.${Buffer.from('nope').toString('base64url')}.sig`,
      'malformed',
      'the bearer token is not a JWT',
    ],
    [
      'an issuer no provider has',
      () => sign(rs, { iss: 'https://evil.example' }),
      'issuer',
      'the token was not issued by an accepted issuer',
    ],
    [
      'another audience',
      () => sign(rs, { aud: 'api://other' }),
      'audience',
      'the token is not for this audience',
    ],
    ['an old exp', () => sign(rs, { exp: now() - 600 }), 'expired', 'the token has expired'],
    [
      'a future nbf',
      () => sign(rs, { nbf: now() + 600 }),
      'not_yet_valid',
      'the token is not yet valid',
    ],
    [
      'no exp',
      () => sign(rs, { exp: undefined }),
      'claims',
      'the token has no exp claim; an access token must carry exp (RFC 9068 §2.2)',
    ],
    [
      'an exp that is not a number',
      () => sign(rs, { exp: 'tomorrow' as unknown as number }),
      'claims',
      'invalid exp claim',
    ],
    [
      'a kid the key set does not have',
      () => sign(rs, {}, { kid: 'other' }),
      'signature',
      'no key of the issuer matches the token',
    ],
    [
      'a signature that does not verify',
      async () => {
        const [h, p] = (await sign(rs)).split('.')
        const other = (await sign(rs, { sub: 'mallory' })).split('.')[2]
        return `${h}.${p}.${other}`
      },
      'signature',
      'the token signature is invalid',
    ],
    [
      'an algorithm that is not accepted (HS256)',
      () =>
        new SignJWT({ iss: ISSUER, aud: AUDIENCE, exp: now() + 600 })
          .setProtectedHeader({ alg: 'HS256', kid: 'rs' })
          .sign(new TextEncoder().encode('0123456789abcdef0123456789abcdef')),
      'algorithm',
      'the token is signed with an algorithm that is not accepted',
    ],
    [
      'crit naming extensions',
      () =>
        sign(
          rs,
          {},
          { crit: ['urn:example:a', 'urn:example:b'], 'urn:example:a': 1, 'urn:example:b': 2 },
        ),
      'critical_extension',
      'the token header marks the extension "urn:example:a", "urn:example:b" as critical (crit), and the gateway does not understand it (RFC 7515 §4.1.11)',
    ],
  ]
  for (const [what, token, check, description] of cases) {
    it(`${what}: ${check}, "${description}"`, async () => {
      expect(await verifier.verify(await token())).toEqual({ ok: false, check, description })
    })
  }

  const malformedCrit =
    'the token header has a malformed crit parameter: it must be a non-empty list of extension names (RFC 7515 §4.1.11)'
  for (const crit of [[], ['urn:example:a', 7], 'urn:example:a', {}]) {
    it(`crit ${JSON.stringify(crit)}: critical_extension, malformed`, async () => {
      const payload = b64({ iss: ISSUER, aud: AUDIENCE, exp: now() + 600 })
      const token = `${b64({ alg: 'RS256', kid: 'rs', crit })}.${payload}.sig`
      expect(await verifier.verify(token)).toEqual({
        ok: false,
        check: 'critical_extension',
        description: malformedCrit,
      })
    })
  }

  it('a valid token passes with its claims and issuer', async () => {
    const r = await verifier.verify(await sign(rs, { groups: ['g'] }))
    expect(r).toMatchObject({ ok: true, issuer: ISSUER, claims: { sub: 'alice', groups: ['g'] } })
  })
})

describe('TokenVerifier: algorithms', () => {
  it('accepts exactly the asymmetric JWS algorithms', () => {
    expect(ACCEPTED_ALGORITHMS).toEqual([
      'RS256',
      'RS384',
      'RS512',
      'PS256',
      'PS384',
      'PS512',
      'ES256',
      'ES384',
      'ES512',
      'EdDSA',
      'Ed25519',
    ])
  })

  it('verifies a token signed with each of them', async () => {
    const signers = await Promise.all(ACCEPTED_ALGORITHMS.map((alg) => signer(alg)))
    const v = staticVerifier(signers.map((s) => s.jwk))
    for (const s of signers) {
      expect({ alg: s.alg, ok: (await v.verify(await sign(s))).ok }).toEqual({
        alg: s.alg,
        ok: true,
      })
    }
  })
})

describe('TokenVerifier: several providers', () => {
  it('verifies each token with the provider its iss names, and is programmed when all have keys', async () => {
    const other = await signer('ES256', 'es')
    const keysA = new KeySet(
      ISSUER,
      { kind: 'static', jwks: { keys: [rs.jwk] } as never, origin: 'inline' },
      quiet(),
      new TaskRegistry(),
    )
    const keysB = new KeySet(
      'https://other.example',
      { kind: 'static', jwks: { keys: [other.jwk] } as never, origin: 'inline' },
      quiet(),
      new TaskRegistry(),
    )
    const v = new TokenVerifier([
      { issuer: ISSUER, audiences: [AUDIENCE], clockSkewSec: 60, keys: keysA },
      { issuer: 'https://other.example', audiences: ['api://b'], clockSkewSec: 60, keys: keysB },
    ])
    const b = await v.verify(await sign(other, { iss: 'https://other.example', aud: 'api://b' }))
    expect(b).toMatchObject({ ok: true, issuer: 'https://other.example' })
    // B's audience is not A's: a token of A's issuer for B's audience is refused.
    expect(await v.verify(await sign(rs, { aud: 'api://b' }))).toMatchObject({
      ok: false,
      check: 'audience',
    })
  })
})

describe('TokenVerifier with a fetched key set', () => {
  let idp: TinyIdp
  let upstream: Upstream
  let keys: KeySet
  beforeEach(async () => {
    idp = await startTinyIdp()
    upstream = createUpstream(
      BackendConfigSchema.parse({ static: { host: '127.0.0.1', port: idp.port } }),
    )
    keys = new KeySet(
      idp.issuer,
      { kind: 'remote', upstream, path: '/oauth2/default/v1/keys', refreshMs: 300_000 },
      quiet(),
      new TaskRegistry(),
    )
  })
  afterEach(async () => {
    keys.stop()
    await upstream.close()
    await idp.stop()
  })
  const verifierOf = () =>
    new TokenVerifier([{ issuer: idp.issuer, audiences: [idp.audience], clockSkewSec: 60, keys }])

  it('fails closed while the keys were never fetched: no_keys, the gateway error code', async () => {
    idp.keysDown(true)
    await keys.start()
    const v = verifierOf()
    expect(await v.verify(await idp.sign())).toEqual({
      ok: false,
      check: 'no_keys',
      code: 'GW_ERR_JWKS_UNAVAILABLE',
      description: 'the signing keys of the issuer are not available; the token cannot be verified',
    })
  })

  it('fetches the keys again for a token signed with a new key, and verifies it', async () => {
    await keys.start()
    const v = verifierOf()
    const fetches = () => idp.hits.filter((h) => h.path.endsWith('/v1/keys')).length
    const before = fetches()
    await idp.rotate()
    expect(await v.verify(await idp.sign())).toMatchObject({ ok: true })
    expect(fetches()).toBe(before + 1)
  })

  it('says no key matches when the refetched key set still lacks the kid', async () => {
    await keys.start()
    const v = verifierOf()
    expect(await v.verify(await idp.sign({}, { kid: 'gone' }))).toEqual({
      ok: false,
      check: 'signature',
      description: 'no key of the issuer matches the token',
    })
  })

  it('forgets a cached verdict when the keys change: a token of a withdrawn key is refused at once', async () => {
    await keys.start()
    const v = verifierOf()
    const token = await idp.sign()
    expect((await v.verify(token)).ok).toBe(true)
    expect((await v.verify(token)).ok).toBe(true) // from the cache
    await idp.rotate(true) // key-1 withdrawn
    await keys.refresh('interval')
    expect(await v.verify(token)).toMatchObject({ ok: false, check: 'signature' })
  })
})
