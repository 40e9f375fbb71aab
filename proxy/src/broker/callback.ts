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
import { digest, randomHandle, safeEqual } from './signing.js'

/** RFC 6749 §4.1.2.1 error codes, passed on as the IdP sent them. */
const AUTHORIZATION_ERRORS = new Set([
  'invalid_request',
  'unauthorized_client',
  'access_denied',
  'unsupported_response_type',
  'invalid_scope',
  'server_error',
  'temporarily_unavailable',
])

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
  const fail = (error: string, description: string) =>
    errorToClient(ctx, pending.redirectUri, pending.state, error, description)
  const iss = p('iss')
  if (iss !== undefined ? iss !== ctx.idp.issuer : await ctx.idp.sendsIss()) {
    return fail(
      'server_error',
      `the identity provider's response names issuer ${iss ?? '(none)'}, expected ${ctx.idp.issuer} (RFC 9207)`,
    )
  }
  const idpError = p('error')
  if (idpError) {
    const described = p('error_description')
    // RFC 6749 §4.1.2.1: passed on; a code outside the RFC's list becomes server_error.
    const error = AUTHORIZATION_ERRORS.has(idpError) ? idpError : 'server_error'
    return fail(
      error,
      `the identity provider answered ${idpError}${described ? `: ${described}` : ''}`,
    )
  }
  const idpCode = p('code')
  if (!idpCode)
    return fail('server_error', "the identity provider's response has neither code nor error")
  const exchanged = await ctx.idp.exchangeCode(idpCode, pending.verifier)
  if (!exchanged.ok) {
    if (exchanged.unavailable) {
      ctx.log.warn({ cause: exchanged.cause }, 'broker: code exchange at the IdP failed')
      return fail(
        'temporarily_unavailable',
        `the identity provider's token endpoint did not answer usably (${exchanged.cause}); try again`,
      )
    }
    ctx.log.warn({ error: exchanged.error }, 'broker: the IdP refused the code exchange')
    return fail(
      'server_error',
      `the identity provider refused the code exchange: ${exchanged.error}${exchanged.description ? ` (${exchanged.description})` : ''}`,
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
