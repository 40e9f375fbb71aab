/**
 * An ES256 key for the auth unit tests: its public JWK (kid `k1`) for an inline key set, and a
 * signer whose tokens carry `defaults` (plus exp in 10 min) overridden by each call's claims.
 */
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose'

/** A key and its signer. */
export interface Es256Signer {
  jwk: JWK
  sign(claims?: Record<string, unknown>): Promise<string>
}

/** Generates the key; tokens are `{ ...defaults, exp: now + 600, ...claims }`. */
export async function es256Signer(defaults: Record<string, unknown>): Promise<Es256Signer> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true })
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' }
  const sign = (claims: Record<string, unknown> = {}) =>
    new SignJWT({ ...defaults, exp: Math.floor(Date.now() / 1000) + 600, ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .sign(privateKey)
  return { jwk, sign }
}
