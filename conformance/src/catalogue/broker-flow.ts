/**
 * Profile `broker`, the authorization flow of a gateway in broker mode (docs/design/broker.md): the gateway is
 * the authorization server its MCP clients see and the IdP's client. Judged over HTTP only, as a
 * client and a user's browser see it: the gateway's metadata → registration → /authorize →
 * the consent page → the suite's IdP sign-in form → the authorization response → the token
 * endpoint. Requirements BRK-020 upward (BRK-001… are the broker's metadata, registration and
 * client metadata documents, in `broker.ts`).
 */
import { randomBytes } from 'node:crypto'
import { s256 } from '../client/flow.js'
import {
  type CheckContext,
  CheckFailure,
  CheckSkipped,
  type HttpResult,
  must,
  type Requirement,
} from '../types.js'
import { authorizationResponse } from './broker-user.js'

/** The IdP's test user the rules allow. */
const USER = 'alice'
const MCP_AUTH = 'MCP 2025-11-25 Authorization'

/** A broker requirement with the sentence it checks (`quote`, `levelNote`: see types.ts). */
type Quoted = Requirement & { quote: string; levelNote?: string }

/** The broker gateway under test: where the suite reaches it, and its configured base. */
function broker(ctx: CheckContext): { base: string; configured: string } {
  const { brokerBase, brokerConfiguredBase } = ctx.target
  if (!brokerBase)
    throw new CheckSkipped('the target has no gateway in broker mode (--broker-base)')
  return { base: brokerBase, configured: brokerConfiguredBase ?? brokerBase }
}

/** A URL the gateway announced, made reachable (its configured base replaced). */
function reach(b: { base: string; configured: string }, url: string): string {
  return url.startsWith(b.configured) ? `${b.base}${url.slice(b.configured.length)}` : url
}

function json(res: HttpResult, what: string): Record<string, unknown> {
  try {
    return res.json()
  } catch {
    throw new CheckFailure(`${what} as JSON`, res.text.slice(0, 200))
  }
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined)

/** The broker's RFC 8414 metadata, found from its protected-resource metadata. */
async function metadata(ctx: CheckContext) {
  const b = broker(ctx)
  const prm = json(await ctx.http(`${b.base}/.well-known/oauth-protected-resource/mcp`), 'PRM')
  const issuer = Array.isArray(prm.authorization_servers)
    ? str(prm.authorization_servers[0])
    : undefined
  must(issuer, 'authorization_servers[0] in the protected-resource metadata', JSON.stringify(prm))
  const u = new URL(issuer)
  const res = await ctx.http(
    reach(b, `${u.origin}/.well-known/oauth-authorization-server${u.pathname.replace(/\/$/, '')}`),
  )
  must(res.status === 200, '200 for the authorization-server metadata', `${res.status}`)
  const m = json(res, 'the authorization-server metadata')
  const authorize = str(m.authorization_endpoint)
  const token = str(m.token_endpoint)
  const register = str(m.registration_endpoint)
  must(
    authorize && token,
    'authorization_endpoint and token_endpoint',
    JSON.stringify(m).slice(0, 300),
  )
  if (!register) throw new CheckSkipped('the broker names no registration_endpoint')
  return {
    b,
    issuer: str(m.issuer) ?? '',
    resource: str(prm.resource) ?? '',
    /** As announced (the browser's view). */
    authorizeAnnounced: authorize,
    authorize: reach(b, authorize),
    token: reach(b, token),
    register: reach(b, register),
  }
}

type Broker = Awaited<ReturnType<typeof metadata>>

/** A loopback redirect URI of a client that exists only in this check (RFC 8252 §7.3). */
function redirectUri(): string {
  return `http://127.0.0.1:${20000 + Math.floor(Math.random() * 20000)}/callback`
}

/** Registers a public client (RFC 7591) with one redirect URI; returns its id. */
async function register(ctx: CheckContext, m: Broker, redirect: string): Promise<string> {
  const res = await ctx.http(m.register, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'gatehouse conformance broker',
      redirect_uris: [redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  })
  must(res.status === 201 || res.status === 200, '201 for the registration', `${res.status}`)
  const id = str(json(res, 'the registration answer').client_id)
  must(id, 'a client_id', res.text.slice(0, 200))
  return id
}

/** An authorization request URL. */
function authorizeUrl(
  m: Pick<Broker, 'authorize'>,
  params: Record<string, string | undefined>,
): string {
  const url = new URL(m.authorize)
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v)
  return url.toString()
}

/** A registered client, its PKCE pair, and its authorization response after the user allowed. */
async function signedIn(ctx: CheckContext) {
  const m = await metadata(ctx)
  const redirect = redirectUri()
  const clientId = await register(ctx, m, redirect)
  const verifier = randomBytes(32).toString('base64url')
  const state = randomBytes(16).toString('base64url')
  const back = await authorizationResponse(
    ctx,
    authorizeUrl(
      { authorize: m.authorizeAnnounced },
      {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirect,
        code_challenge: s256(verifier),
        code_challenge_method: 'S256',
        state,
        resource: m.resource,
      },
    ),
    redirect,
    USER,
    (url) => reach(m.b, url),
  )
  return { m, clientId, redirect, verifier, state, back }
}

function redeem(
  ctx: CheckContext,
  s: Awaited<ReturnType<typeof signedIn>>,
  code: string,
  verifier?: string,
) {
  return ctx.http(s.m.token, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: s.redirect,
      client_id: s.clientId,
      ...(verifier !== undefined ? { code_verifier: verifier } : {}),
    }).toString(),
  })
}

function codeOf(s: { back: URL; state: string }): string {
  const code = s.back.searchParams.get('code')
  must(
    code && s.back.searchParams.get('state') === s.state,
    'a code and the client state in the authorization response',
    `${s.back.search.slice(0, 200)}`,
  )
  return code
}

/**
 * An authorization request without PKCE as asked: must be refused with `invalid_request` — as an
 * error response to the client, or a page — and never reach the consent page or the IdP.
 */
async function expectPkceRefusal(ctx: CheckContext, params: Record<string, string | undefined>) {
  const m = await metadata(ctx)
  const redirect = redirectUri()
  const clientId = await register(ctx, m, redirect)
  const res = await ctx.http(
    authorizeUrl(m, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirect,
      state: 's',
      resource: m.resource,
      ...params,
    }),
    { redirect: 'manual' },
  )
  const loc = res.headers.get('location')
  if (loc?.startsWith(redirect)) {
    const error = new URL(loc).searchParams.get('error')
    must(
      error === 'invalid_request',
      'error=invalid_request in the response to the client',
      `error=${error}`,
    )
    return
  }
  must(
    res.status >= 400 && res.status < 500,
    `invalid_request (an error to ${redirect} or a 4xx page)`,
    `${res.status}${loc ? ` to ${loc}` : ''}`,
  )
}

/** Profile `broker`: the authorization flow (BRK-020…). */
export const brokerFlow: Quoted[] = [
  {
    id: 'BRK-020',
    level: 'MUST',
    profile: 'broker',
    source: `RFC 9207 §2; ${MCP_AUTH} (clients compare iss with the metadata's issuer)`,
    quote:
      'In authorization responses to the client, including error responses, an authorization server supporting this specification MUST indicate its identity by including the iss parameter in the response.',
    text: "The broker's authorization responses — a code after the user allowed and signed in at the IdP, and an error response — carry iss equal to the issuer of its metadata, not the IdP's.",
    async check(ctx) {
      const s = await signedIn(ctx)
      codeOf(s)
      const iss = s.back.searchParams.get('iss')
      must(iss === s.m.issuer, `iss=${s.m.issuer} with the code`, `iss=${iss}`)
      const res = await ctx.http(
        authorizeUrl(s.m, {
          response_type: 'code',
          client_id: s.clientId,
          redirect_uri: s.redirect,
          state: 'e',
          code_challenge: s256('x'.repeat(43)),
          code_challenge_method: 'plain',
        }),
        { redirect: 'manual' },
      )
      const loc = res.headers.get('location')
      if (!loc?.startsWith(s.redirect)) return // an error page is no authorization response
      const errIss = new URL(loc).searchParams.get('iss')
      must(errIss === s.m.issuer, `iss=${s.m.issuer} with the error response`, `iss=${errIss}`)
    },
  },
  {
    id: 'BRK-021',
    level: 'MUST',
    profile: 'broker',
    source: `RFC 7636 §4.4.1; ${MCP_AUTH} "Authorization Code Protection" (S256); OAuth 2.1 §4.1.1`,
    quote:
      'If the server supporting PKCE does not support the requested transformation, the authorization endpoint MUST return the authorization error response with "error" value set to "invalid_request".',
    text: 'The broker, which supports S256 only, refuses an authorization request with code_challenge_method=plain, or with none (plain by default), with invalid_request.',
    async check(ctx) {
      const challenge = randomBytes(32).toString('base64url')
      await expectPkceRefusal(ctx, { code_challenge: challenge, code_challenge_method: 'plain' })
      await expectPkceRefusal(ctx, { code_challenge: challenge })
    },
  },
  {
    id: 'BRK-022',
    level: 'MUST',
    profile: 'broker',
    source: `RFC 7636 §4.4.1; ${MCP_AUTH} "Authorization Code Protection" (PKCE required)`,
    quote:
      'If the server requires Proof Key for Code Exchange (PKCE) by OAuth public clients and the client does not send the "code_challenge" in the request, the authorization endpoint MUST return the authorization error response with the "error" value set to "invalid_request".',
    text: 'The broker refuses an authorization request without code_challenge with invalid_request.',
    async check(ctx) {
      await expectPkceRefusal(ctx, {})
    },
  },
  {
    id: 'BRK-023',
    level: 'MUST',
    profile: 'broker',
    source: 'RFC 6749 §4.1.2; OAuth 2.1 §4.1.3',
    quote:
      'If an authorization code is used more than once, the authorization server MUST deny the request',
    text: "The broker's authorization code works once: redeemed again, it is refused with invalid_grant.",
    async check(ctx) {
      const s = await signedIn(ctx)
      const code = codeOf(s)
      const first = await redeem(ctx, s, code, s.verifier)
      must(
        first.status === 200,
        '200 for the first redemption',
        `${first.status} ${first.text.slice(0, 200)}`,
      )
      const again = await redeem(ctx, s, code, s.verifier)
      must(again.status === 400, '400 for the same code again', `${again.status}`)
      must(
        json(again, 'the error').error === 'invalid_grant',
        'invalid_grant',
        again.text.slice(0, 200),
      )
    },
  },
  {
    id: 'BRK-024',
    level: 'SHOULD',
    profile: 'broker',
    source: 'RFC 6749 §4.1.2; RFC 9700 §4.5 (code replay)',
    quote:
      'and SHOULD revoke (when possible) all tokens previously issued based on that authorization code.',
    text: 'When a code is presented again, the refresh token its first redemption gave is revoked.',
    async check(ctx) {
      const s = await signedIn(ctx)
      const code = codeOf(s)
      const first = await redeem(ctx, s, code, s.verifier)
      must(first.status === 200, '200 for the first redemption', `${first.status}`)
      const refresh = str(json(first, 'the token answer').refresh_token)
      if (!refresh) throw new CheckSkipped('the broker issued no refresh token')
      await redeem(ctx, s, code, s.verifier)
      const res = await ctx.http(s.m.token, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: refresh,
          client_id: s.clientId,
        }).toString(),
      })
      must(res.status === 400, 'the refresh token refused (400) after the replay', `${res.status}`)
    },
  },
  {
    id: 'BRK-025',
    level: 'MUST',
    profile: 'broker',
    source: `${MCP_AUTH} "Confused Deputy Problem"; MCP security best practices, "Confused Deputy Problem"`,
    quote:
      'MCP proxy servers using static client IDs MUST obtain user consent for each dynamically registered client before forwarding to third-party authorization servers (which may require additional consent).',
    text: "For a newly registered client, in a browser that never used the gateway, /authorize answers with a page (the user's consent), never with a redirect to the IdP.",
    async check(ctx) {
      const m = await metadata(ctx)
      const redirect = redirectUri()
      const clientId = await register(ctx, m, redirect)
      const res = await ctx.http(
        authorizeUrl(m, {
          response_type: 'code',
          client_id: clientId,
          redirect_uri: redirect,
          state: 's',
          code_challenge: s256(randomBytes(32).toString('base64url')),
          code_challenge_method: 'S256',
          resource: m.resource,
        }),
        { redirect: 'manual' },
      )
      const loc = res.headers.get('location')
      const idp = new URL(ctx.target.idp.orgUrl).origin
      must(
        !loc || new URL(loc, m.authorize).origin !== idp,
        'no redirect to the IdP before consent',
        `${res.status} to ${loc}`,
      )
      must(
        res.status === 200 && /<form\b/i.test(res.text),
        'a consent page (200, a form)',
        `${res.status}${loc ? ` to ${loc}` : ''}`,
      )
    },
  },
  {
    id: 'BRK-026',
    level: 'MUST',
    profile: 'broker',
    source: `${MCP_AUTH} "Open Redirection"; OAuth 2.1 §4.1.1; RFC 6749 §4.1.2.1 (never to an invalid redirect URI)`,
    quote: 'Authorization servers MUST validate exact redirect URIs against pre-registered values.',
    text: '/authorize refuses a redirect URI that is not exactly one the client registered (a longer path, an added query, another port, another host) with an error page, never a redirect to it or a consent page.',
    async check(ctx) {
      const m = await metadata(ctx)
      const redirect = redirectUri()
      const clientId = await register(ctx, m, redirect)
      const u = new URL(redirect)
      for (const other of [
        `${redirect}/evil`,
        `${redirect}?next=https://evil.example`,
        `${u.protocol}//${u.hostname}:${Number(u.port) + 1}${u.pathname}`,
        `https://evil.example${u.pathname}`,
      ]) {
        const res = await ctx.http(
          authorizeUrl(m, {
            response_type: 'code',
            client_id: clientId,
            redirect_uri: other,
            state: 's',
            code_challenge: s256(randomBytes(32).toString('base64url')),
            code_challenge_method: 'S256',
            resource: m.resource,
          }),
          { redirect: 'manual' },
        )
        must(
          res.status >= 400 && res.status < 500,
          `a 4xx error page for redirect_uri ${other}`,
          `${res.status} ${res.headers.get('location') ?? ''}`,
        )
      }
    },
  },
  {
    id: 'BRK-027',
    level: 'MUST',
    profile: 'broker',
    source: 'RFC 7636 §4.6; OAuth 2.1 §4.1.3',
    quote:
      'If the values are not equal, an error response indicating "invalid_grant" as described in Section 5.2 of [RFC6749] MUST be returned.',
    text: "The broker's token endpoint refuses a code_verifier that does not match the code_challenge with invalid_grant.",
    async check(ctx) {
      const s = await signedIn(ctx)
      const res = await redeem(ctx, s, codeOf(s), randomBytes(32).toString('base64url'))
      must(res.status === 400, '400 for a wrong code_verifier', `${res.status}`)
      must(
        json(res, 'the error').error === 'invalid_grant',
        'invalid_grant',
        res.text.slice(0, 200),
      )
    },
  },
]
