/**
 * Client authentication at the token endpoint (RFC 6749 §2.3.1, §3.2.1; RFC 7591 §2
 * `token_endpoint_auth_method`): each client authenticates the way it registered — `none`
 * (a public client: `client_id` only, PKCE protects the code), `client_secret_basic` or
 * `client_secret_post`. A request using another method than the registered one, or two at once
 * (RFC 6749 §2.3), is refused with `invalid_client`.
 */
import { OAuthError } from '../errors.js'
import type { LocalRequest } from '../http/local-response.js'
import type { BrokerClient } from './clients.js'
import type { FlowContext } from './flow.js'

/** A token-endpoint error (RFC 6749 §5.2). */
export type TokenError = OAuthError

/** Reads `Authorization: Basic` (RFC 7617) as form-urlencoded id and secret (RFC 6749 §2.3.1). */
function basicCredentials(
  req: LocalRequest,
): { id: string; secret: string } | 'malformed' | undefined {
  const auth = req.headers.authorization
  if (auth === undefined) return undefined
  const m = /^Basic +([A-Za-z0-9+/=]+)$/i.exec(auth.trim())
  if (!m?.[1]) return 'malformed'
  const decoded = Buffer.from(m[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return 'malformed'
  try {
    const unform = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '))
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) }
  } catch {
    return 'malformed'
  }
}

/** Authenticates the client of a token request. */
export async function authenticateClient(
  ctx: Pick<FlowContext, 'clients'>,
  req: LocalRequest,
  get: (name: string) => string | undefined,
): Promise<{ ok: true; client: BrokerClient } | { ok: false; failure: TokenError }> {
  const basic = basicCredentials(req)
  const invalid = (description: string, viaBasic: boolean): { ok: false; failure: TokenError } => ({
    ok: false,
    // RFC 6749 §5.2: a client that tried Basic gets the scheme it must use.
    failure: new OAuthError(
      'GW_ERR_TOKEN_CLIENT',
      description,
      viaBasic ? { challenge: 'Basic realm="gatehouse"' } : {},
    ),
  })
  if (basic === 'malformed')
    return invalid('the Authorization header is not valid Basic credentials', true)
  const bodyId = get('client_id')
  const bodySecret = get('client_secret')
  if (basic && bodySecret !== undefined) {
    return {
      ok: false,
      failure: new OAuthError(
        'GW_ERR_TOKEN_REQUEST',
        'use one client authentication method, not Basic and client_secret together (RFC 6749 §2.3)',
      ),
    }
  }
  if (basic && bodyId !== undefined && bodyId !== basic.id) {
    return invalid('client_id in the body is not the one in the Authorization header', true)
  }
  const clientId = basic?.id ?? bodyId
  if (!clientId) {
    return {
      ok: false,
      failure: new OAuthError(
        'GW_ERR_TOKEN_REQUEST',
        'client_id is missing (RFC 6749 §3.2.1: public clients send it in the body)',
      ),
    }
  }
  const client = await ctx.clients.lookup(clientId)
  if (!client) return invalid(`the client ${clientId} is not known to this gateway`, Boolean(basic))
  const registered = client.tokenEndpointAuthMethod
  // A public client's Basic header with an empty secret is the same as none.
  const secret = basic ? (basic.secret === '' ? undefined : basic.secret) : bodySecret
  const used = secret === undefined ? 'none' : basic ? 'client_secret_basic' : 'client_secret_post'
  if (used !== registered) {
    return invalid(
      `the client registered token_endpoint_auth_method ${registered} but authenticated with ${used}`,
      Boolean(basic),
    )
  }
  if (secret !== undefined && !ctx.clients.verifySecret(client, secret)) {
    return invalid('the client secret is wrong', Boolean(basic))
  }
  return { ok: true, client }
}
