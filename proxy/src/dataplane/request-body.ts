/**
 * Request bodies: `Expect: 100-continue` answered when, and only when, the gateway is about to
 * read the body (RFC 9110 §10.1.1), and bounded reads for the endpoints the gateway serves itself.
 * How long a body may take is the listener's `limits.requestTimeout` (Node's http server cuts the
 * request there), so no read here waits forever.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { RequestError } from '../errors.js'

/** Default size limit of a body read by the gateway itself (OAuth registration). */
export const BODY_LIMIT = 64 * 1024

/**
 * Whether the client waits for `100 Continue` before it sends the body (the test Node's server
 * applies when it chooses between its 'checkContinue' and 'checkExpectation' events).
 */
export function expectsContinue(req: IncomingMessage): boolean {
  const expect = req.headers.expect
  return expect !== undefined && /(?:^|\W)100-continue(?:\W|$)/i.test(expect)
}

/**
 * Lets a client that sent `Expect: 100-continue` send its body: called right before the body is
 * read or forwarded, so a request refused earlier (401, 403, 404, 503) never uploads it.
 */
export function continueBody(req: IncomingMessage, res: ServerResponse): void {
  if (!expectsContinue(req) || res.headersSent || continued.has(req)) return
  continued.add(req)
  res.writeContinue()
}

const continued = new WeakSet<IncomingMessage>()

/** Whether a request carries a body (RFC 9112 §6.3: Content-Length or Transfer-Encoding). */
export function hasRequestBody(req: IncomingMessage): boolean {
  return req.headers['content-length'] !== undefined
    ? req.headers['content-length'] !== '0'
    : req.headers['transfer-encoding'] !== undefined
}

function tooLarge(limit: number): RequestError {
  return new RequestError('GW_ERR_BODY_TOO_LARGE', `the request body exceeds ${limit} bytes`)
}

/**
 * Reads a whole body of at most `limit` bytes.
 * @throws {@link RequestError} `GW_ERR_BODY_TOO_LARGE` (413) beyond the limit; the stream's error
 * when the client goes away.
 */
export function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0)
  if (declared > limit) return Promise.reject(tooLarge(limit))
  continueBody(req, res)
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (c: Buffer) => {
      size += c.length
      if (size <= limit) {
        chunks.push(c)
        return
      }
      req.off('data', onData)
      // Read on and drop the rest, so the answer (413) can be sent on a healthy connection.
      req.resume()
      reject(tooLarge(limit))
    }
    req.on('data', onData)
    req.once('end', () => resolve(Buffer.concat(chunks)))
    req.once('error', reject)
  })
}
