/**
 * jws-signature.ts against jose: the node:crypto path must give jose's verdict for every algorithm
 * the verifier accepts (`ACCEPTED_ALGORITHMS`) and every key type, on valid tokens and tampered
 * ones (signature, header, payload, a padded signature, another key, a key of the wrong type, a
 * short RSA key). The verdict is the verifier's (verify.ts): `verifySignature` true accepts, a
 * throw refuses, false hands the token to jose's own `compactVerify`.
 */
import { constants, createPrivateKey, createSign } from 'node:crypto'
import { compactVerify, exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose'
import { beforeAll, describe, expect, it } from 'vitest'
import { verifySignature } from '../../src/auth/jws-signature.js'
import { ACCEPTED_ALGORITHMS } from '../../src/auth/verify.js'
import { RSA_1536, RSA_2048_A, RSA_2048_B, rsaKeys } from './rsa-keys.js'

type Verdict = 'accept' | 'refuse'
type Key = Awaited<ReturnType<typeof importJWK>>

/** What jose alone decides. */
async function joseVerdict(token: string, alg: string, key: Key): Promise<Verdict> {
  try {
    await compactVerify(token, key as Parameters<typeof compactVerify>[1], { algorithms: [alg] })
    return 'accept'
  } catch {
    return 'refuse'
  }
}

/** What the verifier decides, and whether node:crypto (rather than jose) decided it. */
async function ourVerdict(
  token: string,
  alg: string,
  key: Key,
): Promise<{ verdict: Verdict; byNode: boolean }> {
  try {
    if (verifySignature(token, alg, key)) return { verdict: 'accept', byNode: true }
  } catch {
    return { verdict: 'refuse', byNode: true }
  }
  return { verdict: await joseVerdict(token, alg, key), byNode: false }
}

/** A key pair's generation options for `alg` (EdDSA names its curve). */
const keyOptions = (alg: string) => (alg === 'EdDSA' ? { crv: 'Ed25519' } : {})

interface Signed {
  token: string
  key: Key
  jwk: JWK
}

/** RS* and PS* tokens are signed with a fixed RSA key (rsa-keys.ts); EC and EdDSA keys are generated. */
const isRsa = (alg: string) => /^(RS|PS)/.test(alg)

async function signed(alg: string, rsaPem: string): Promise<Signed> {
  const { privateKey, publicKey } = isRsa(alg)
    ? await rsaKeys(rsaPem, alg)
    : await generateKeyPair(alg, { ...keyOptions(alg), extractable: true })
  const token = await new SignJWT({ sub: 'alice', exp: 4_102_444_800 })
    .setProtectedHeader({ alg, kid: 'k1' })
    .sign(privateKey)
  const jwk = await exportJWK(publicKey)
  return { token, key: await importJWK(jwk, alg), jwk }
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
const parts = (token: string) => token.split('.') as [string, string, string]

/** The tampered variants of a token that each must be refused. */
function tamperings(token: string): Record<string, string> {
  const [header, payload, signature] = parts(token)
  const decoded = (s: string) => JSON.parse(Buffer.from(s, 'base64url').toString()) as object
  const flip = (s: string, i: number) =>
    `${s.slice(0, i)}${s[i] === 'A' ? 'B' : 'A'}${s.slice(i + 1)}`
  return {
    'signature with its first character changed': `${header}.${payload}.${flip(signature, 0)}`,
    'signature with a middle character changed': `${header}.${payload}.${flip(signature, signature.length >> 1)}`,
    'signature with bytes appended': `${header}.${payload}.${signature}AAA`,
    'signature cut short': `${header}.${payload}.${signature.slice(0, -4)}`,
    'empty signature': `${header}.${payload}.`,
    'header with another kid': `${b64({ ...decoded(header), kid: 'k2' })}.${payload}.${signature}`,
    'payload with another subject': `${header}.${b64({ ...decoded(payload), sub: 'mallory' })}.${signature}`,
    'payload of another token': `${header}.${b64({ sub: 'alice', exp: 4_102_444_801 })}.${signature}`,
  }
}

/** Another key type for `alg`'s token, imported for an algorithm it fits. */
const WRONG_TYPE: Record<string, string> = {
  RS: 'ES256',
  PS: 'ES256',
  ES: 'RS256',
  Ed: 'ES256',
}

describe('verifySignature agrees with jose', () => {
  const fixtures = new Map<string, Signed>()
  const others = new Map<string, Signed>()

  beforeAll(async () => {
    for (const alg of ACCEPTED_ALGORITHMS) {
      fixtures.set(alg, await signed(alg, RSA_2048_A))
      others.set(alg, await signed(alg, RSA_2048_B))
    }
  })

  it('covers every accepted algorithm', () => {
    expect([...fixtures.keys()].sort()).toEqual([...ACCEPTED_ALGORITHMS].sort())
  })

  it.each(ACCEPTED_ALGORITHMS)(
    'accepts a valid %s token with node:crypto, as jose does',
    async (alg) => {
      const { token, key } = fixtures.get(alg) as Signed
      expect(await joseVerdict(token, alg, key)).toBe('accept')
      expect(await ourVerdict(token, alg, key)).toEqual({ verdict: 'accept', byNode: true })
    },
  )

  it.each(ACCEPTED_ALGORITHMS)('refuses every tampered %s token, as jose does', async (alg) => {
    const { token, key } = fixtures.get(alg) as Signed
    const seen: Record<string, { jose: Verdict; ours: Verdict; byNode: boolean }> = {}
    for (const [name, bad] of Object.entries(tamperings(token))) {
      const ours = await ourVerdict(bad, alg, key)
      seen[name] = {
        jose: await joseVerdict(bad, alg, key),
        ours: ours.verdict,
        byNode: ours.byNode,
      }
    }
    for (const [name, v] of Object.entries(seen)) {
      expect({ name, ...v }).toEqual({ name, jose: 'refuse', ours: 'refuse', byNode: true })
    }
  })

  it.each(ACCEPTED_ALGORITHMS)(
    'refuses a %s token checked with another key of its type',
    async (alg) => {
      const { token } = fixtures.get(alg) as Signed
      const { key } = others.get(alg) as Signed
      expect(await joseVerdict(token, alg, key)).toBe('refuse')
      expect(await ourVerdict(token, alg, key)).toEqual({ verdict: 'refuse', byNode: true })
    },
  )

  it.each(ACCEPTED_ALGORITHMS)(
    'leaves a %s token with a key of the wrong type to jose, which refuses it',
    async (alg) => {
      const { token } = fixtures.get(alg) as Signed
      const otherAlg = WRONG_TYPE[alg.slice(0, 2)] as string
      const { key } = fixtures.get(otherAlg) as Signed
      expect(await joseVerdict(token, alg, key)).toBe('refuse')
      expect(await ourVerdict(token, alg, key)).toEqual({ verdict: 'refuse', byNode: false })
    },
  )

  it.each(ACCEPTED_ALGORITHMS.filter(isRsa))(
    'leaves a %s token signed with a 1536-bit RSA key to jose, which refuses it (RFC 7518 §3.3)',
    async (alg) => {
      // 1536 bits: short of RFC 7518's 2048, long enough for PS512's salt.
      const privateKey = createPrivateKey(RSA_1536)
      // jose refuses to sign with a short key, so node:crypto signs the token.
      const header = b64({ alg })
      const payload = b64({ sub: 'alice' })
      const bits = alg.slice(2)
      const signature = createSign(`sha${bits}`)
        .update(`${header}.${payload}`)
        .sign(
          alg.startsWith('PS')
            ? {
                key: privateKey,
                padding: constants.RSA_PKCS1_PSS_PADDING,
                saltLength: Number(bits) / 8,
              }
            : privateKey,
        )
        .toString('base64url')
      const token = `${header}.${payload}.${signature}`
      const { publicKey: key } = await rsaKeys(RSA_1536, alg)
      expect(await joseVerdict(token, alg, key)).toBe('refuse')
      expect(await ourVerdict(token, alg, key)).toEqual({ verdict: 'refuse', byNode: false })
    },
  )

  it('leaves a key that is a JWK object rather than a CryptoKey to jose', async () => {
    const { token, jwk } = fixtures.get('ES256') as Signed
    expect(verifySignature(token, 'ES256', jwk)).toBe(false)
  })
})
