/**
 * `GET <issuer>/oauth/callback`: the IdP's authorization response to the gateway (docs/design/broker.md
 * item 4). The state must be one the gateway issued and not yet used (taken from the store: one
 * time), and the browser must be the one that consented (the browser-binding cookie): a captured
 * IdP URL opened in someone else's browser is refused here, so no code reaches the client that
 * captured it (the FastMCP confused-deputy advisory GHSA-rww4-4w9c-7733). An `iss` that is not
 * the IdP's is refused (RFC 9207 §2.4).
 *
 * Then the IdP's code is exchanged server-side, with the gateway's PKCE verifier, at the IdP's
 * token endpoint — bounded by the IdP backend's timeout — and the client gets a one-time gateway
 * code with its `state` and `iss` = the gateway (RFC 9207). Errors, the IdP's included, go to the
 * client as RFC 6749 §4.1.2.1 error responses.
 */
import type { LocalRequest, LocalResponse } from '../http/local-response.js'
import { readCookie } from './cookies.js'
import {
  asRecord,
  asValue,
  type CodeRecord,
  errorToClient,
  type FlowContext,
  type PendingAuthorization,
  redirectToClient,
} from './flow.js'
import { idpLegKey } from './idp-redirect.js'
import { errorPage } from './pages.js'
import { parseParams } from './params.js'
import { reportSignInFailure, type SignInFailure } from './sign-in-failure.js'
import { digest, randomHandle, safeEqual } from './signing.js'

/** Handles the IdP's return. */
export async function callback(ctx: FlowContext, req: LocalRequest): Promise<LocalResponse> {
  const params = parseParams((req.query ?? '').replace(/^\?/, ''))
  if (!params.ok) {
    return errorPage(
      'GW_ERR_SIGN_IN_FAILED',
      'Sign-in failed',
      `the parameter ${params.repeated} is repeated in the identity provider's response`,
    )
  }
  const p = params.get
  const state = p('state')
  if (!state) {
    return errorPage(
      'GW_ERR_SIGN_IN_FAILED',
      'Sign-in failed',
      "the identity provider's response has no state",
    )
  }
  const pending = asRecord<PendingAuthorization>(await ctx.store.take('pending', idpLegKey(state)))
  if (!pending?.verifier) {
    return errorPage(
      'GW_ERR_SIGN_IN_FAILED',
      'Sign-in expired',
      'this sign-in is unknown, expired or was already completed (each link back from the identity provider works once)',
    )
  }
  const nonce = readCookie(req.headers, ctx.cookies.browserName)
  if (!nonce || !safeEqual(digest(nonce), pending.browser)) {
    ctx.log.warn(
      { clientId: pending.clientId },
      'broker: IdP response in a browser that did not consent; refused',
    )
    return errorPage(
      'GW_ERR_BROWSER_MISMATCH',
      'Sign-in refused',
      'this sign-in was started in another browser: the gateway completes it only in the browser where access was allowed',
    )
  }
  // The operator's log names the cause; the client gets the gateway's own words (sign-in-failure.ts).
  const fail = (failure: SignInFailure) => {
    const r = reportSignInFailure(failure, ctx.idp.issuer)
    ctx.log.warn({ code: r.code, clientId: pending.clientId, ...r.log }, r.message)
    return errorToClient(ctx, pending.redirectUri, pending.state, r.error, r.description)
  }
  const iss = p('iss')
  if (iss !== undefined ? iss !== ctx.idp.issuer : await ctx.idp.sendsIss()) {
    return fail({ kind: 'issuer', received: iss, expected: ctx.idp.issuer })
  }
  const idpError = p('error')
  if (idpError) {
    // RFC 6749 §4.1.2.1: passed on; a code outside the RFC's list becomes server_error.
    return fail({ kind: 'authorization', error: idpError, description: p('error_description') })
  }
  const idpCode = p('code')
  if (!idpCode) {
    return fail({
      kind: 'authorization',
      error: 'server_error',
      description: "the identity provider's response has neither code nor error",
    })
  }
  const exchanged = await ctx.idp.exchangeCode(idpCode, pending.verifier)
  if (!exchanged.ok) {
    return fail(
      exchanged.unavailable
        ? { kind: 'exchange-unavailable', cause: exchanged.cause }
        : { kind: 'exchange-refused', error: exchanged.error, description: exchanged.description },
    )
  }
  const t = exchanged.tokens
  const code = randomHandle()
  const record: CodeRecord = {
    clientId: pending.clientId,
    redirectUri: pending.redirectUri,
    codeChallenge: pending.codeChallenge,
    scope: pending.scope,
    resource: pending.resource,
    grantId: randomHandle(),
    accessToken: t.access_token,
    tokenType: t.token_type,
    expiresAt: t.expires_in !== undefined ? Math.floor(Date.now() / 1000) + t.expires_in : null,
    tokenScope: t.scope ?? null,
    idpRefreshToken: t.refresh_token ?? null,
  }
  await ctx.store.put('code', digest(code), asValue(record), ctx.ttl.codeMs)
  return redirectToClient(ctx, pending.redirectUri, { code }, pending.state)
}
