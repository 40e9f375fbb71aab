/**
 * A sign-in that fails on the IdP's side (docs/design/broker.md, "IdP leg"): its discovery wrong
 * or unreachable, its answer naming another issuer, its authorization error (`invalid_scope`,
 * `access_denied`, …), its token endpoint down or refusing the code. Two readers, two texts:
 *
 * - the operator's log: an error code of errors.ts and the cause, the IdP's `error_description`
 *   included (control characters dropped, cut at 200 characters);
 * - the person signing in, through the client's redirect URI (RFC 6749 §4.1.2.1: the error goes
 *   to the client once its redirect URI is trusted): the gateway's own sentence saying what
 *   happened and what to do. Never the IdP's description, a response body, a token or a secret:
 *   the IdP's error code is named only when it is one of RFC 6749 §4.1.2.1's.
 */
import type { ErrorCode } from '../errors.js'

/** RFC 6749 §4.1.2.1 error codes, passed on as the IdP sent them. */
export const AUTHORIZATION_ERRORS: ReadonlySet<string> = new Set([
  'invalid_request',
  'unauthorized_client',
  'access_denied',
  'unsupported_response_type',
  'invalid_scope',
  'server_error',
  'temporarily_unavailable',
])

/** What went wrong on the IdP's side. */
export type SignInFailure =
  | { kind: 'discovery'; cause: string }
  | { kind: 'issuer'; received: string | undefined; expected: string }
  | { kind: 'authorization'; error: string; description: string | undefined }
  | { kind: 'exchange-unavailable'; cause: string }
  | { kind: 'exchange-refused'; error: string; description: string | undefined }

/** How a {@link SignInFailure} is logged and told to the client. */
export interface SignInFailureReport {
  code: ErrorCode
  /** Fields of the operator's log entry (with `code`). */
  log: Record<string, unknown>
  /** The log message: what failed and the cause. */
  message: string
  /** The RFC 6749 `error` sent to the client. */
  error: string
  /** The `error_description` sent to the client: what happened and what to do. */
  description: string
}

const OPERATOR = "if it keeps failing, tell the gateway's operator"

/** The IdP's own text, fit for a log line: no control characters, at most 200 characters. */
export function idpText(text: string | undefined): string | undefined {
  if (!text) return undefined
  // biome-ignore lint/suspicious/noControlCharactersInRegex: dropping them is the point
  const clean = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim()
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean
}

/** The log entry and the client's error for a failed sign-in. */
export function reportSignInFailure(f: SignInFailure, issuer: string): SignInFailureReport {
  switch (f.kind) {
    case 'discovery':
      return {
        code: 'GW_ERR_DISCOVERY_UNAVAILABLE',
        log: { issuer, cause: f.cause },
        message: `broker: sign-in cannot start: the identity provider's authorization endpoint is not known (${f.cause})`,
        error: 'temporarily_unavailable',
        description: `sign-in cannot start: the gateway cannot use its identity provider right now (its configuration could not be read). Try again in a few minutes; ${OPERATOR} (their log says why: GW_ERR_DISCOVERY_UNAVAILABLE)`,
      }
    case 'issuer':
      return {
        code: 'GW_ERR_IDP_SIGN_IN_FAILED',
        log: { issuer, received: f.received ?? null },
        message: `broker: the identity provider's response names issuer ${f.received ?? '(none)'}, expected ${f.expected} (RFC 9207 mix-up defence); refused`,
        error: 'server_error',
        description: `sign-in stopped: the answer did not come from the gateway's identity provider (RFC 9207). Start again from your application; ${OPERATOR} (GW_ERR_IDP_SIGN_IN_FAILED)`,
      }
    case 'authorization': {
      const known = AUTHORIZATION_ERRORS.has(f.error)
      const error = known ? f.error : 'server_error'
      return {
        code: 'GW_ERR_IDP_SIGN_IN_FAILED',
        log: { issuer, idpError: idpText(f.error), idpDescription: idpText(f.description) },
        message: `broker: the identity provider refused the sign-in: ${idpText(f.error)}${f.description ? ` (${idpText(f.description)})` : ''}${f.error === 'invalid_scope' ? '; check broker.upstreamClient.scopes and the scopes the IdP offers (its discovery scopes_supported)' : ''}`,
        error,
        description: userText(error, known),
      }
    }
    case 'exchange-unavailable':
      return {
        code: 'GW_ERR_IDP_UNAVAILABLE',
        log: { issuer, cause: f.cause },
        message: `broker: code exchange at the IdP failed: ${f.cause}`,
        error: 'temporarily_unavailable',
        description: `sign-in could not be completed: the identity provider's token endpoint did not answer. Try again in a few minutes; ${OPERATOR} (GW_ERR_IDP_UNAVAILABLE)`,
      }
    case 'exchange-refused':
      return {
        code: 'GW_ERR_IDP_SIGN_IN_FAILED',
        log: { issuer, idpError: idpText(f.error), idpDescription: idpText(f.description) },
        message: `broker: the IdP refused the code exchange: ${idpText(f.error)}${f.description ? ` (${idpText(f.description)})` : ''}; check broker.upstreamClient (client id, secret, authentication method)`,
        error: 'server_error',
        description: `sign-in could not be completed: the identity provider refused to issue tokens to the gateway. Start again from your application; ${OPERATOR} (GW_ERR_IDP_SIGN_IN_FAILED)`,
      }
  }
}

/** The sentence for an IdP authorization error, by its RFC 6749 code. */
function userText(error: string, known: boolean): string {
  switch (error) {
    case 'access_denied':
      return 'the identity provider did not allow this sign-in (access_denied): the sign-in was cancelled, or your account may not use this application. Start again, or ask your administrator for access'
    case 'invalid_scope':
      return `the identity provider refused the permissions the gateway asked for (invalid_scope). This is a gateway configuration problem: tell the gateway's operator (GW_ERR_IDP_SIGN_IN_FAILED)`
    case 'temporarily_unavailable':
    case 'server_error':
      return `the identity provider could not sign you in right now (${error}). Try again in a few minutes; ${OPERATOR} (GW_ERR_IDP_SIGN_IN_FAILED)`
    default:
      return `the identity provider refused the sign-in${known ? ` (${error})` : ''}. Start again from your application; ${OPERATOR} (GW_ERR_IDP_SIGN_IN_FAILED)`
  }
}
