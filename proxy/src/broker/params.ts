/**
 * Reading OAuth request parameters (RFC 6749 §3.1, §3.2): from the query of a GET or the
 * `application/x-www-form-urlencoded` body of a POST, each at most once — a repeated parameter is
 * refused, never resolved by picking one (two `redirect_uri`s must not let a check and a redirect
 * read different values).
 */
import { OAuthError, RequestError } from '../errors.js'
import type { LocalRequest } from '../http/local-response.js'

/** Parameters by name, or the name of the first repeated one. */
export type Params =
  | { ok: true; get(name: string): string | undefined }
  | { ok: false; repeated: string }

/** Parses a query or form body. Empty values count as absent (RFC 6749 §3.1). */
export function parseParams(text: string): Params {
  const seen = new Map<string, string>()
  for (const [k, v] of new URLSearchParams(text)) {
    if (seen.has(k)) return { ok: false, repeated: k }
    seen.set(k, v)
  }
  return { ok: true, get: (name) => (seen.get(name) ? seen.get(name) : undefined) }
}

/** Why a form body could not be read. */
export interface FormProblem {
  error: OAuthError
}

/**
 * Reads an `application/x-www-form-urlencoded` body of at most `limit` bytes.
 * @returns the text, or the problem (wrong type, too large, not received).
 */
export async function readForm(
  req: LocalRequest,
  limit: number,
): Promise<{ ok: true; text: string } | ({ ok: false } & FormProblem)> {
  const type = String(req.headers['content-type'] ?? '')
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
    return {
      ok: false,
      error: new OAuthError(
        'GW_ERR_FORM_CONTENT_TYPE',
        'send the parameters as application/x-www-form-urlencoded (RFC 6749 §4.1.3)',
      ),
    }
  }
  try {
    return { ok: true, text: (await req.body(limit)).toString('utf8') }
  } catch (err) {
    if (err instanceof RequestError && err.code === 'GW_ERR_BODY_TOO_LARGE') {
      return {
        ok: false,
        error: new OAuthError(
          'GW_ERR_FORM_TOO_LARGE',
          `the request body is larger than ${limit} bytes`,
        ),
      }
    }
    return {
      ok: false,
      error: new OAuthError('GW_ERR_BODY_NOT_RECEIVED', 'the request body was not received'),
    }
  }
}
