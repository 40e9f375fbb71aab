/**
 * What is checked of a request before it is routed: the method (405 for one the gateway does not
 * route), the request target (normalised by `target.ts`, refused with 400 when ambiguous) and the
 * Host header (RFC 9112 §3.2: exactly one, valid).
 */
import type { IncomingMessage } from 'node:http'
import { RequestError } from '../errors.js'
import { methodNotAllowed, ROUTED_METHODS } from './client-errors.js'
import { isValidAuthority, type Target, type TargetResult } from './target.js'

function badPath(why: string): RequestError {
  return new RequestError('GW_ERR_BAD_PATH', `the request path is refused: ${why}`)
}

/** RFC 9112 §3.2: exactly one valid Host in an HTTP/1.1 request. */
function hostProblem(req: IncomingMessage): string | undefined {
  let count = 0
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if ((req.rawHeaders[i] as string).length === 4 && req.rawHeaders[i]?.toLowerCase() === 'host')
      count++
  }
  if (count > 1) return 'the request carries more than one Host header (RFC 9112 §3.2)'
  if (count === 0 && req.httpVersionMinor >= 1) {
    return 'an HTTP/1.1 request needs a Host header (RFC 9112 §3.2)'
  }
  if (req.headers.host !== undefined && !isValidAuthority(req.headers.host)) {
    return 'the Host header is not a valid host[:port] (RFC 9112 §3.2)'
  }
  return undefined
}

/**
 * What is checked before routing: the method, the target, the Host.
 * @returns the normalised target; for absolute-form, its authority has replaced Host.
 * @throws {@link RequestError} 405, or 400 `invalid_path` / `bad_request`.
 */
export function checkedTarget(req: IncomingMessage, method: string, parsed: TargetResult): Target {
  if (!ROUTED_METHODS.includes(method)) throw methodNotAllowed(method)
  if (!parsed.ok) throw badPath(parsed.reason)
  // RFC 9112 §3.2.2: the authority of an absolute-form target replaces Host.
  if (parsed.target.authority !== undefined) {
    req.headers.host = parsed.target.authority
    return parsed.target
  }
  const problem = hostProblem(req)
  if (problem) throw new RequestError('GW_ERR_BAD_REQUEST', problem)
  return parsed.target
}
