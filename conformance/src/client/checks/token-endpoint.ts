/**
 * Client authentication at the token endpoint: a client issued a secret uses it, by the method
 * it was registered with; a client that does not authenticate names itself (the official suite's
 * `auth/token-endpoint-auth-basic`, `-post` and `-none`).
 */
import { CheckSkipped, must } from '../../types.js'
import type { TokenRequest } from '../flow.js'
import type { TokenAuthMethod } from '../scenarios.js'
import { always, type ClientRequirement } from './types.js'

/** What a token request's authentication was, in words. */
function described(t: TokenRequest): string {
  if (t.authMethod === 'both')
    return 'Authorization: Basic and client_secret in the form (RFC 6749 §2.3: "MUST NOT use more than one authentication method in each request")'
  if (t.authMethod === 'none') return `no client authentication (client_id ${t.clientId ?? 'none'})`
  return `${t.authMethod} as ${t.clientId ?? '(no client id)'}`
}

/** The scenarios whose registration issues a secret (`token-endpoint-auth-basic`, `-post`). */
const isSecretMethod = (m: TokenAuthMethod | undefined) =>
  m === 'client_secret_basic' || m === 'client_secret_post'

/** The token-endpoint authentication requirements. */
export const tokenEndpoint: ClientRequirement[] = [
  {
    id: 'CLI-AUTHN-001',
    level: 'MUST',
    source:
      'RFC 6749 §3.2.1, §2.3; RFC 7591 §2, §3.2.1 (token_endpoint_auth_method); OAuth 2.1 §3.2.1',
    quote:
      'Confidential clients or other clients issued client credentials MUST authenticate with the authorization server as described in Section 2.3 when making requests to the token endpoint.',
    needs: 'authorization',
    text: 'A client issued a client_secret at registration authenticates every token request with it: HTTP Basic or client_id and client_secret in the form (RFC 6749 §2.3.1). Which of the two is the one it was registered with (token_endpoint_auth_method) no sentence makes a MUST: an authorization server that refuses the other fails the client under CLI-FLOW-001.',
    appliesTo: (s) => s.registration === 'dcr' && isSecretMethod(s.tokenAuthMethod),
    check({ flow, evidence }) {
      const reg = flow.registrations.find((r) => r.clientSecret !== undefined && r.clientId)
      if (!reg) throw new CheckSkipped('the client was issued no client secret')
      const requests = flow.tokenRequests.filter((t) => t.entry.seq > reg.entry.seq)
      if (requests.length === 0) throw new CheckSkipped('the client made no token request')
      for (const t of requests) {
        evidence(t.entry)
        must(
          t.authMethod !== 'none' &&
            t.clientId === reg.clientId &&
            t.clientSecret === reg.clientSecret,
          `authentication as ${reg.clientId} with the secret issued to it (registered for ${reg.authMethod ?? 'client_secret_basic'})`,
          t.authMethod !== 'none' && t.clientId === reg.clientId ? 'another secret' : described(t),
        )
      }
    },
  },
  {
    id: 'CLI-AUTHN-003',
    level: 'MUST',
    source: 'RFC 6749 §2.3; OAuth 2.1 §2.4',
    quote: 'The client MUST NOT use more than one authentication method in each request.',
    text: 'A token request authenticates the client one way: an Authorization: Basic header or a client_secret in the form, never both.',
    appliesTo: (s) => s.registration === 'pre-registered' || isSecretMethod(s.tokenAuthMethod),
    check({ flow, evidence }) {
      const authenticated = flow.tokenRequests.filter((t) => t.authMethod !== 'none')
      if (authenticated.length === 0)
        throw new CheckSkipped('no token request authenticated the client')
      for (const t of authenticated) {
        evidence(t.entry)
        must(t.authMethod !== 'both', 'one authentication method', described(t))
      }
    },
  },
  {
    id: 'CLI-AUTHN-002',
    level: 'MUST',
    source: 'RFC 6749 §4.1.3; OAuth 2.1 §4.1.3',
    quote:
      'client_id REQUIRED, if the client is not authenticating with the authorization server as described in Section 3.2.1.',
    needs: 'authorization',
    text: 'A code redemption that does not authenticate the client (a public client, token_endpoint_auth_method none) names the client in the form’s client_id.',
    appliesTo: always,
    check({ flow, evidence }) {
      const unauthenticated = flow.tokenRequests.filter(
        (t) => t.grantType === 'authorization_code' && t.authMethod === 'none',
      )
      if (unauthenticated.length === 0)
        throw new CheckSkipped('no code redemption without client authentication')
      for (const t of unauthenticated) {
        evidence(t.entry)
        must(Boolean(t.form.get('client_id')), 'client_id in the form', 'no client_id')
      }
    },
  },
]
