/**
 * `POST <issuer>/oauth/token` (docs/design/broker.md; RFC 6749 §3.2, §4.1.3, §5, §6; RFC 7636 §4.6;
 * OAuth 2.1 §4.3.1).
 *
 * - `authorization_code`: the code is taken from the store (read and deleted at once), so it
 *   works once whatever the outcome — a wrong `code_verifier` burns it, so guessing is bounded to
 *   one try per code, and every failure is the same `invalid_grant` (no oracle). A code presented
 *   again is a replay: what was issued from it is revoked (RFC 6749 §4.1.2) — its refresh grant
 *   at once, the IdP's refresh token at the IdP when it has a revocation endpoint. The access
 *   token is the IdP's JWT, so routes validate it as before and `jwt.groups` rules still apply.
 * - `refresh_token`: the client holds `<grant id>.<secret>`; the IdP's refresh token stays on the
 *   gateway. Each use rotates the secret (OAuth 2.1 §4.3.1); a superseded token presented again
 *   revokes the grant (RFC 9700 §4.14.2).
 *
 * Errors are RFC 6749 §5.2 JSON with `Cache-Control: no-store`.
 */
import { OAuthError, type OAuthErrorCode } from '../errors.js'
import { fromRequestError, type LocalRequest, type LocalResponse } from '../http/local-response.js'
import { authenticateClient, type TokenError } from './client-auth.js'
import type { BrokerClient } from './clients.js'
import { asRecord, asValue, type CodeRecord, type FlowContext, type GrantRecord } from './flow.js'
import { parseParams, readForm } from './params.js'
import { CODE_VERIFIER, digest, randomHandle, s256, safeEqual } from './signing.js'

const FORM_LIMIT = 16 * 1024
/** How long a redeemed code is remembered, so that a replay can revoke what it gave. */
const REPLAY_MEMORY_MS = 60 * 60_000
const HANDLE = /^[A-Za-z0-9_-]{43}$/
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' }

function tokenError(e: TokenError): LocalResponse {
  const local = fromRequestError(e)
  return { ...local, headers: { ...NO_STORE, ...local.headers } }
}

const invalid = (code: OAuthErrorCode, description: string, headers?: Record<string, string>) =>
  tokenError(new OAuthError(code, description, headers ? { headers } : {}))

const invalidGrant = (description: string) => invalid('GW_ERR_TOKEN_GRANT', description)

/** Handles a token request. */
export async function token(ctx: FlowContext, req: LocalRequest): Promise<LocalResponse> {
  const form = await readForm(req, FORM_LIMIT)
  if (!form.ok) return tokenError(form.error)
  const params = parseParams(form.text)
  if (!params.ok) {
    return invalid(
      'GW_ERR_TOKEN_REQUEST',
      `the parameter ${params.repeated} is repeated (RFC 6749 §3.2)`,
    )
  }
  const p = params.get
  const grantType = p('grant_type')
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
    return grantType
      ? invalid(
          'GW_ERR_TOKEN_GRANT_TYPE',
          `grant_type ${grantType} is not supported here: use authorization_code or refresh_token`,
        )
      : invalid('GW_ERR_TOKEN_REQUEST', 'grant_type is missing')
  }
  const auth = await authenticateClient(ctx, req, p)
  if (!auth.ok) return tokenError(auth.failure)
  const resource = p('resource')
  if (resource !== undefined && resource.replace(/\/$/, '') !== ctx.resource.replace(/\/$/, '')) {
    return invalid('GW_ERR_TOKEN_TARGET', `resource must be ${ctx.resource} (RFC 8707 §2)`)
  }
  return grantType === 'authorization_code'
    ? redeemCode(ctx, auth.client, p)
    : refresh(ctx, auth.client.clientId, p)
}

async function redeemCode(
  ctx: FlowContext,
  client: BrokerClient,
  p: (name: string) => string | undefined,
): Promise<LocalResponse> {
  const clientId = client.clientId
  const code = p('code')
  const verifier = p('code_verifier')
  if (!code) return invalid('GW_ERR_TOKEN_REQUEST', 'code is missing')
  const key = digest(code)
  const record = asRecord<CodeRecord>(await ctx.store.take('code', key))
  if (!record) {
    const used = asRecord<{ grantId: string }>(await ctx.store.get('code', `used:${key}`))
    if (used) {
      await revokeGrant(ctx, used.grantId, 'authorization code replayed')
      return invalidGrant(
        'the authorization code was already used; what it gave was revoked (RFC 6749 §4.1.2)',
      )
    }
    return invalidGrant('the authorization code is invalid or expired')
  }
  await ctx.store.put('code', `used:${key}`, { grantId: record.grantId }, REPLAY_MEMORY_MS)
  // From here the code is spent, whatever follows (one try per code).
  if (record.clientId !== clientId)
    return invalidGrant('the authorization code was issued to another client')
  if (p('redirect_uri') !== undefined && p('redirect_uri') !== record.redirectUri) {
    return invalidGrant(
      'redirect_uri is not the one of the authorization request (RFC 6749 §4.1.3)',
    )
  }
  if (!verifier) {
    return invalidGrant(
      'code_verifier is missing: PKCE is required (RFC 7636 §4.5); the code is spent',
    )
  }
  if (!CODE_VERIFIER.test(verifier) || !safeEqual(s256(verifier), record.codeChallenge)) {
    return invalidGrant(
      'code_verifier does not match the code_challenge (RFC 7636 §4.6); the code is spent',
    )
  }
  // The client's first code redeemed: it is in use, so it is kept for its whole clientTtl. A
  // store failure here costs the client an early re-registration, never this answer.
  await ctx.clients.markUsed(client).catch((err: unknown) => {
    ctx.log.warn({ clientId, err: String(err) }, 'broker: could not record a client as in use')
  })
  let refreshToken: string | undefined
  if (record.idpRefreshToken) {
    const secret = randomHandle()
    const grant: GrantRecord = {
      clientId,
      secret: digest(secret),
      idpRefreshToken: record.idpRefreshToken,
      scope: record.scope,
      resource: record.resource,
    }
    await ctx.store.put('grant', record.grantId, asValue(grant), ctx.ttl.refreshMs)
    refreshToken = `${record.grantId}.${secret}`
  }
  ctx.log.info({ clientId }, 'broker: tokens issued for an authorization code')
  // The token waited for the client since the callback: what is left of its lifetime.
  const expiresIn =
    record.expiresAt === null ? null : Math.max(0, record.expiresAt - Math.floor(Date.now() / 1000))
  return tokens(record.accessToken, record.tokenType, expiresIn, record.tokenScope, refreshToken)
}

async function refresh(
  ctx: FlowContext,
  clientId: string,
  p: (name: string) => string | undefined,
): Promise<LocalResponse> {
  const presented = p('refresh_token')
  if (!presented) return invalid('GW_ERR_TOKEN_REQUEST', 'refresh_token is missing')
  const [grantId, secret, extra] = presented.split('.')
  if (!grantId || !secret || extra !== undefined || !HANDLE.test(grantId) || !HANDLE.test(secret)) {
    return invalidGrant('the refresh token is invalid')
  }
  const grant = asRecord<GrantRecord>(await ctx.store.take('grant', grantId))
  if (!grant) return invalidGrant('the refresh token is invalid, expired or revoked')
  if (!safeEqual(digest(secret), grant.secret)) {
    // A superseded token: someone else holds a copy. The grant is already out of the store.
    await revokeAtIdp(ctx, grant, 'superseded refresh token presented')
    return invalidGrant('the refresh token was already used; the grant is revoked (sign in again)')
  }
  if (grant.clientId !== clientId) {
    await revokeAtIdp(ctx, grant, 'refresh token presented by another client')
    return invalidGrant('the refresh token was issued to another client')
  }
  const result = await ctx.idp.refresh(grant.idpRefreshToken)
  if (!result.ok) {
    if (result.unavailable) {
      // Not the client's doing: keep the grant as it was, so the same token works on retry.
      await ctx.store.put('grant', grantId, asValue(grant), ctx.ttl.refreshMs)
      return invalid(
        'GW_ERR_IDP_UNAVAILABLE',
        `the identity provider's token endpoint did not answer usably (${result.cause}); try again`,
        { 'retry-after': '5' },
      )
    }
    return invalidGrant(
      `the identity provider refused the refresh (${result.error}); sign in again`,
    )
  }
  const next = randomHandle()
  const t = result.tokens
  const updated: GrantRecord = {
    ...grant,
    secret: digest(next),
    idpRefreshToken: t.refresh_token ?? grant.idpRefreshToken,
  }
  await ctx.store.put('grant', grantId, asValue(updated), ctx.ttl.refreshMs)
  return tokens(
    t.access_token,
    t.token_type,
    t.expires_in ?? null,
    t.scope ?? null,
    `${grantId}.${next}`,
  )
}

async function revokeGrant(ctx: FlowContext, grantId: string, why: string): Promise<void> {
  const grant = asRecord<GrantRecord>(await ctx.store.take('grant', grantId))
  ctx.log.warn({ revoked: grant !== undefined }, `broker: ${why}; grant revoked`)
  if (grant) await revokeAtIdp(ctx, grant, why)
}

async function revokeAtIdp(ctx: FlowContext, grant: GrantRecord, why: string): Promise<void> {
  const revoked = await ctx.idp.revoke(grant.idpRefreshToken, 'refresh_token')
  ctx.log.warn({ clientId: grant.clientId, revokedAtIdp: revoked }, `broker: ${why}`)
}

/** RFC 6749 §5.1. */
function tokens(
  accessToken: string,
  tokenType: string,
  expiresIn: number | null,
  scope: string | null,
  refreshToken: string | undefined,
): LocalResponse {
  return {
    status: 200,
    headers: { ...NO_STORE },
    body: {
      access_token: accessToken,
      token_type: tokenType.toLowerCase() === 'bearer' ? 'Bearer' : tokenType,
      ...(expiresIn !== null ? { expires_in: expiresIn } : {}),
      ...(scope ? { scope } : {}),
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
    },
  }
}
