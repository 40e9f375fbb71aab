/**
 * `POST <issuer>/oauth/consent`: the user's answer on the consent page (docs/design/broker.md; MCP
 * security best practices, "Confused Deputy").
 *
 * The form is accepted only from the browser it was shown to: its CSRF token is a MAC over the
 * pending request and the browser-binding cookie, and the pending request records that browser.
 * A forged cross-site POST has neither (and SameSite=Lax keeps the cookie off it). The pending
 * request is taken from the store, so each form is answered once. Approve: the approval is
 * remembered in the signed consent cookie and the user goes on to the IdP. Deny: the client gets
 * `access_denied` (RFC 6749 §4.1.2.1).
 */
import type { LocalRequest, LocalResponse } from '../http/local-response.js'
import { consentKey } from './authorize.js'
import { rememberConsent } from './consent-cookie.js'
import { readCookie } from './cookies.js'
import { asRecord, errorToClient, type FlowContext, type PendingAuthorization } from './flow.js'
import { continueToIdp } from './idp-redirect.js'
import { errorPage } from './pages.js'
import { parseParams, readForm } from './params.js'
import { digest, safeEqual } from './signing.js'

const FORM_LIMIT = 4096

/** Handles the consent form. */
export async function consent(ctx: FlowContext, req: LocalRequest): Promise<LocalResponse> {
  // A cross-origin form post carries its page's Origin; ours comes from the issuer's origin.
  const origin = req.headers.origin
  if (origin !== undefined && origin !== new URL(ctx.issuer).origin) {
    return errorPage(
      'GW_ERR_BROWSER_MISMATCH',
      'Consent refused',
      `the consent form was sent from ${origin}, not from this gateway's page`,
    )
  }
  const form = await readForm(req, FORM_LIMIT)
  if (!form.ok) return errorPage(form.error.code, 'Consent refused', form.error.message)
  const params = parseParams(form.text)
  if (!params.ok)
    return errorPage(
      'GW_ERR_SIGN_IN_FAILED',
      'Consent refused',
      `the field ${params.repeated} is repeated`,
    )
  const requestId = params.get('request')
  const csrf = params.get('csrf')
  const decision = params.get('decision')
  if (!requestId || !csrf || (decision !== 'approve' && decision !== 'deny')) {
    return errorPage(
      'GW_ERR_SIGN_IN_FAILED',
      'Consent refused',
      'the form lacks request, csrf or decision (approve or deny)',
    )
  }
  const nonce = readCookie(req.headers, ctx.cookies.browserName)
  if (!nonce) {
    return errorPage(
      'GW_ERR_BROWSER_MISMATCH',
      'Consent refused',
      "this browser did not send the gateway's cookie: allow cookies for this site and start again",
    )
  }
  if (!safeEqual(csrf, ctx.signer.mac('csrf', requestId, nonce))) {
    return errorPage(
      'GW_ERR_BROWSER_MISMATCH',
      'Consent refused',
      'the form was not issued to this browser (CSRF check failed)',
    )
  }
  const pending = asRecord<PendingAuthorization>(
    await ctx.store.take('request', consentKey(requestId)),
  )
  if (!pending) {
    return errorPage(
      'GW_ERR_SIGN_IN_FAILED',
      'Consent expired',
      'this consent request expired or was already answered',
    )
  }
  if (!safeEqual(pending.browser, digest(nonce))) {
    return errorPage(
      'GW_ERR_BROWSER_MISMATCH',
      'Consent refused',
      'the request was started in another browser',
    )
  }
  if (decision === 'deny') {
    ctx.log.info({ clientId: pending.clientId }, 'broker: the user denied consent')
    return errorToClient(
      ctx,
      pending.redirectUri,
      pending.state,
      'access_denied',
      'the user denied the request',
    )
  }
  const scopes = pending.scope.split(' ').filter(Boolean)
  const cookie = rememberConsent(
    ctx,
    readCookie(req.headers, ctx.cookies.consentName),
    pending.clientId,
    pending.redirectUri,
    scopes,
  )
  return continueToIdp(ctx, pending, cookie)
}
