/**
 * The refusals a policy answers with, in one place (RFC 6750 §3, RFC 9728 §5.1):
 *
 * - no token: 401 `WWW-Authenticate: Bearer resource_metadata="…"` (a `realm` when the policy has
 *   no MCP block, so the challenge is never empty), with `scope` naming
 *   `mcp.resourceMetadata.scopesSupported` when it is set (MCP authorization 2025-11-25,
 *   "Protected Resource Metadata Discovery Requirements": servers SHOULD name the scopes in the
 *   challenge; RFC 6750 §3);
 * - an invalid token: 401 with `error="invalid_token"`, a description and the same `scope`;
 * - a malformed request (two Authorization headers): 400 `error="invalid_request"`;
 * - a valid token that fails the rules: 403 `error="insufficient_scope"`, with `scope` only when
 *   `mcp.requiredScopes` names some, so MCP clients do not loop on step-up authorization.
 */
import { OAuthError, type OAuthErrorCode } from '../errors.js'
import { fromRequestError, type LocalResponse } from '../http/local-response.js'

/** A character RFC 6750 §3 does not allow in a quoted auth-param value. */
const NOT_ALLOWED = /[^\x20\x21\x23-\x5b\x5d-\x7e]/gu

/**
 * Quotes a value for an auth-param as RFC 6750 §3 allows it (`error_description`, `scope` and the
 * rest: %x20-21 / %x23-5B / %x5D-7E only): quotes and backslashes are dropped, every other
 * character outside that set (control characters, anything past ASCII, such as a `crit` name a
 * token chose) is percent-encoded as UTF-8. A value taken from a token can then never make the
 * header invalid (Node refuses such a header with an exception: a 500 instead of the 401).
 */
function quote(value: string): string {
  const safe = value
    .replace(/["\\]/g, '')
    .replace(NOT_ALLOWED, (c) =>
      [...Buffer.from(c, 'utf8')]
        .map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`)
        .join(''),
    )
  return `"${safe}"`
}

/** Builds a policy's refusals. */
export class Challenge {
  readonly #resourceMetadataUrl: string | undefined
  readonly #requiredScopes: readonly string[]
  readonly #scopesSupported: readonly string[]

  /**
   * @param resourceMetadataUrl - the RFC 9728 metadata URL, when the policy has an `mcp` block
   * @param requiredScopes - `mcp.requiredScopes`, named in the 403 challenge
   * @param scopesSupported - `mcp.resourceMetadata.scopesSupported`, named in the 401 challenge
   */
  constructor(
    resourceMetadataUrl: string | undefined,
    requiredScopes: readonly string[] = [],
    scopesSupported: readonly string[] = [],
  ) {
    this.#resourceMetadataUrl = resourceMetadataUrl
    this.#requiredScopes = requiredScopes
    this.#scopesSupported = scopesSupported
  }

  /** The `WWW-Authenticate` header with the given auth-params. */
  header(params: Record<string, string>): Record<string, string> {
    const parts: string[] = []
    if (this.#resourceMetadataUrl)
      parts.push(`resource_metadata=${quote(this.#resourceMetadataUrl)}`)
    else parts.push(`realm=${quote('gatehouse')}`)
    for (const [k, v] of Object.entries(params)) parts.push(`${k}=${quote(v)}`)
    return { 'www-authenticate': `Bearer ${parts.join(', ')}` }
  }

  /** 401: no token (`tokenSent` false), or a token that failed verification. */
  unauthorized(description: string, tokenSent: boolean): LocalResponse {
    const params: Record<string, string> = tokenSent
      ? { error: 'invalid_token', error_description: description }
      : {}
    // MCP authorization 2025-11-25: the scopes a client should ask for (its scope selection
    // strategy takes the challenge's scope first, then scopes_supported; here they agree).
    if (this.#scopesSupported.length > 0) params.scope = this.#scopesSupported.join(' ')
    return this.#refuse(
      tokenSent ? 'GW_ERR_INVALID_TOKEN' : 'GW_ERR_UNAUTHENTICATED',
      description,
      params,
    )
  }

  /** 400 `invalid_request` (RFC 6750 §3.1). */
  badRequest(description: string): LocalResponse {
    const params = { error: 'invalid_request', error_description: description }
    return this.#refuse('GW_ERR_AUTHORIZATION_HEADER', description, params)
  }

  /** 403 `insufficient_scope` (RFC 6750 §3.1). */
  forbidden(description: string): LocalResponse {
    const params: Record<string, string> = { error: 'insufficient_scope' }
    if (this.#requiredScopes.length > 0) params.scope = this.#requiredScopes.join(' ')
    return this.#refuse('GW_ERR_INSUFFICIENT_SCOPE', description, params)
  }

  /**
   * 503 `temporarily_unavailable`: the IdP that validates opaque tokens could not be asked
   * (docs/idp/opaque-tokens.md). Not a 401, which would send the client to sign in again for
   * nothing; `Retry-After` says when to try again.
   */
  unavailable(description: string): LocalResponse {
    return fromRequestError(
      new OAuthError('GW_ERR_TOKEN_VALIDATION_UNAVAILABLE', description, {
        headers: { 'retry-after': '5' },
      }),
    )
  }

  /** The {@link OAuthError} answer, challenged with `params` after the policy's own. */
  #refuse(
    code: OAuthErrorCode,
    description: string,
    params: Record<string, string>,
  ): LocalResponse {
    const challenge = this.header(params)['www-authenticate']
    return fromRequestError(new OAuthError(code, description, { challenge }))
  }
}
