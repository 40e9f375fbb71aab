/**
 * The body of a Dynamic Client Registration request (RFC 7591 §3.1: client metadata as a JSON
 * object, `application/json`), read once for both registrations the gateway answers: the
 * pass-through one (`mcp.clientId`, ./endpoints.ts) and the broker's (broker/register.ts).
 */
import { RequestError } from '../../errors.js'
import { errorResponse, type LocalRequest, type LocalResponse } from '../../http/local-response.js'

/** The largest registration request read: client metadata is a few hundred bytes. */
export const REGISTRATION_BODY_LIMIT = 16 * 1024

/**
 * Reads the registration request's JSON body (parsed, and the bytes as sent, for a registration
 * passed on to the IdP), or the answer that refuses it: 413 over
 * {@link REGISTRATION_BODY_LIMIT}, 400 when no body arrived, 415 for another content type, 400
 * `invalid_client_metadata` for a body that is not JSON (RFC 7591 §3.2.2). The caller checks the
 * metadata itself.
 */
export async function readRegistrationBody(
  req: LocalRequest,
): Promise<{ json: unknown; raw: Buffer } | { response: LocalResponse }> {
  let raw: Buffer
  try {
    raw = await req.body(REGISTRATION_BODY_LIMIT)
  } catch (err) {
    if (err instanceof RequestError && err.code === 'GW_ERR_BODY_TOO_LARGE') {
      return {
        response: errorResponse(
          'GW_ERR_REGISTRATION_TOO_LARGE',
          `the registration request is larger than ${REGISTRATION_BODY_LIMIT} bytes`,
        ),
      }
    }
    // The client went away or sent the body too slowly: the listener has already answered 408
    // to a body past requestTimeout, so this answer reaches no one; it says what happened.
    return {
      response: errorResponse(
        'GW_ERR_BODY_NOT_RECEIVED',
        'the registration request body was not received',
      ),
    }
  }
  const type = String(req.headers['content-type'] ?? '')
  if (!/^application\/json\b/i.test(type)) {
    return {
      response: errorResponse(
        'GW_ERR_REGISTRATION_CONTENT_TYPE',
        'send the client metadata as application/json (RFC 7591 §3.1)',
      ),
    }
  }
  let json: unknown
  try {
    json = JSON.parse(raw.toString('utf8'))
  } catch {
    return { response: errorResponse('GW_ERR_REGISTRATION_METADATA', 'the body is not JSON') }
  }
  return { json, raw }
}
