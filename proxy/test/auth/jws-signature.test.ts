import { errors, exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import { verifySignature } from '../../src/auth/jws-signature.js'
import { RSA_1024, RSA_2048_A, rsaKeys } from './rsa-keys.js'

/**
 * A token signed with `alg`, and the public key as jose imports it for `alg` (a CryptoKey). RSA
 * keys are fixed (rsa-keys.ts); EC and EdDSA keys are generated.
 */
async function signed(alg: string, options: { crv?: string } = {}) {
  const { privateKey, publicKey } = /^(RS|PS)/.test(alg)
    ? await rsaKeys(RSA_2048_A, alg)
    : await generateKeyPair(alg, { ...options, extractable: true })
  const token = await new SignJWT({ sub: 'alice' }).setProtectedHeader({ alg }).sign(privateKey)
  const jwk: JWK = await exportJWK(publicKey)
  return { token, key: await importJWK(jwk, alg), jwk }
}

/** The token with one character of its signature changed. */
function tampered(token: string): string {
  const last = token.at(-2) === 'A' ? 'B' : 'A'
  return `${token.slice(0, -2)}${last}${token.at(-1)}`
}

describe('verifySignature', () => {
  it.each(['RS256', 'PS384', 'ES256', 'ES512', 'EdDSA'])(
    'checks a %s signature with node:crypto and refuses it tampered',
    async (alg) => {
      const { token, key } = await signed(alg, alg === 'EdDSA' ? { crv: 'Ed25519' } : {})
      expect(verifySignature(token, alg, key)).toBe(true)
      expect(() => verifySignature(tampered(token), alg, key)).toThrow(
        errors.JWSSignatureVerificationFailed,
      )
    },
  )

  it('refuses a signature with characters outside base64url, which a lenient decoder would skip', async () => {
    const { token, key } = await signed('ES256')
    expect(() => verifySignature(`${token}!`, 'ES256', key)).toThrow(errors.JWSInvalid)
  })

  it('leaves to jose a key that does not fit the algorithm, a short RSA key and a key that is not a CryptoKey', async () => {
    const { token, key, jwk } = await signed('RS256')
    // The same RSA key imported for PS256 (another WebCrypto algorithm) and for RS384 (another hash).
    expect(verifySignature(token, 'RS256', await importJWK(jwk, 'PS256'))).toBe(false)
    expect(verifySignature(token, 'RS384', key)).toBe(false)
    expect(verifySignature(token, 'ES256', key)).toBe(false)
    // RFC 7518 §3.3: 2048 bits or larger.
    const { publicKey: smallKey } = await rsaKeys(RSA_1024, 'RS256')
    expect(verifySignature(token, 'RS256', smallKey)).toBe(false)
    expect(verifySignature(token, 'RS256', jwk)).toBe(false)
    expect(verifySignature(token, 'HS256', key)).toBe(false)
  })
})
