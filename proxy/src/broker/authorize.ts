/**
 * `GET <issuer>/oauth/authorize` (docs/design/broker.md; RFC 6749 §4.1.1, OAuth 2.1 §4.1.1, RFC 7636,
 * RFC 8707; MCP authorization 2025-11-25): checks the request, then shows the consent page — or,
 * when this browser already approved this client for this redirect URI and these scopes, goes on
 * to the IdP.
 *
 * Until the redirect URI is verified (known client, exact match with a registered URI), every
 * error is a page in the browser: the request is never sent to an unverified URI (RFC 6749
 * §4.1.2.1, "open redirector", RFC 9700 §4.11). After that, errors go back to the client with
 * `state` and `iss` (RFC 9207).
 */
import type { LocalRequest, LocalResponse } from '../http/local-response.js'
import { redirectUriAllowed } from './clients.js'
import { rememberedConsent } from './consent-cookie.js'
import { readCookie } from './cookies.js'
import { asValue, errorToClient, type FlowContext, type PendingAuthorization } from './flow.js'
import { continueToIdp } from './idp-redirect.js'
import { consentPage, errorPage } from './pages.js'
import { parseParams } from './params.js'
import { digest, randomHandle } from './signing.js'

/** RFC 7636 §4.2: an S256 challenge is the base64url SHA-256, 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/
/** A browser-binding nonce as the broker issues it. */
const NONCE = /^[A-Za-z0-9_-]{43}$/

/** Store key of a request waiting for consent. */
export function consentKey(requestId: string): string {
  return `req:${requestId}`
}

/** Handles the authorization request. */
export async function authorize(ctx: FlowContext, req: LocalRequest): Promise<LocalResponse> {
  const params = parseParams((req.query ?? '').replace(/^\?/, ''))
  if (!params.ok) {
    return errorPage(
      'GW_ERR_AUTHORIZE_REQUEST',
      'Invalid authorization request',
      `the parameter ${params.repeated} is repeated (RFC 6749 §3.1)`,
    )
  }
  const p = params.get
  const clientId = p('client_id')
  if (!clientId) {
    return errorPage(
      'GW_ERR_AUTHORIZE_REQUEST',
      'Invalid authorization request',
      'client_id is missing (RFC 6749 §4.1.1)',
    )
  }
  const client = await ctx.clients.lookup(clientId)
  if (!client) {
    return errorPage(
      'GW_ERR_AUTHORIZE_REQUEST',
      'Unknown application',
      `the client id ${clientId} is not registered at this gateway: the application must register first (or use its Client ID Metadata Document URL)`,
    )
  }
  // OAuth 2.1 §4.1.1: redirect_uri may be left out only when exactly one is registered.
  const sole = client.redirectUris.length === 1 ? client.redirectUris[0] : undefined
  const redirectUri = p('redirect_uri') ?? sole
  if (!redirectUri) {
    return errorPage(
      'GW_ERR_AUTHORIZE_REQUEST',
      'Invalid authorization request',
      'redirect_uri is missing (the client has several or none registered)',
    )
  }
  if (!redirectUriAllowed(client, redirectUri)) {
    return errorPage(
      'GW_ERR_AUTHORIZE_REQUEST',
      'Redirect URI not registered',
      `${redirectUri} is not a redirect URI registered for client ${clientId}; redirect URIs are compared exactly`,
    )
  }
  // From here on the redirect URI is verified: errors go back to the client.
  const state = p('state')
  const fail = (error: string, description: string) =>
    errorToClient(ctx, redirectUri, state, error, description)
  if (p('response_type') !== 'code') {
    return fail('unsupported_response_type', 'response_type must be code (OAuth 2.1 §4.1.1)')
  }
  // `state` is optional: PKCE S256, required below, already ties the code to this client's
  // request (RFC 9700 §4.7.1; MCP authorization: clients SHOULD use state). A client that sends
  // one gets it back unchanged.
  const challenge = p('code_challenge')
  const method = p('code_challenge_method')
  if (!challenge) {
    return fail(
      'invalid_request',
      'code_challenge is required: PKCE with S256 (OAuth 2.1 §4.1.1; MCP authorization, "Authorization Code Protection")',
    )
  }
  // RFC 7636 §4.3: an absent method means plain, which this server refuses.
  if (method !== 'S256') {
    return fail(
      'invalid_request',
      `code_challenge_method must be S256${method ? `, not ${method}` : ' (absent means plain)'}; plain is not supported`,
    )
  }
  if (!S256_CHALLENGE.test(challenge)) {
    return fail(
      'invalid_request',
      'code_challenge is not an S256 challenge (43 base64url characters, RFC 7636 §4.2)',
    )
  }
  const resource = p('resource')
  if (resource !== undefined && !sameResource(resource, ctx.resource)) {
    return fail('invalid_target', `resource must be ${ctx.resource} (RFC 8707 §2), not ${resource}`)
  }
  const scope = p('scope') ?? ''
  const existing = readCookie(req.headers, ctx.cookies.browserName)
  const nonce = existing && NONCE.test(existing) ? existing : randomHandle()
  const setBrowser =
    nonce === existing ? undefined : ctx.cookies.set(ctx.cookies.browserName, nonce)
  const pending: PendingAuthorization = {
    clientId,
    redirectUri,
    state,
    codeChallenge: challenge,
    scope,
    resource: ctx.resource,
    browser: digest(nonce),
  }
  const scopes = scope.split(' ').filter(Boolean)
  const consentCookie = readCookie(req.headers, ctx.cookies.consentName)
  if (consentCookie && rememberedConsent(ctx, consentCookie, clientId, redirectUri, scopes)) {
    ctx.log.debug({ clientId }, 'broker: consent remembered for this browser')
    return continueToIdp(ctx, pending, setBrowser)
  }
  // A request waiting for consent costs a store entry to anyone who can send a GET: it lives
  // only requestTtl, in its own namespace (a flood cannot fill the one of consented sign-ins),
  // and one address may open only perSourceRequestLimit of them per requestTtl.
  const verdict = ctx.requestLimit.take(req.remoteAddress ?? 'unknown')
  if (!verdict.ok) {
    return errorPage(
      'GW_ERR_AUTHORIZE_LIMIT',
      'Too many sign-in requests',
      `too many sign-in requests from this address are waiting for consent; try again in ${verdict.retryAfterSeconds} s`,
      { 'retry-after': String(verdict.retryAfterSeconds) },
    )
  }
  const requestId = randomHandle()
  await ctx.store.put('request', consentKey(requestId), asValue(pending), ctx.ttl.requestMs)
  const view = consentPage({
    clientName: client.clientName ?? clientId,
    clientId,
    redirectHost: redirectHost(redirectUri),
    scopes,
    resource: ctx.resource,
    action: `${ctx.issuer}/oauth/consent`,
    request: requestId,
    csrf: ctx.signer.mac('csrf', requestId, nonce),
  })
  if (setBrowser) view.headers = { ...view.headers, 'set-cookie': setBrowser }
  return view
}

/** RFC 8707 §2: the resource as configured, with or without a trailing slash. */
function sameResource(given: string, configured: string): boolean {
  const strip = (s: string) => s.replace(/\/$/, '')
  return strip(given) === strip(configured)
}

/** What the consent page shows of the redirect URI: its scheme and host, or the whole URI. */
function redirectHost(uri: string): string {
  const url = new URL(uri)
  return url.host ? `${url.protocol}//${url.host}` : uri
}
