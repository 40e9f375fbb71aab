/**
 * The authorization request and the code exchange: PKCE, state, iss, the resource indicator,
 * the redirect URI and the scopes asked for.
 */
import { CheckSkipped, must } from '../../types.js'
import type { Authorization, Flow } from '../flow.js'
import { s256, scopesOf } from '../flow.js'
import {
  always,
  type ClientCheckContext,
  type ClientRequirement,
  current,
  MCP,
  only,
} from './types.js'

const PKCE = `${MCP('Authorization Code Protection')}; RFC 7636 §4; OAuth 2.1 §4.1.1`

/** At least one authorization request, or a failure saying there was none. */
function authorizationsOf(flow: Flow): Authorization[] {
  const all = flow.authorizations
  must(all.length > 0, 'an authorization request at the IdP', 'none was sent')
  return all
}

/**
 * The distinct authorization requests: a request sent again byte for byte (same state, same
 * code_challenge, same everything) is one authorization request delivered twice — e.g.
 * mcp-remote's probe of a cached registration (a GET of the URL before it opens the browser) —
 * not a second request reusing the first one's state and challenge. No clause forbids sending
 * the same request twice; RFC 7636 §4.1 asks for a verifier per request, RFC 6749 §10.12 binds
 * state to the user agent's session, and both hold.
 */
function distinctAuthorizations(flow: Flow): Authorization[] {
  const seen = new Set<string>()
  return authorizationsOf(flow).filter((a) => {
    if (seen.has(a.entry.url.href)) return false
    seen.add(a.entry.url.href)
    return true
  })
}

/** The authorization whose redirect carried `code`. */
const producing = (flow: Flow, code: string | null) =>
  flow.authorizations.find((a) => code !== null && a.code === code)

/** Code-grant token requests, or skipped when the client redeemed no code. */
function redemptions(flow: Flow) {
  const all = flow.tokenRequests.filter((t) => t.grantType === 'authorization_code')
  if (all.length === 0) throw new CheckSkipped('the client redeemed no authorization code')
  return all
}

/** The forged authorization response of a scenario must not be redeemed. */
function forgedNotRedeemed(ctx: ClientCheckContext, param: 'state' | 'iss'): void {
  const forged = ctx.flow.authorizations.find((a) =>
    a.entry.reshaped?.startsWith(`${param} replaced`),
  )
  if (!forged?.code) throw new CheckSkipped('the client never got to the authorization response')
  const redeemed = ctx.flow.tokenRequests.find((t) => t.form.get('code') === forged.code)
  ctx.evidence(redeemed?.entry ?? forged.entry)
  must(
    !redeemed,
    `the code of the response with the wrong ${param} never redeemed`,
    `redeemed at the token endpoint (${redeemed?.entry.status})`,
  )
}

/** The authorization-request requirements. */
export const authorization: ClientRequirement[] = [
  {
    id: 'CLI-PKCE-001',
    level: 'MUST',
    source: PKCE,
    quote:
      'MCP clients MUST use the S256 code challenge method when technically capable, as required by OAuth 2.1 Section 4.1.1.',
    needs: 'authorization',
    text: 'Every authorization request carries a PKCE code_challenge with code_challenge_method=S256.',
    appliesTo: always,
    check({ flow, evidence }) {
      for (const a of authorizationsOf(flow)) {
        evidence(a.entry)
        const challenge = a.params.get('code_challenge')
        must(
          challenge !== null && /^[A-Za-z0-9_-]{43}$/.test(challenge),
          'a code_challenge (43 base64url characters)',
          String(challenge),
        )
        must(
          a.params.get('code_challenge_method') === 'S256',
          'code_challenge_method=S256',
          String(a.params.get('code_challenge_method')),
        )
      }
    },
  },
  {
    id: 'CLI-PKCE-002',
    level: 'MUST',
    source: `${PKCE}; RFC 7636 §4.5`,
    quote: 'code_verifier REQUIRED. Code verifier',
    needs: 'authorization',
    text: 'Each code is redeemed with the code_verifier of the request that got it (S256), and every authorization request uses a fresh verifier.',
    appliesTo: always,
    check({ flow, evidence }) {
      const distinct = distinctAuthorizations(flow)
      const challenges = distinct.map((a) => a.params.get('code_challenge'))
      const repeated = distinct.find(
        (a, i) => challenges.indexOf(a.params.get('code_challenge')) !== i,
      )
      evidence(repeated?.entry)
      must(
        !repeated,
        'a new code_challenge for every authorization request',
        'a code_challenge used again',
      )
      for (const t of redemptions(flow)) {
        evidence(t.entry)
        const a = producing(flow, t.form.get('code'))
        if (!a) continue
        const verifier = t.form.get('code_verifier')
        must(
          verifier !== null && /^[A-Za-z0-9._~-]{43,128}$/.test(verifier),
          'a code_verifier of 43-128 unreserved characters (RFC 7636 §4.1)',
          verifier === null ? 'none' : `${verifier.length} characters`,
        )
        must(
          s256(verifier) === a.params.get('code_challenge'),
          "the verifier of the authorization request's challenge",
          'a verifier that does not match it',
        )
      }
    },
  },
  {
    id: 'CLI-STATE-001',
    level: 'SHOULD',
    source: `${MCP('Open Redirection')}; RFC 6749 §10.12; RFC 6749 §10.10`,
    quote:
      'MCP clients SHOULD use and verify state parameters in the authorization code flow and discard any results that do not include or have a mismatch with the original state.',
    needs: 'authorization',
    text: 'Every authorization request carries a fresh, unguessable state (at least 128 bits: 22 characters or more, never repeated).',
    appliesTo: always,
    check({ flow, evidence }) {
      const seen = new Set<string>()
      for (const a of distinctAuthorizations(flow)) {
        evidence(a.entry)
        const state = a.params.get('state')
        must(
          state !== null && state.length >= 22,
          'a state of 22 characters or more',
          state === null ? 'no state' : `"${state}"`,
        )
        must(!seen.has(state), 'a new state for every authorization request', `"${state}" again`)
        seen.add(state)
      }
    },
  },
  {
    id: 'CLI-STATE-002',
    // SHOULD: MCP says so, and RFC 9700 §4.7.1 lets a client rely on PKCE against CSRF instead.
    level: 'SHOULD',
    source: `${MCP('Open Redirection')}; RFC 6749 §10.12; RFC 9700 §4.7.1`,
    quote:
      'MCP clients SHOULD use and verify state parameters in the authorization code flow and discard any results that do not include or have a mismatch with the original state.',
    text: 'The client does not redeem a code from an authorization response whose state is not the one it sent (CSRF).',
    appliesTo: only('forged-state'),
    check: (ctx) => forgedNotRedeemed(ctx, 'state'),
  },
  {
    id: 'CLI-ISS-001',
    level: 'SHOULD',
    // RFC 9207 §2.4's MUST binds clients that support RFC 9207, which MCP 2025-11-25 does not
    // require (2026-07-28 does); RFC 9700 recommends it: SHOULD.
    source: 'RFC 9700 §2.1; RFC 9207 §2.4',
    quote:
      'To this end, clients SHOULD use the iss parameter as a countermeasure according to [RFC9207]',
    text: "The client does not redeem a code from an authorization response whose iss is not the authorization server's issuer (mix-up defence; the server advertises authorization_response_iss_parameter_supported).",
    appliesTo: only('wrong-iss'),
    check: (ctx) => forgedNotRedeemed(ctx, 'iss'),
  },
  {
    id: 'CLI-RES-001',
    level: 'MUST',
    source: `${MCP('Resource Parameter Implementation')}; RFC 8707 §2`,
    quote:
      'MCP clients MUST send this parameter regardless of whether authorization servers support it.',
    needs: 'authorization',
    text: 'Every authorization request and every token request (code and refresh) carries resource=<the protected resource>, exactly as the protected-resource metadata names it.',
    appliesTo: current(),
    check({ flow, facts, evidence }) {
      const requests = [
        ...authorizationsOf(flow).map((a) => ({ entry: a.entry, params: a.params })),
        ...flow.tokenRequests.map((t) => ({ entry: t.entry, params: t.form })),
      ]
      for (const r of requests) {
        evidence(r.entry)
        const values = r.params.getAll('resource')
        must(
          values.length === 1 && values[0] === facts.resource,
          `resource=${facts.resource}`,
          values.length ? `resource=${values.join(', ')}` : 'no resource parameter',
        )
      }
    },
  },
  {
    id: 'CLI-REDIR-001',
    level: 'MUST',
    source: 'RFC 6749 §4.1.3; OAuth 2.1 §4.1.3; RFC 8252 §7.3',
    quote:
      'redirect_uri REQUIRED, if the "redirect_uri" parameter was included in the authorization request as described in Section 4.1.1, and their values MUST be identical.',
    needs: 'authorization',
    text: 'The token request repeats the redirect_uri of its authorization request byte for byte, and that URI is one the client registered.',
    appliesTo: always,
    check({ flow, evidence }) {
      const registered = new Set(
        flow.registrations.flatMap((r) => {
          const uris = r.metadata?.redirect_uris
          return Array.isArray(uris) ? uris.map(String) : []
        }),
      )
      for (const a of authorizationsOf(flow)) {
        const uri = a.params.get('redirect_uri')
        evidence(a.entry)
        if (registered.size > 0)
          must(
            uri !== null && registered.has(uri),
            `one of ${[...registered].join(', ')}`,
            String(uri),
          )
      }
      for (const t of redemptions(flow)) {
        const a = producing(flow, t.form.get('code'))
        if (!a) continue
        evidence(t.entry)
        must(
          t.form.get('redirect_uri') === a.params.get('redirect_uri'),
          `redirect_uri=${a.params.get('redirect_uri')}`,
          `redirect_uri=${t.form.get('redirect_uri')}`,
        )
      }
    },
  },
  {
    id: 'CLI-SCOPE-001',
    level: 'SHOULD',
    source: MCP('Scope Selection Strategy'),
    quote:
      'During the initial authorization handshake, MCP clients SHOULD follow this priority order for scope selection:',
    needs: 'authorization',
    text: "The first authorization request asks for the challenge's scope, or without one every scope of the metadata's scopes_supported.",
    appliesTo: current(),
    check({ flow, facts, evidence }) {
      const first = authorizationsOf(flow)[0]
      evidence(first?.entry)
      const challenged = scopesOf(
        flow.challenges.find((c) => first && c.entry.seq < first.entry.seq)?.params.scope,
      )
      const wanted = challenged.length ? challenged : facts.scopesSupported
      const asked = scopesOf(first?.params.get('scope'))
      must(
        wanted.every((s) => asked.includes(s)),
        `scope including ${wanted.join(' ')}`,
        `scope=${asked.join(' ') || '(none)'}`,
      )
    },
  },
]
