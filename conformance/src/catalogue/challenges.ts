/**
 * The challenge of every 401 a resource server answers (RFC 6750 §3): the `WWW-Authenticate`
 * header field itself, no error information when the request carried no credentials, and only
 * the error codes RFC 6750 §3.1 defines. Profile `core`, duties of every resource server; the
 * `resource_metadata` and `scope` a challenge names are core.ts's and scopes.ts's.
 */
import {
  type CheckContext,
  CheckSkipped,
  type HttpResult,
  must,
  type Requirement,
} from '../types.js'
import { challengeParams, postMcp, token } from './util.js'

/**
 * The error codes of RFC 6750 §3.1, which §6.2 registers in the OAuth Extensions Error registry
 * for use in the resource-server error responses of bearer token authentication.
 */
export const RFC6750_ERROR_CODES: readonly string[] = [
  'invalid_request',
  'invalid_token',
  'insufficient_scope',
]

/** Requests a resource server refuses for want of a usable token, each with what it lacks. */
async function refusedRequests(
  ctx: CheckContext,
): Promise<Array<[string, () => Promise<HttpResult>]>> {
  const expired = await token(ctx, { sub: 'alice', expiresIn: -600 })
  const foreign = await token(ctx, { sub: 'alice', claims: { aud: 'api://another-resource' } })
  return [
    ['without a token', () => postMcp(ctx)],
    ['with a token that is not a JWT', () => postMcp(ctx, { token: 'not-a-jwt' })],
    ['with an expired token', () => postMcp(ctx, { token: expired })],
    ['with a token for another audience', () => postMcp(ctx, { token: foreign })],
  ]
}

/** The challenge requirements. */
export const challenges: Requirement[] = [
  {
    id: 'AUTH-026',
    level: 'MUST',
    profile: 'core',
    resourceServer: true,
    source:
      'RFC 6750 §3; RFC 9110 §15.5.2 ("The server generating a 401 response MUST send a WWW-Authenticate header field (Section 11.6.1) containing at least one challenge applicable to the target resource.")',
    quote:
      'If the protected resource request does not include authentication credentials or does not contain an access token that enables access to the protected resource, the resource server MUST include the HTTP "WWW-Authenticate" response header field',
    text: 'Every 401 — to a request without a token, or with a token that is not a JWT, expired or for another audience — carries a WWW-Authenticate header field.',
    async check(ctx) {
      let judged = 0
      for (const [what, send] of await refusedRequests(ctx)) {
        const res = await send()
        if (res.status !== 401) continue
        judged++
        must(
          res.headers.get('www-authenticate') !== null,
          `a WWW-Authenticate header field on the 401 to a request ${what}`,
          'a 401 without one',
        )
      }
      if (judged === 0)
        throw new CheckSkipped(
          'the target answered no refused request with 401 (AUTH-001 judges that)',
        )
    },
  },
  {
    id: 'AUTH-027',
    level: 'SHOULD',
    profile: 'core',
    resourceServer: true,
    source: 'RFC 6750 §3.1',
    quote:
      'If the request lacks any authentication information (e.g., the client was unaware that authentication is necessary or attempted using an unsupported authentication method), the resource server SHOULD NOT include an error code or other error information.',
    text: 'The challenge of a 401 to a request without any credentials carries no error, error_description or error_uri.',
    async check(ctx) {
      const res = await postMcp(ctx)
      const params = challengeParams(res.headers.get('www-authenticate'))
      if (res.status !== 401 || !params)
        throw new CheckSkipped(
          `no Bearer challenge to judge (${res.status}; AUTH-001 and AUTH-026 judge that)`,
        )
      const info = ['error', 'error_description', 'error_uri'].filter((k) => k in params)
      must(
        info.length === 0,
        'a challenge without error information (the request had no credentials)',
        info.map((k) => `${k}="${params[k]}"`).join(', '),
      )
    },
  },
  {
    id: 'AUTH-028',
    level: 'SHOULD',
    profile: 'core',
    resourceServer: true,
    source:
      'RFC 6750 §3 (the error attribute: "The parameter value is described in Section 3.1."); RFC 6750 §3.1, §6.2 (OAuth Extensions Error registry)',
    quote:
      'If the protected resource request included an access token and failed authentication, the resource server SHOULD include the "error" attribute to provide the client with the reason why the access request was declined.',
    text: `The error code of every challenge to a refused token is one RFC 6750 §3.1 defines (${RFC6750_ERROR_CODES.join(', ')}), so a client can act on it.`,
    async check(ctx) {
      for (const [what, send] of await refusedRequests(ctx)) {
        const res = await send()
        const error = challengeParams(res.headers.get('www-authenticate'))?.error
        if (error === undefined) continue
        must(
          RFC6750_ERROR_CODES.includes(error),
          `one of ${RFC6750_ERROR_CODES.join(', ')} (the ${res.status} to a request ${what})`,
          `error="${error}"`,
        )
      }
    },
  },
]
