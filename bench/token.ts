/**
 * The benchmarks' identity: an RS256 key pair, its public JWK for an inline key set, and a token
 * for `api://default` valid for 2 h.
 */
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
