/** Shared pieces of the mock-idp tests. */
import { createHash, randomBytes } from 'node:crypto'

/**
 * An authorization-code request with PKCE S256 to `<issuer>/v1/authorize`: `response_type=code`,
 * `scope=openid` and a fresh challenge, plus `params` (client_id, redirect_uri, … override).
 */
export function authorizeRequest(
  issuer: string,
  params: Record<string, string>,
): { url: URL; verifier: string } {
  const verifier = randomBytes(32).toString('base64url')
  const url = new URL(`${issuer}/v1/authorize`)
  url.search = new URLSearchParams({
    response_type: 'code',
    scope: 'openid',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...params,
  }).toString()
  return { url, verifier }
}
