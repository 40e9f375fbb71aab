/**
 * Opaque access tokens, validated by RFC 7662 introspection (a route of the target that accepts
 * them: `Target.opaque`). Skipped for a target without one. Sources: MCP authorization
 * 2026-07-28 §Token Handling, RFC 7662 §4.
 */
import { type CheckContext, CheckSkipped, must, type Requirement, type Target } from '../types.js'
import { postMcp } from './util.js'

/** An opaque access token from the target's IdP (client credentials), and when it expires. */
async function opaqueToken(
  ctx: CheckContext,
  opaque: NonNullable<Target['opaque']>,
): Promise<{ token: string; expiresAt: number }> {
  const basic = Buffer.from(
    `${encodeURIComponent(opaque.clientId)}:${encodeURIComponent(opaque.clientSecret)}`,
  ).toString('base64')
  const res = await ctx.http(opaque.tokenEndpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${basic}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'openid' }).toString(),
  })
  let body: { access_token?: unknown; expires_in?: unknown } = {}
  try {
    body = res.json()
  } catch {
    // Not JSON: no token, said below.
  }
  if (typeof body.access_token !== 'string' || typeof body.expires_in !== 'number') {
    throw new CheckSkipped(`the IdP issued no opaque token (HTTP ${res.status})`)
  }
  return { token: body.access_token, expiresAt: Date.now() + body.expires_in * 1000 }
}

function opaqueTarget(ctx: CheckContext): NonNullable<Target['opaque']> {
  const opaque = ctx.target.opaque
  if (!opaque) {
    throw new CheckSkipped(
      "the target has no route that accepts opaque access tokens (with --target, name one with --opaque-target: a route that introspects the suite's opaque tokens)",
    )
  }
  return opaque
}

/** Profile `core`, opaque tokens: what a resource server that introspects must do. */
export const opaqueTokens: Requirement[] = [
  {
    id: 'OPQ-001',
    level: 'MUST',
    resourceServer: true,
    quote: 'Invalid or expired tokens MUST receive a HTTP 401 response.',
    profile: 'core',
    source:
      'MCP authorization 2026-07-28 §Token Handling (and 2025-11-25); RFC 7662 §2.2 (active: false)',
    text: 'On a route that accepts opaque tokens by introspection, a valid opaque token is accepted (2xx) and a token the authorization server reports inactive (unknown to it) is rejected with 401.',
    async check(ctx) {
      const opaque = opaqueTarget(ctx)
      const { token } = await opaqueToken(ctx, opaque)
      const ok = await postMcp(ctx, { base: opaque.base, token })
      must(ok.status >= 200 && ok.status < 300, '2xx for a valid opaque token', `${ok.status}`)
      const forged = await postMcp(ctx, { base: opaque.base, token: `${token}x` })
      must(forged.status === 401, '401 for a token the IdP reports inactive', `${forged.status}`)
    },
  },
  {
    id: 'OPQ-002',
    level: 'MUST',
    resourceServer: true,
    quote:
      'If the response contains the "exp" parameter (expiration), the response MUST NOT be cached beyond the time indicated therein.',
    profile: 'core',
    source:
      'RFC 7662 §4 (Security Considerations); MCP authorization 2026-07-28 §Token Handling ("Invalid or expired tokens MUST receive a HTTP 401 response")',
    text: 'An opaque token accepted while valid (its introspection cached) is rejected with 401 once its exp has passed: the cached introspection answer is not used beyond its exp.',
    async check(ctx) {
      const opaque = opaqueTarget(ctx)
      const { token, expiresAt } = await opaqueToken(ctx, opaque)
      const ok = await postMcp(ctx, { base: opaque.base, token })
      must(ok.status >= 200 && ok.status < 300, '2xx while the token is valid', `${ok.status}`)
      // Past exp, plus a second for the clocks of the IdP and the target.
      const wait = expiresAt + 1000 - Date.now()
      if (wait > 60_000) throw new CheckSkipped('the IdP issues opaque tokens living over a minute')
      await new Promise((r) => setTimeout(r, Math.max(0, wait)))
      const after = await postMcp(ctx, { base: opaque.base, token })
      must(after.status === 401, '401 once the token has expired', `${after.status}`)
    },
  },
]
