/**
 * The benchmarks' identity: an RS256 key pair, its public JWK for an inline key set, and a token
 * for `api://default` valid for 2 h.
 */
import { sign as cryptoSign, generateKeyPairSync } from 'node:crypto'
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose'

/** The issuer the benchmark tokens name (never fetched: the key set is inline). */
export const BENCH_ISSUER = 'https://idp.bench.example/oauth2/default'

/** Generates a key and signs one token with `claims` (sub alice, aud api://default). */
export async function benchToken(claims: JWTPayload): Promise<{ jwk: JWK; token: string }> {
  const { publicKey, privateKey } = await generateKeyPair('RS256')
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'RS256', use: 'sig' }
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: 'bench' })
    .setIssuer(BENCH_ISSUER)
    .setAudience('api://default')
    .setSubject('alice')
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(privateKey)
  return { jwk, token }
}

/** An RS256 key for many tokens: its public JWK and PEM, and a signer built on node:crypto. */
export interface BenchSigner {
  jwk: JWK
  /** SubjectPublicKeyInfo PEM of the key (HAProxy's `jwt_verify` reads it from a file). */
  publicKeyPem: string
  /** A token for `api://default` from {@link BENCH_ISSUER}, sub alice, valid 2 h, with `claims`. */
  sign(claims: Record<string, unknown>): string
}

/**
 * Generates a key whose tokens are signed with node:crypto, fast enough to give every request of
 * a run a token of its own: RS256 (2048-bit RSA, about 1 ms a token) by default, or ES256 (P-256,
 * some 30 µs a token: `bench:scale` signs up to 100,000 distinct users' tokens).
 */
export function benchSigner(alg: 'RS256' | 'ES256' = 'RS256'): BenchSigner {
  const { publicKey, privateKey } =
    alg === 'RS256'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'bench', alg, use: 'sig' }
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
  const header = b64({ alg, kid: 'bench', typ: 'JWT' })
  // JWS ES256 signatures are r || s (RFC 7518 §3.4), not DER.
  const key = alg === 'RS256' ? privateKey : { key: privateKey, dsaEncoding: 'ieee-p1363' as const }
  return {
    jwk,
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    sign(claims) {
      const now = Math.floor(Date.now() / 1000)
      const payload = b64({
        iss: BENCH_ISSUER,
        aud: 'api://default',
        sub: 'alice',
        iat: now,
        exp: now + 7200,
        ...claims,
      })
      const signature = cryptoSign('sha256', Buffer.from(`${header}.${payload}`), key)
      return `${header}.${payload}.${signature.toString('base64url')}`
    },
  }
}
