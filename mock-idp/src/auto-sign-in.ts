/**
 * Automatic sign-in for scripted MCP clients (test mode): an authorization request is answered
 * with the redirect back to the client at once, as the fake authorization server of the official
 * MCP conformance suite answers it, so a client that reads the `Location` of its authorize
 * request (instead of driving a browser) gets its `code`. The IdP plays the browser itself: it
 * follows its own login and consent redirects against its listening address, with their cookies,
 * signs in the configured user (or the known user a `login_hint` names) and stops at the first
 * redirect that leaves its own origin — the client's `redirect_uri?code=…&state=…&iss=…`
 * (RFC 6749 §4.1.2, RFC 9207 §2). Errors the flow produces (an error redirect to the client, an
 * error page) are passed on unchanged.
 */
import { request as httpRequest, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { sendJson } from '@gatehouse/support'

/** Where the IdP listens and how clients see it. */
export interface AutoSignInContext {
  /** The org URL clients use (its origin is what the IdP's redirects name). */
  orgUrl: string
  /** The IdP's own listening address, e.g. `http://127.0.0.1:41234`. */
  internalUrl: string
  /** The CA of a generated test certificate, when the IdP serves HTTPS. */
  caCertPem?: string
  /** The user signed in when no `login_hint` names a known one. */
  user: string
  /**
   * A per-instance secret the IdP's own hops carry in {@link AUTO_SIGN_IN_HEADER}, so that its
   * authorize endpoint hands them to the provider instead of signing in again.
   */
  hopSecret: string
  users: ReadonlyMap<string, unknown>
}

/** The header marking the IdP's own hops (see {@link AutoSignInContext.hopSecret}). */
export const AUTO_SIGN_IN_HEADER = 'x-mock-idp-hop'

interface Hop {
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
}

/** One GET to the IdP itself, with cookies (no redirect following). */
function get(url: URL, headers: Record<string, string>, caCertPem?: string): Promise<Hop> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      { method: 'GET', headers, ...(caCertPem ? { ca: caCertPem } : {}) },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
          }),
        )
        res.on('error', reject)
      },
    )
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer from ${url.pathname} in 10 s`)))
    req.on('error', reject)
    req.end()
  })
}

/**
 * Answers the authorization request `path` + `search` (as received) with the redirect the sign-in
 * ends in, or with whatever non-redirect answer the flow gives.
 */
export async function autoSignIn(
  ctx: AutoSignInContext,
  pathAndSearch: string,
  res: ServerResponse,
): Promise<void> {
  const org = new URL(ctx.orgUrl)
  let url = new URL(pathAndSearch, ctx.internalUrl)
  const hint = url.searchParams.get('login_hint')
  if (hint === null || !ctx.users.has(hint)) url.searchParams.set('login_hint', ctx.user)
  const cookies = new Map<string, string>()
  for (let hop = 0; hop < 10; hop++) {
    const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ')
    const headers = { [AUTO_SIGN_IN_HEADER]: ctx.hopSecret, ...(cookie ? { cookie } : {}) }
    const answer = await get(url, headers, ctx.caCertPem)
    for (const line of answer.headers['set-cookie'] ?? []) {
      const [pair] = line.split(';')
      const eq = pair?.indexOf('=') ?? -1
      if (pair && eq > 0) cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim())
    }
    const location = answer.headers.location
    if (answer.status < 300 || answer.status >= 400 || !location) {
      const type = answer.headers['content-type']
      res.writeHead(answer.status, {
        ...(type ? { 'content-type': type } : {}),
        'cache-control': 'no-store',
        'content-length': answer.body.length,
      })
      res.end(answer.body)
      return
    }
    // The IdP names its own URLs by the org URL; anything else is the way back to the client.
    const next = new URL(location, org)
    if (next.origin !== org.origin) {
      res.writeHead(303, { location: next.href, 'cache-control': 'no-store' })
      res.end()
      return
    }
    url = new URL(`${next.pathname}${next.search}`, ctx.internalUrl)
  }
  sendJson(res, 500, { error: 'server_error', error_description: 'sign-in looped' })
}
