/**
 * The step from an approved authorization request to the IdP (docs/design/broker.md): a fresh state
 * and PKCE verifier for the IdP leg, kept server-side with the client's request under the digest
 * of that state, and the redirect to the IdP's authorization endpoint. The IdP-leg state is
 * created only after consent, so no IdP URL exists for a request nobody approved.
 */
import type { LocalResponse } from '../http/local-response.js'
import { asValue, errorToClient, type FlowContext, type PendingAuthorization } from './flow.js'
import { reportSignInFailure } from './sign-in-failure.js'
import { digest, randomHandle, s256 } from './signing.js'

/** Store key of a request waiting for the IdP's return. */
export function idpLegKey(state: string): string {
  return `idp:${digest(state)}`
}

/**
 * Sends the approved request on to the IdP.
 * @param setCookie a cookie to set on the way (the browser binding or the remembered consent)
 */
export async function continueToIdp(
  ctx: FlowContext,
  pending: PendingAuthorization,
  setCookie?: string,
): Promise<LocalResponse> {
  const state = randomHandle()
  const verifier = randomHandle()
  const url = await ctx.idp.authorizationUrl(state, s256(verifier), pending.scope)
  if (!url.ok) {
    // The operator's log names the cause (issuer mismatch, 404, no endpoint); the client gets
    // what to do, not the cause (sign-in-failure.ts; docs/idp/).
    const r = reportSignInFailure({ kind: 'discovery', cause: url.cause }, ctx.idp.issuer)
    ctx.log.error({ code: r.code, ...r.log }, r.message)
    return errorToClient(ctx, pending.redirectUri, pending.state, r.error, r.description, setCookie)
  }
  const leg: PendingAuthorization = { ...pending, verifier }
  await ctx.store.put('pending', idpLegKey(state), asValue(leg), ctx.ttl.pendingMs)
  return {
    status: 303,
    headers: {
      location: url.url,
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      ...(setCookie ? { 'set-cookie': setCookie } : {}),
    },
  }
}
