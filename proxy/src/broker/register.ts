/**
 * Dynamic Client Registration answered by the gateway in broker mode (RFC 7591 §3; docs/design/broker.md
 * item 2): `POST <issuer>/oauth/register`. The gateway mints the client id (and, for a
 * confidential client, a secret it keeps only as a hash), checks the redirect URIs with the one
 * redirect URI check, and stores the client for `registration.unusedClientTtl` until its first
 * code is redeemed, then for `registration.clientTtl` from its registration. Unauthenticated, so
 * it is bounded three times: per client address (`registration.perSourceLimit` per window, and
 * `perSourceUnusedLimit` per `unusedClientTtl`, which bounds the unused clients one address
 * holds; 429) and by the store's `client` namespace (503 when full, with a Retry-After that says
 * when the earliest registration expires; live clients are never evicted).
 */
import { redirectUrisProblem } from '../auth/oauth-endpoints/redirect-uri.js'
import { readRegistrationBody } from '../auth/oauth-endpoints/registration-body.js'
import { RequestError } from '../errors.js'
import {
  errorResponse,
  fromRequestError,
  type LocalRequest,
  type LocalResponse,
} from '../http/local-response.js'
import {
  type BrokerClient,
  type ClientAuthMethod,
  newClientId,
  newClientSecret,
} from './clients.js'
import type { BrokerContext } from './context.js'
import { SourceLimit } from './source-limit.js'

const AUTH_METHODS: readonly ClientAuthMethod[] = [
  'none',
  'client_secret_basic',
  'client_secret_post',
]
const GRANT_TYPES = ['authorization_code', 'refresh_token']

/** The registration endpoint of one broker. */
export class Registration {
  readonly #ctx: BrokerContext
  readonly #limit: SourceLimit
  /** Registrations per address per unusedClientTtl: bounds the unused clients one address holds. */
  readonly #unusedLimit: SourceLimit

  constructor(ctx: BrokerContext) {
    this.#ctx = ctx
    const r = ctx.config.registration
    this.#limit = new SourceLimit({ limit: r.perSourceLimit, windowMs: r.perSourceWindow.ms })
    this.#unusedLimit = new SourceLimit({
      limit: r.perSourceUnusedLimit,
      windowMs: unusedTtlMs(r),
    })
  }

  /** Answers one request to the endpoint. */
  async serve(req: LocalRequest): Promise<LocalResponse> {
    if (!this.#ctx.config.registration.enabled) {
      return errorResponse(
        'GW_ERR_REGISTRATION_DISABLED',
        'this gateway does not accept dynamic client registration; use a Client ID Metadata Document URL as client_id',
      )
    }
    if (req.method !== 'POST') {
      return errorResponse(
        'GW_ERR_OAUTH_METHOD',
        'client registration takes POST (RFC 7591 §3.1)',
        {
          allow: 'POST, OPTIONS',
        },
      )
    }
    const r = this.#ctx.config.registration
    const source = req.remoteAddress ?? 'unknown'
    const limited = (limit: number, per: string, retryAfterSeconds: number) =>
      fromRequestError(
        new RequestError(
          'GW_ERR_REGISTRATION_LIMIT',
          `too many registrations from this address (at most ${limit} per ${per}); try again in ${retryAfterSeconds} s, or reuse the client you registered`,
          { headers: { 'retry-after': String(retryAfterSeconds) } },
        ),
      )
    const verdict = this.#limit.take(source)
    if (!verdict.ok) {
      return limited(r.perSourceLimit, r.perSourceWindow.text, verdict.retryAfterSeconds)
    }
    const unused = this.#unusedLimit.take(source)
    if (!unused.ok) {
      return limited(r.perSourceUnusedLimit, r.unusedClientTtl.text, unused.retryAfterSeconds)
    }
    const metadata = await readRegistrationBody(req)
    if ('response' in metadata) return metadata.response
    const { json } = metadata
    if (json === null || typeof json !== 'object' || Array.isArray(json)) {
      return errorResponse('GW_ERR_REGISTRATION_METADATA', 'the body is not a JSON object')
    }
    const checked = checkMetadata(json as Record<string, unknown>)
    if ('response' in checked) return checked.response
    const { client, secret } = mint(checked)
    const ttl = r.clientTtl
    const now = Date.now()
    // Kept for unusedClientTtl until its first code is redeemed (ClientRegistry.markUsed), then
    // until registration + clientTtl: registrations nobody uses leave the store early.
    client.expiresAt = now + ttl.ms
    client.used = false
    try {
      await this.#ctx.clients.save(client, unusedTtlMs(r))
    } catch (err) {
      if (err instanceof RequestError) return fromRequestError(err)
      throw err
    }
    const issuedAt = Math.floor(now / 1000)
    // RFC 7591 §3.2.1: the client information response.
    return {
      status: 201,
      headers: { 'cache-control': 'no-store', pragma: 'no-cache' },
      body: {
        client_id: client.clientId,
        client_id_issued_at: issuedAt,
        ...(secret
          ? {
              client_secret: secret,
              client_secret_expires_at: issuedAt + Math.floor(ttl.ms / 1000),
            }
          : {}),
        redirect_uris: client.redirectUris,
        grant_types: checked.grantTypes,
        response_types: ['code'],
        token_endpoint_auth_method: client.tokenEndpointAuthMethod,
        ...(client.clientName !== undefined ? { client_name: client.clientName } : {}),
        ...(client.clientUri !== undefined ? { client_uri: client.clientUri } : {}),
        ...(client.scope !== undefined ? { scope: client.scope } : {}),
      },
    }
  }
}

/** The life of a registration never used: unusedClientTtl, at most clientTtl. */
function unusedTtlMs(r: BrokerContext['config']['registration']): number {
  return Math.min(r.unusedClientTtl.ms, r.clientTtl.ms)
}

interface CheckedMetadata {
  redirectUris: string[]
  grantTypes: string[]
  method: ClientAuthMethod
  clientName?: string
  clientUri?: string
  scope?: string
}

/** RFC 7591 §2 checks; §3.2.2 error codes (invalid_redirect_uri, invalid_client_metadata). */
function checkMetadata(m: Record<string, unknown>): CheckedMetadata | { response: LocalResponse } {
  const bad = (description: string) => ({
    response: errorResponse('GW_ERR_REGISTRATION_METADATA', description),
  })
  const problem = redirectUrisProblem(m.redirect_uris)
  if (problem) return { response: errorResponse('GW_ERR_REGISTRATION_REDIRECT_URI', problem) }
  const grantTypes = m.grant_types ?? ['authorization_code']
  if (!isStringList(grantTypes) || grantTypes.some((g) => !GRANT_TYPES.includes(g))) {
    return bad(`grant_types: only ${GRANT_TYPES.join(' and ')} are supported`)
  }
  if (!grantTypes.includes('authorization_code')) {
    return bad('grant_types: must include authorization_code (the only way to obtain a grant here)')
  }
  const responseTypes = m.response_types ?? ['code']
  if (!isStringList(responseTypes) || responseTypes.some((r) => r !== 'code')) {
    return bad('response_types: only "code" is supported')
  }
  // RFC 7591 §2: the default is client_secret_basic.
  const method = m.token_endpoint_auth_method ?? 'client_secret_basic'
  if (typeof method !== 'string' || !(AUTH_METHODS as readonly string[]).includes(method)) {
    return bad(`token_endpoint_auth_method: expected one of ${AUTH_METHODS.join(', ')}`)
  }
  const out: CheckedMetadata = {
    redirectUris: m.redirect_uris as string[],
    grantTypes,
    method: method as ClientAuthMethod,
  }
  if (m.client_name !== undefined) {
    if (typeof m.client_name !== 'string' || m.client_name.length > 200) {
      return bad('client_name: expected a string of at most 200 characters')
    }
    out.clientName = m.client_name
  }
  if (m.client_uri !== undefined) {
    // Shown as a link on the consent page: an https URL or nothing.
    if (typeof m.client_uri !== 'string' || !isHttpsUrl(m.client_uri)) {
      return bad('client_uri: expected an https URL')
    }
    out.clientUri = m.client_uri
  }
  if (m.scope !== undefined) {
    if (
      typeof m.scope !== 'string' ||
      m.scope.length > 1000 ||
      !/^[\x21\x23-\x5b\x5d-\x7e ]*$/.test(m.scope)
    ) {
      return bad('scope: expected space-separated scope tokens (RFC 6749 §3.3)')
    }
    out.scope = m.scope
  }
  return out
}

function mint(m: CheckedMetadata): { client: BrokerClient; secret?: string } {
  const client: BrokerClient = {
    clientId: newClientId(),
    redirectUris: m.redirectUris,
    tokenEndpointAuthMethod: m.method,
    source: 'registered',
    ...(m.clientName !== undefined ? { clientName: m.clientName } : {}),
    ...(m.clientUri !== undefined ? { clientUri: m.clientUri } : {}),
    ...(m.scope !== undefined ? { scope: m.scope } : {}),
  }
  if (m.method === 'none') return { client }
  const { secret, hash } = newClientSecret()
  client.clientSecretHash = hash
  return { client, secret }
}

function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string')
}

function isHttpsUrl(v: string): boolean {
  if (v.length > 2000) return false
  try {
    const u = new URL(v)
    return u.protocol === 'https:' && !u.username && !u.password
  } catch {
    return false
  }
}
