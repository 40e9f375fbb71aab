/**
 * The verifier (proxy/src/auth/verify.ts) on tokens and key sets that the other verify tests do
 * not send: a JWS that decodes but is not valid (RFC 7515 §5.2: no `alg`, a signature that is not
 * base64url), a key set whose keys cannot verify (two keys with one `kid`, an RSA key below 2048
 * bits), and a cached verdict that must end at the token's `exp`. Each case asserts the exact
 * `error_description` a client receives in the 401 (RFC 6750 §3).
 */
import { Writable } from 'node:stream'
import type { JWK } from 'jose'
import { afterEach, describe, expect, it } from 'vitest'
import { KeySet } from '../../src/auth/jwks.js'
import { TokenVerifier } from '../../src/auth/verify.js'
import { BackendConfigSchema } from '../../src/config/schema.js'
import { createUpstream, type Upstream } from '../../src/http/upstream.js'
import { createLogging } from '../../src/telemetry/logging.js'
import { TaskRegistry } from '../../src/telemetry/tasks.js'
import { es256Signer } from './signer.js'
import { startTinyIdp, type TinyIdp } from './tiny-idp.js'

const ISSUER = 'https://idp.example/oauth2/default'
const AUDIENCE = 'api://default'
const now = () => Math.floor(Date.now() / 1000)
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
const quiet = () =>
  createLogging({
    filter: 'error',
    destination: new Writable({ write: (_c, _e, cb) => cb() }),
  }).logger('proxy::auth::jwks')

function verifierOf(keys: JWK[], clockSkewSec = 60): TokenVerifier {
  const keySet = new KeySet(
    ISSUER,
    { kind: 'static', jwks: { keys } as never, origin: 'inline' },
    quiet(),
    new TaskRegistry(),
  )
  return new TokenVerifier([{ issuer: ISSUER, audiences: [AUDIENCE], clockSkewSec, keys: keySet }])
}

/** A fresh ES256 key (kid `k1`) and tokens for this issuer and audience. */
const es256 = () => es256Signer({ iss: ISSUER, aud: AUDIENCE, sub: 'alice' })

describe('TokenVerifier: a token that decodes but is not a valid JWS', () => {
  const malformed = {
    ok: false,
    check: 'malformed',
    description: 'the bearer token is not a valid JWT',
  }

  it('a signature that is not base64url', async () => {
    const k = await es256()
    const [h, p] = (await k.sign()).split('.')
    expect(await verifierOf([k.jwk]).verify(`${h}.${p}.!!!`)).toEqual(malformed)
  })

  it('a header without alg', async () => {
    const k = await es256()
    const [, p, s] = (await k.sign()).split('.')
    expect(await verifierOf([k.jwk]).verify(`${b64({ kid: 'k1' })}.${p}.${s}`)).toEqual(malformed)
  })
})

describe('TokenVerifier: a key set that cannot verify the token', () => {
  const unverifiable = {
    ok: false,
    check: 'signature',
    description: 'the token could not be verified',
  }

  it('two keys with the kid the token names', async () => {
    const k = await es256()
    expect(await verifierOf([k.jwk, { ...k.jwk }]).verify(await k.sign())).toEqual(unverifiable)
  })

  it('an RSA key below 2048 bits', async () => {
    const token = `${b64({ alg: 'RS256', kid: 'short' })}.${b64({ iss: ISSUER, aud: AUDIENCE, exp: now() + 600 })}.AAAA`
    const short = { kty: 'RSA', kid: 'short', n: 'AQAB', e: 'AQAB' }
    expect(await verifierOf([short]).verify(token)).toEqual(unverifiable)
  })
})

describe('TokenVerifier: the verdict cache', () => {
  it('remembers a verified token only until its exp: then it is refused as expired', async () => {
    const k = await es256()
    const v = verifierOf([k.jwk], 0)
    // Between 1 and 2 s away: the first verification is well inside the lifetime.
    const exp = now() + 2
    const token = await k.sign({ exp })
    expect(await v.verify(token)).toMatchObject({ ok: true, claims: { exp } })
    while (Date.now() < exp * 1000 + 50) await new Promise((r) => setTimeout(r, 50))
    expect(await v.verify(token)).toEqual({
      ok: false,
      check: 'expired',
      description: 'the token has expired',
    })
  })
})

describe('TokenVerifier: providers whose keys are fetched', () => {
  let idp: TinyIdp | undefined
  let upstream: Upstream | undefined
  const keySets: KeySet[] = []
  afterEach(async () => {
    for (const k of keySets.splice(0)) k.stop()
    await upstream?.close()
    await idp?.stop()
    idp = undefined
    upstream = undefined
  })
  async function remoteKeys(): Promise<{ idp: TinyIdp; keys: KeySet }> {
    idp = await startTinyIdp()
    upstream = createUpstream(
      BackendConfigSchema.parse({ static: { host: '127.0.0.1', port: idp.port } }),
    )
    const keys = new KeySet(
      idp.issuer,
      { kind: 'remote', upstream, path: '/oauth2/default/v1/keys', refreshMs: 300_000 },
      quiet(),
      new TaskRegistry(),
    )
    keySets.push(keys)
    return { idp, keys }
  }

  it('verifies the provider with keys while the other has none, and both once it has', async () => {
    const k = await es256()
    const staticKeys = new KeySet(
      ISSUER,
      { kind: 'static', jwks: { keys: [k.jwk] } as never, origin: 'inline' },
      quiet(),
      new TaskRegistry(),
    )
    const remote = await remoteKeys()
    const v = new TokenVerifier([
      { issuer: ISSUER, audiences: [AUDIENCE], clockSkewSec: 60, keys: staticKeys },
      { issuer: remote.idp.issuer, audiences: [AUDIENCE], clockSkewSec: 60, keys: remote.keys },
    ])
    expect(await v.verify(await remote.idp.sign())).toMatchObject({ ok: false, check: 'no_keys' })
    // The provider with keys verifies its tokens meanwhile.
    expect(await v.verify(await k.sign())).toMatchObject({ ok: true, issuer: ISSUER })
    await remote.keys.start()
    expect(await v.verify(await remote.idp.sign())).toMatchObject({
      ok: true,
      issuer: remote.idp.issuer,
    })
  })

  it('asks the IdP once per token for a kid it does not have, not again on the retry', async () => {
    const { idp, keys } = await remoteKeys()
    await keys.start()
    const v = new TokenVerifier([
      { issuer: idp.issuer, audiences: [idp.audience], clockSkewSec: 60, keys },
    ])
    const fetches = () => idp.hits.filter((h) => h.path.endsWith('/v1/keys')).length
    const before = fetches()
    expect(await v.verify(await idp.sign({}, { kid: 'unknown' }))).toEqual({
      ok: false,
      check: 'signature',
      description: 'no key of the issuer matches the token',
    })
    expect(fetches()).toBe(before + 1)
  })

  it('does not ask the IdP for a token refused for anything but an unknown kid', async () => {
    const { idp, keys } = await remoteKeys()
    await keys.start()
    const v = new TokenVerifier([
      { issuer: idp.issuer, audiences: [idp.audience], clockSkewSec: 60, keys },
    ])
    const fetches = () => idp.hits.filter((h) => h.path.endsWith('/v1/keys')).length
    const before = fetches()
    expect(await v.verify(await idp.sign({ exp: now() - 600 }))).toMatchObject({
      check: 'expired',
    })
    expect(await v.verify(await idp.sign({ aud: 'api://other' }))).toMatchObject({
      check: 'audience',
    })
    expect(fetches()).toBe(before)
  })
})
