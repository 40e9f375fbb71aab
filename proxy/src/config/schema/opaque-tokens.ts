/**
 * `jwtAuthentication.opaqueTokens`: access tokens the gateway cannot read itself (Google's, Auth0's
 * without an `audience`, any IdP's "reference" tokens), validated by asking the IdP — RFC 7662
 * token introspection, or an OpenID Connect UserInfo request (OIDC Core §5.3) for IdPs that offer
 * no introspection. The answer's claims stand in for a JWT's: the route's CEL rules see them as
 * `jwt.*`. Behaviour and fail-closed defaults: docs/idp/opaque-tokens.md.
 */
import { z } from 'zod'
import { duration } from './common.js'
import { BackendRefSchema } from './listeners.js'

/** A path on the backend, e.g. `/oauth2/default/v1/introspect`. */
const EndpointPathSchema = z
  .string()
  .startsWith('/', { message: 'expected a path starting with "/", e.g. /oauth2/v1/introspect' })

/** `opaqueTokens.introspection`: an RFC 7662 endpoint and the gateway's client credentials. */
export const IntrospectionSchema = z.strictObject({
  backendRef: BackendRefSchema.describe(
    "The IdP's backend (TLS from its BackendTLSPolicy); the endpoint is fetched through its pool.",
  ),
  path: EndpointPathSchema.describe(
    "Path of the introspection endpoint on that backend (discovery's introspection_endpoint), e.g. /oauth2/default/v1/introspect.",
  ),
  clientId: z
    .string()
    .min(1)
    .describe(
      'The client id the gateway authenticates as (RFC 7662 §2.1: the call is authorized).',
    ),
  clientSecret: z
    .string()
    .min(1)
    .describe('Its client secret; write it as ${VAR}. Never logged, dumped or traced.'),
  authMethod: z
    .enum(['client_secret_basic', 'client_secret_post'])
    .default('client_secret_basic')
    .describe(
      'How the client authenticates (RFC 6749 §2.3.1): client_secret_basic (HTTP Basic, the default) or client_secret_post (form fields).',
    ),
})

/** `opaqueTokens.userinfo`: an OIDC UserInfo endpoint that judges the token by answering. */
export const UserinfoSchema = z.strictObject({
  backendRef: BackendRefSchema.describe(
    'The backend of the UserInfo endpoint (for Google, www.googleapis.com or openidconnect.googleapis.com on 443 with TLS).',
  ),
  path: EndpointPathSchema.describe(
    "Path of the UserInfo endpoint (discovery's userinfo_endpoint), e.g. /v1/userinfo.",
  ),
})

/** `jwtAuthentication.opaqueTokens`: how a token that is not a JWT of a provider is validated. */
export const OpaqueTokensSchema = z
  .strictObject({
    issuer: z
      .url()
      .describe(
        "The IdP's issuer. Introspection: an answer's iss, when present, must equal it. Reported as the token's issuer in traces; the claims seen by CEL are the IdP's answer as it is.",
      ),
    audiences: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe(
        "Introspection (required there): the answer's aud must contain one of these; an answer without aud is refused (fail closed). Not allowed with userinfo, whose answers carry no audience: restrict a userinfo route with authorization rules instead.",
      ),
    introspection: IntrospectionSchema.optional(),
    userinfo: UserinfoSchema.optional(),
    cacheDuration: duration('0s', '1h')
      .prefault('60s')
      .describe(
        'How long an accepted token is remembered (by its SHA-256, never the token): never past its exp. A revoked token is refused within this time. 0s: ask the IdP on every request.',
      ),
    cacheSize: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .default(10_000)
      .describe('Accepted tokens remembered at most (least recently used evicted first).'),
    refusalCacheDuration: duration('0s', '5m')
      .prefault('10s')
      .describe(
        'How long a token the IdP refused (inactive, unknown, or failing a check) is remembered, by its SHA-256, so the same bad token sent again costs no call; at most cacheSize refusals, apart from the accepted tokens. An IdP that could not answer is never remembered. 0s: never.',
      ),
    idpCallLimit: z
      .strictObject({
        perSource: z
          .number()
          .int()
          .min(1)
          .max(100_000)
          .default(20)
          .describe('Calls one client address may cause per window.'),
        window: duration('1s', '1h').prefault('10s').describe('The window, 1s-1h.'),
        maxInFlight: z
          .number()
          .int()
          .min(1)
          .max(10_000)
          .default(32)
          .describe('Calls running at once over all client addresses.'),
      })
      .prefault({})
      .describe(
        'Bounds the calls to the IdP for tokens neither remembered nor being validated, so a flood of random tokens cannot flood the IdP: past either bound the request is refused with 503 and Retry-After, without asking the IdP (fail closed). Remembered answers cost nothing.',
      ),
    timeout: duration('100ms', '30s')
      .prefault('5s')
      .describe(
        "Time for the IdP's whole answer; past it the request is refused with 503 (fail closed).",
      ),
    clockSkew: duration('0s', '10m')
      .prefault('60s')
      .describe("Tolerance for the answer's exp and nbf, 0s-10m."),
  })
  .superRefine((v, ctx) => {
    const set = [v.introspection, v.userinfo].filter((x) => x !== undefined).length
    if (set !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          'expected exactly one of introspection (RFC 7662) or userinfo (OIDC UserInfo, e.g. Google)',
      })
    }
    if (v.introspection && !v.audiences) {
      ctx.addIssue({
        code: 'custom',
        path: ['audiences'],
        message:
          "required with introspection: the audiences this gateway accepts (the answer's aud must contain one), so a token issued for another API is refused",
      })
    }
    if (v.userinfo && v.audiences) {
      ctx.addIssue({
        code: 'custom',
        path: ['audiences'],
        message:
          'not allowed with userinfo: a UserInfo answer names no audience, so it cannot be checked; restrict the route with authorization rules (e.g. jwt.email or jwt.hd)',
      })
    }
  })
  .describe(
    'Opaque access tokens, validated by the IdP: RFC 7662 introspection or OIDC UserInfo. A token that is a JWT of one of providers is verified locally; any other token is sent to this endpoint.',
  )
