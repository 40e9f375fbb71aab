/**
 * Profile `core`: bearer-token authentication (401), authorization rules (403) and fail-closed key
 * handling. Sources: the seed (Endpoints, Authentication, Errors), MCP authorization 2025-06-18 /
 * 2025-11-25, RFC 6750, RFC 8725, RFC 9068. Protected-resource metadata: resource-metadata.ts;
 * scopes in challenges: scopes.ts.
 */
import { CheckSkipped, must, type Requirement } from '../types.js'
import { challengeParams, postMcp, prmUrl, token } from './util.js'

const SEED_ERRORS = 'seed: Errors'

/** A hostile token must be refused with 401 `invalid_token`. */
function hostile(
  id: string,
  what: string,
  mint: Record<string, unknown>,
  source: string,
  quote: string,
): Requirement {
  return {
    id,
    level: 'MUST',
    profile: 'core',
    source,
    quote,
    resourceServer: true,
    text: `A bearer token that is ${what} is rejected with 401.`,
    async check(ctx) {
      const res = await postMcp(ctx, { token: await token(ctx, mint) })
      must(res.status === 401, '401', `${res.status}`)
    },
  }
}

/** Profile `core`: the resource-server duties every MCP-auth gateway has. */
export const core: Requirement[] = [
  {
    id: 'AUTH-001',
    level: 'MUST',
    resourceServer: true,
    quote: 'Servers MUST return appropriate HTTP status codes for authorization errors:',
    profile: 'core',
    source: `MCP authorization 2025-11-25 §Error Handling; ${SEED_ERRORS}; seed: Authentication 1`,
    text: 'POST /mcp without a bearer token is rejected with 401.',
    async check(ctx) {
      const res = await postMcp(ctx)
      must(res.status === 401, '401', `${res.status}`)
    },
  },
  {
    id: 'AUTH-002',
    level: 'MUST',
    quote:
      'Without a valid token: 401 with header WWW-Authenticate: Bearer resource_metadata="{base_url_as_configured}/.well-known/oauth-protected-resource/mcp" (the URL is built from mcp.resourceMetadata.resource host).',
    profile: 'core',
    source: 'seed: Endpoints (POST /mcp); RFC 9728 §5.1; MCP authorization 2025-06-18 §2.3.1',
    text: 'The 401 carries WWW-Authenticate: Bearer resource_metadata="<configured base>/.well-known/oauth-protected-resource/mcp", built from the configured resource, not the request Host.',
    async check(ctx) {
      const res = await postMcp(ctx)
      const params = challengeParams(res.headers.get('www-authenticate'))
      const want = prmUrl(ctx.target.configuredBase)
      must(
        params !== undefined,
        'a Bearer challenge in WWW-Authenticate',
        String(res.headers.get('www-authenticate')),
      )
      must(
        params.resource_metadata === want,
        `resource_metadata="${want}"`,
        `resource_metadata="${params.resource_metadata}"`,
      )
    },
  },
  {
    id: 'AUTH-003',
    level: 'SHOULD',
    resourceServer: true,
    quote:
      'If the protected resource request included an access token and failed authentication, the resource server SHOULD include the "error" attribute to provide the client with the reason why the access request was declined.',
    profile: 'core',
    source: 'RFC 6750 §3.1; RFC 6750 §3 (the error attribute)',
    text: 'An invalid token gets 401 with error="invalid_token" in the challenge.',
    async check(ctx) {
      const res = await postMcp(ctx, { token: 'not-a-jwt' })
      const params = challengeParams(res.headers.get('www-authenticate'))
      must(res.status === 401, '401', `${res.status}`)
      must(
        params?.error === 'invalid_token',
        'error="invalid_token"',
        String(res.headers.get('www-authenticate')),
      )
    },
  },
  {
    id: 'AUTH-004',
    level: 'SHOULD',
    quote:
      'Upstream refused → 502, upstream timeout → 504, no route → 404, each with a JSON body {error, error_description}.',
    profile: 'core',
    source: 'docs/design/errors.md (error bodies)',
    text: 'Error answers have a JSON body {error, error_description}.',
    async check(ctx) {
      const res = await postMcp(ctx)
      let body: Record<string, unknown> = {}
      try {
        body = res.json()
      } catch {}
      must(
        typeof body.error === 'string' && typeof body.error_description === 'string',
        'JSON {error, error_description}',
        res.text.slice(0, 200),
      )
    },
  },
  hostile(
    'AUTH-010',
    'expired',
    { sub: 'alice', expiresIn: -600 },
    'RFC 7519 §4.1.4',
    'The "exp" (expiration time) claim identifies the expiration time on or after which the JWT MUST NOT be accepted for processing.',
  ),
  hostile(
    'AUTH-011',
    'not yet valid (nbf in the future)',
    { sub: 'alice', notBefore: 3600 },
    'RFC 7519 §4.1.5',
    'The "nbf" (not before) claim identifies the time before which the JWT MUST NOT be accepted for processing.',
  ),
  hostile(
    'AUTH-012',
    'issued by another issuer',
    { sub: 'alice', claims: { iss: 'https://attacker.example/oauth2/default' } },
    'seed: Authentication 2 ("iss equals the configured issuer"); MCP authorization 2025-11-25 §Token Handling',
    'MCP servers, acting in their role as an OAuth 2.1 resource server, MUST validate access tokens as described in OAuth 2.1 Section 5.2.',
  ),
  hostile(
    'AUTH-013',
    'for another audience',
    { sub: 'alice', claims: { aud: 'api://another-resource' } },
    'seed: Authentication 2 ("aud matches the configured audience"); MCP authorization 2025-06-18 §2.6; MCP authorization 2025-11-25 §Token Handling',
    'MCP servers MUST validate that access tokens were issued specifically for them as the intended audience, according to RFC 8707 Section 2.',
  ),
  hostile(
    'AUTH-014',
    'signed with a key the issuer does not publish',
    { sub: 'alice', forge: 'unknown-kid' },
    'seed: Authentication 2 (signature); MCP authorization 2025-11-25 §Token Handling',
    'MCP servers, acting in their role as an OAuth 2.1 resource server, MUST validate access tokens as described in OAuth 2.1 Section 5.2.',
  ),
  hostile(
    'AUTH-015',
    'unsigned (alg "none")',
    { sub: 'alice', forge: 'alg-none' },
    'RFC 8725 §3.1',
    'Libraries MUST enable the caller to specify a supported set of algorithms and MUST NOT use any other algorithms when performing cryptographic operations.',
  ),
  hostile(
    'AUTH-016',
    "HS256-signed with the issuer's public key",
    { sub: 'alice', forge: 'hs256-public-key' },
    'RFC 8725 §2.1, §3.1',
    'Each key MUST be used with exactly one algorithm, and this MUST be checked when the cryptographic operation is performed.',
  ),
  hostile(
    'AUTH-024',
    'validly signed but without an exp claim',
    { sub: 'alice', claims: { exp: null } },
    'RFC 9068 §2.2 (exp is REQUIRED in a JWT access token); MCP authorization 2025-11-25 "Token Handling" (validate per OAuth 2.1 §5.2)',
    'exp REQUIRED - as defined in Section 4.1.4 of [RFC7519].',
  ),
  {
    id: 'AUTH-025',
    level: 'MUST',
    resourceServer: true,
    quote: 'Resource servers MUST support this method.',
    profile: 'core',
    source:
      'RFC 6750 §2.1 (Authorization Request Header Field); MCP authorization 2025-11-25 §Token Requirements',
    text: 'A valid token of the accepted issuer and audience, in Authorization: Bearer, is accepted: initialize is answered 2xx (the control for the hostile-token checks: a server that refuses every token passes none of them fairly).',
    async check(ctx) {
      const res = await postMcp(ctx, { token: await token(ctx, { sub: 'alice' }) })
      must(res.status >= 200 && res.status < 300, 'a 2xx answer to initialize', `${res.status}`)
    },
  },
  {
    id: 'AUTH-017',
    level: 'MUST',
    resourceServer: true,
    quote:
      'MCP servers, acting in their role as an OAuth 2.1 resource server, MUST validate access tokens as described in OAuth 2.1 Section 5.2.',
    profile: 'core',
    source: 'MCP authorization 2025-11-25 §Token Handling; seed: Authentication 2 (signature)',
    text: 'A token whose claims were changed after signing is rejected with 401.',
    async check(ctx) {
      const [header, , signature] = (await token(ctx, { sub: 'bob' })).split('.')
      const [, alicePayload] = (await token(ctx, { sub: 'alice' })).split('.')
      const res = await postMcp(ctx, { token: `${header}.${alicePayload}.${signature}` })
      must(res.status === 401, '401', `${res.status}`)
    },
  },
  {
    id: 'AUTH-020',
    level: 'MUST',
    quote: 'Forwarded to the MCP backend when authentication and authorization pass.',
    profile: 'core',
    source: 'seed: Endpoints (POST /mcp: forwarded when authentication and authorization pass)',
    text: 'A valid token of a user the rules allow is forwarded to the MCP backend (200).',
    async check(ctx) {
      const res = await postMcp(ctx, { token: await token(ctx, { sub: 'alice' }) })
      must(res.status === 200, '200', `${res.status}`)
    },
  },
  {
    id: 'AUTH-021',
    level: 'MUST',
    resourceServer: true,
    quote: 'Access tokens MUST NOT be included in the URI query string',
    profile: 'core',
    source:
      'MCP authorization 2025-06-18 §2.6.1 ("MUST NOT include access tokens in the URI query string")',
    text: 'A token in the access_token query parameter is not accepted.',
    async check(ctx) {
      const t = await token(ctx, { sub: 'alice' })
      const res = await postMcp(ctx, { path: `/mcp?access_token=${encodeURIComponent(t)}` })
      must(res.status === 401, '401', `${res.status}`)
    },
  },
  {
    id: 'AUTH-022',
    level: 'MUST',
    quote: 'The MCP server MUST NOT pass through the token it received from the MCP client.',
    profile: 'core',
    source:
      'MCP authorization 2025-11-25 "Access Token Privilege Restriction" ("MUST NOT pass through the token it received from the MCP client"); MCP security best practices (Token Passthrough)',
    text: "The gateway does not pass the client's bearer token on to the MCP backend.",
    async check(ctx) {
      const origin = ctx.target.backendOrigin
      if (!origin) throw new CheckSkipped('the backend is not observable')
      await ctx.http(`${origin}/__requests`, { method: 'DELETE' })
      await postMcp(ctx, { token: await token(ctx, { sub: 'alice' }) })
      const seen = (await ctx.http(`${origin}/__requests`)).json<
        Array<{ hasAuthorization: boolean }>
      >()
      must(seen.length > 0, 'the request to reach the backend', 'nothing reached it')
      must(
        seen.every((r) => !r.hasAuthorization),
        'no Authorization header at the backend',
        'it received one',
      )
    },
  },
  {
    id: 'AUTHZ-001',
    level: 'MUST',
    quote:
      'Authorization: after authentication, every rule in matchExpressions is evaluated on the claims; a valid token that fails the rules (for example no required group in the groups claim, including client-only tokens not issued for a user) gets 403.',
    profile: 'core',
    source: `${SEED_ERRORS} ("Valid token, authorization rule not satisfied → 403"); seed: Authentication 3`,
    text: 'A valid token that fails the authorization rules (user not in the group) gets 403, not 401.',
    async check(ctx) {
      const res = await postMcp(ctx, { token: await token(ctx, { sub: 'bob' }) })
      must(res.status === 403, '403', `${res.status}`)
    },
  },
  {
    id: 'AUTHZ-002',
    level: 'SHOULD',
    quote:
      'When a client makes a request with an access token with insufficient scope during runtime operations, the server SHOULD respond with:',
    profile: 'core',
    source: 'RFC 6750 §3.1; MCP authorization 2025-11-25 (scope challenge)',
    text: 'The 403 carries WWW-Authenticate: Bearer error="insufficient_scope" with the resource_metadata URL.',
    async check(ctx) {
      const res = await postMcp(ctx, { token: await token(ctx, { sub: 'bob' }) })
      const params = challengeParams(res.headers.get('www-authenticate'))
      must(
        params?.error === 'insufficient_scope',
        'error="insufficient_scope"',
        String(res.headers.get('www-authenticate')),
      )
      must(
        params.resource_metadata === prmUrl(ctx.target.configuredBase),
        'the resource_metadata URL',
        String(params.resource_metadata),
      )
    },
  },
  {
    id: 'AUTHZ-003',
    level: 'MUST',
    quote:
      'Authorization: after authentication, every rule in matchExpressions is evaluated on the claims; a valid token that fails the rules (for example no required group in the groups claim, including client-only tokens not issued for a user) gets 403.',
    profile: 'core',
    source: 'seed: Authentication 3 ("including client-only tokens not issued for a user")',
    text: 'A client-credentials token (no user, no groups claim) gets 403: a rule that cannot be evaluated denies.',
    async check(ctx) {
      const res = await postMcp(ctx, { token: await token(ctx, { client: 'service' }) })
      must(res.status === 403, '403', `${res.status}`)
    },
  },
  {
    id: 'FAIL-001',
    level: 'MUST',
    quote:
      'The provider does not publish keys at /.well-known/jwks.json; a wrong path makes key fetch fail and token validation fail',
    profile: 'core',
    source: `${SEED_ERRORS} ("Wrong domain or JWKS path … token validation fails"); seed: States`,
    text: 'On a route whose policy cannot fetch its key set (wrong jwksPath), a valid token is rejected with 401 — never passed through.',
    async check(ctx) {
      const path = ctx.target.brokenPath
      if (!path)
        throw new CheckSkipped('no route with a wrong jwksPath was configured (--broken-path)')
      const res = await postMcp(ctx, { path, token: await token(ctx, { sub: 'alice' }) })
      must(res.status === 401, '401', `${res.status}`)
    },
  },
  {
    id: 'AUTH-050',
    level: 'MUST',
    profile: 'core',
    quote:
      'Values for the "error_description" attribute (specified in Appendix A.2 of [RFC6749]) MUST NOT include characters outside the set %x20-21 / %x23-5B / %x5D-7E.',
    source:
      'RFC 7515 §4.1.11 (a crit extension the recipient does not understand makes the JWS invalid); RFC 6750 §3 (error_description "MUST NOT include characters outside the set %x20-21 / %x23-5B / %x5D-7E")',
    text: 'A token whose header marks a non-ASCII extension ("中") as critical is rejected with 401 and a WWW-Authenticate made of the characters RFC 6750 §3 allows — never a 5xx.',
    async check(ctx) {
      const [header = '', payload = '', signature = ''] = (
        await token(ctx, { sub: 'alice' })
      ).split('.')
      const decoded = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as object
      const ext = '中'
      const hostileHeader = Buffer.from(
        JSON.stringify({ ...decoded, crit: [ext], [ext]: true }),
      ).toString('base64url')
      const res = await postMcp(ctx, { token: `${hostileHeader}.${payload}.${signature}` })
      must(res.status === 401, '401', `${res.status}`)
      const challenge = res.headers.get('www-authenticate') ?? ''
      must(
        /^Bearer [\x20-\x7e]*$/.test(challenge),
        'a Bearer challenge of printable ASCII',
        JSON.stringify(challenge),
      )
    },
  },
]
