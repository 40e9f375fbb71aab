/**
 * The unauthenticated MCP OAuth endpoints a policy with an `mcp` block serves (seed: Endpoints,
 * data plane; MCP authorization 2025-06-18 / 2025-11-25 "Authorization Server Discovery"):
 *
 * - `GET /.well-known/oauth-protected-resource<resource path>` (and the root form): RFC 9728
 *   protected-resource metadata from `mcp.resourceMetadata`.
 * - `GET /.well-known/oauth-authorization-server<resource path>`, provider `BridgedIdp` only:
 *   RFC 8414 metadata built from the IdP's OIDC discovery document, with `audience` appended to
 *   the authorization endpoint (the IdP has no RFC 8707) and the registration endpoint pointed
 *   back at the gateway (the IdP sends no CORS there and wants an API token).
 * - `POST …/client-registration`: RFC 7591 registration, answered with `mcp.clientId` or proxied
 *   to the IdP's org-level endpoint `/oauth2/v1/clients` (not issuer-relative).
 */
import type { UpstreamSettings } from '../../config/idp-presets.js'
import type { McpAuthConfig } from '../../config/schema.js'
import { ERRORS, RequestError } from '../../errors.js'
import {
  errorResponse,
  fromRequestError,
  type LocalRequest,
  type LocalResponse,
} from '../../http/local-response.js'
import type { Upstream } from '../../http/upstream.js'
import type { DiscoveryCache } from '../discovery.js'
import {
  type AuthorizationServerMetadata,
  ClientRegistrationSchema,
  firstIssue,
  type ProtectedResourceMetadata,
} from '../documents.js'
import { describeError, requestUpstream } from '../fetch.js'
import type { BrokerExtension } from '../types.js'
import { redirectUrisProblem } from './redirect-uri.js'
import { readRegistrationBody } from './registration-body.js'

const WELL_KNOWN_PRM = '/.well-known/oauth-protected-resource'
const WELL_KNOWN_AS = '/.well-known/oauth-authorization-server'
const REGISTRATION_SUFFIX = '/client-registration'

/** What the endpoints need. */
export interface OAuthEndpointsOptions {
  mcp: McpAuthConfig
  /** The first provider's issuer and audience (the seed's single authorization server). */
  issuer: string
  audience: string | undefined
  /** The first provider's preset with `mcp.upstream` (audience parameter, extra parameters). */
  settings?: UpstreamSettings | undefined
  discovery: DiscoveryCache
  /** The org-domain backend, for proxied registrations. */
  orgUpstream: Upstream | undefined
  /** Broker mode (`mcp.broker`, docs/design/broker.md): the gateway's own authorization server. */
  broker?: BrokerExtension | undefined
}

/** The MCP OAuth endpoints of one policy. */
export class OAuthEndpoints {
  readonly #o: OAuthEndpointsOptions
  /** Origin of `mcp.resourceMetadata.resource`: the seed's "base_url_as_configured". */
  readonly base: string
  /** Path of the resource (`/mcp`). */
  readonly resourcePath: string

  constructor(options: OAuthEndpointsOptions) {
    this.#o = options
    const resource = new URL(options.mcp.resourceMetadata.resource)
    this.base = resource.origin
    // Without its trailing slash: `/mcp/` is `/mcp`, and the root `/` no path at all.
    this.resourcePath = resource.pathname.replace(/\/$/, '')
  }

  get #bridged(): boolean {
    return this.#o.mcp.provider === 'BridgedIdp'
  }

  /** The protected-resource metadata URL for the `resource_metadata` challenge parameter. */
  get resourceMetadataUrl(): string {
    // RFC 9728 §3: derived from the configured resource, never from the request's Host.
    return `${this.base}${WELL_KNOWN_PRM}${this.resourcePath}`
  }

  /** The authorization-server identifier clients are sent to. */
  get #authorizationServer(): string {
    if (this.#o.broker) return this.#o.broker.issuer
    return this.#bridged ? `${this.base}${this.resourcePath}` : this.#o.issuer
  }

  /** Serves the request when it is one of the endpoints. */
  async serve(req: LocalRequest): Promise<LocalResponse | undefined> {
    const path = req.path
    const brokered = await this.#o.broker?.serve(req)
    if (brokered) return brokered
    if (path.startsWith(`${this.resourcePath}/.well-known/`) && this.resourcePath !== '') {
      return notMetadataHere(path, this.resourcePath)
    }
    if (!path.startsWith('/.well-known/')) return undefined
    if (path === `${WELL_KNOWN_PRM}${this.resourcePath}` || path === WELL_KNOWN_PRM) {
      return onlyGet(req) ?? this.#protectedResource()
    }
    // In broker mode the pass-through metadata and registration are not served.
    if (!this.#bridged || this.#o.broker) return undefined
    if (path === `${WELL_KNOWN_AS}${this.resourcePath}`) {
      return onlyGet(req) ?? (await this.#authorizationServerMetadata())
    }
    if (path === `${WELL_KNOWN_AS}${this.resourcePath}${REGISTRATION_SUFFIX}`) {
      if (req.method !== 'POST') {
        return errorResponse(
          'GW_ERR_OAUTH_METHOD',
          'client registration takes POST (RFC 7591 §3.1)',
          {
            allow: 'POST, OPTIONS',
          },
        )
      }
      return this.#register(req)
    }
    return undefined
  }

  #protectedResource(): LocalResponse {
    const m = this.#o.mcp.resourceMetadata
    // RFC 9728 §2.
    const body: ProtectedResourceMetadata = {
      resource: m.resource,
      authorization_servers: [this.#authorizationServer],
      ...(m.scopesSupported ? { scopes_supported: m.scopesSupported } : {}),
      bearer_methods_supported: m.bearerMethodsSupported ?? ['header'],
      ...(m.resourceName ? { resource_name: m.resourceName } : {}),
      ...(m.resourceDocumentation ? { resource_documentation: m.resourceDocumentation } : {}),
    }
    return { status: 200, headers: { 'cache-control': 'public, max-age=300' }, body }
  }

  async #authorizationServerMetadata(): Promise<LocalResponse> {
    const found = await this.#o.discovery.get()
    if (!found.ok) {
      return fromRequestError(
        new RequestError(
          'GW_ERR_DISCOVERY_UNAVAILABLE',
          `the identity provider's discovery document at ${found.url} is not available (${found.cause}); try again later`,
          { headers: { 'retry-after': '5' } },
        ),
      )
    }
    // RFC 8414 §2, from the IdP's document (seed: Endpoints, data plane).
    const doc: AuthorizationServerMetadata = {
      ...found.document,
      jwks_uri: found.document.jwks_uri ?? `${this.#o.issuer}/v1/keys`,
    }
    if (this.#o.mcp.issuerMode === 'Gateway') doc.issuer = `${this.base}${this.resourcePath}`
    const audience = this.#o.audience
    const settings = this.#o.settings
    const audienceParameter = settings ? settings.audienceParameter : 'audience'
    if (doc.authorization_endpoint && (audience || settings)) {
      const url = new URL(doc.authorization_endpoint)
      if (audience && audienceParameter) url.searchParams.set(audienceParameter, audience)
      for (const [k, v] of Object.entries(settings?.authorizeParameters ?? {})) {
        url.searchParams.set(k, v)
      }
      doc.authorization_endpoint = url.toString()
    }
    doc.registration_endpoint = `${this.base}${WELL_KNOWN_AS}${this.resourcePath}${REGISTRATION_SUFFIX}`
    return {
      status: 200,
      headers: {
        'cache-control': 'public, max-age=300',
        ...(found.stale ? { warning: '110 - "stale"' } : {}),
      },
      body: doc,
    }
  }

  async #register(req: LocalRequest): Promise<LocalResponse> {
    const body = await readRegistrationBody(req)
    if ('response' in body) return body.response
    const { json, raw } = body
    const parsed = ClientRegistrationSchema.safeParse(json)
    if (!parsed.success) {
      const { member, message } = firstIssue(parsed.error)
      // RFC 7591 §3.2.2: redirect URI problems have their own error code.
      const code = member.startsWith('redirect_uris')
        ? 'GW_ERR_REGISTRATION_REDIRECT_URI'
        : 'GW_ERR_REGISTRATION_METADATA'
      return errorResponse(code, `${member}: ${message} (RFC 7591 §2)`)
    }
    const metadata = parsed.data
    const redirectUris = metadata.redirect_uris
    const clientId = this.#o.mcp.clientId
    if (clientId) {
      // docs/design/hardening.md: the one redirect URI check (https, or http on loopback; no fragment,
      // userinfo, javascript:/data:/file: or relative URI; not empty). RFC 7591 §3.2.2.
      const problem = redirectUrisProblem(redirectUris)
      if (problem)
        return errorResponse('GW_ERR_REGISTRATION_REDIRECT_URI', `${problem} (RFC 7591 §2)`)
      // The pre-registered public client (PKCE): no secret, no client authentication.
      return {
        status: 201,
        headers: { 'cache-control': 'no-store' },
        body: {
          ...pick(metadata, [
            'client_name',
            'client_uri',
            'logo_uri',
            'scope',
            'contacts',
            'software_id',
            'software_version',
          ]),
          client_id: clientId,
          client_id_issued_at: Math.floor(Date.now() / 1000),
          redirect_uris: redirectUris,
          grant_types: metadata.grant_types ?? ['authorization_code', 'refresh_token'],
          response_types: metadata.response_types ?? ['code'],
          token_endpoint_auth_method: 'none',
        },
      }
    }
    return this.#proxyRegistration(req, raw)
  }

  async #proxyRegistration(req: LocalRequest, raw: Buffer): Promise<LocalResponse> {
    const upstream = this.#o.orgUpstream
    if (!upstream) {
      return errorResponse(
        'GW_ERR_REGISTRATION_UNSUPPORTED',
        'registration cannot be proxied: the provider has no remote JWKS backend (the org domain); set mcp.clientId',
      )
    }
    // The IdP's registration endpoint is relative to the org URL, not the issuer.
    const path = '/oauth2/v1/clients'
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    const auth = req.headers.authorization
    if (typeof auth === 'string') headers.authorization = auth
    let res: Awaited<ReturnType<typeof requestUpstream>>
    try {
      res = await requestUpstream(upstream, path, {
        method: 'POST',
        headers,
        body: raw.toString('utf8'),
      })
    } catch (err) {
      return errorResponse(
        'GW_ERR_IDP_UNREACHABLE',
        `the identity provider's registration endpoint is not reachable: ${describeError(err)}`,
      )
    }
    let body: unknown
    try {
      body = JSON.parse(res.body.toString('utf8'))
    } catch {
      body = { error: 'server_error', error_description: res.body.toString('utf8').slice(0, 500) }
    }
    if (res.status === 401 || res.status === 403) {
      // The IdP's status is relayed (the table's 403 is its usual one).
      return {
        status: res.status,
        code: 'GW_ERR_REGISTRATION_REFUSED_BY_IDP',
        headers: { 'cache-control': 'no-store' },
        body: {
          error: ERRORS.GW_ERR_REGISTRATION_REFUSED_BY_IDP.error,
          error_description:
            `the identity provider refused the registration (HTTP ${res.status}): its registration endpoint needs an API token that MCP clients do not have. ` +
            'Set mcp.clientId to a pre-registered client id so that the gateway answers registrations itself.',
          provider_response: body,
        },
      }
    }
    return { status: res.status, headers: { 'cache-control': 'no-store' }, body }
  }
}

function onlyGet(req: LocalRequest): LocalResponse | undefined {
  if (req.method === 'GET' || req.method === 'HEAD') return undefined
  return errorResponse('GW_ERR_OAUTH_METHOD', 'metadata is read with GET', {
    allow: 'GET, HEAD, OPTIONS',
  })
}

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k]
  return out
}

/**
 * 404 for a well-known suffix under the protected resource (`/mcp/.well-known/openid-configuration`).
 * RFC 8615 §3: well-known URIs live at the root, `/.well-known/`; RFC 8414 §3.1 and RFC 9728 §3.1
 * insert the well-known segment between the host and the identifier's path
 * (`/.well-known/oauth-authorization-server/mcp`). A client that appends it to the identifier
 * instead (OpenID Connect Discovery §4's form, the third URL MCP 2025-11-25 authorization
 * §Authorization Server Metadata Discovery has clients try) asks for a document that does not
 * exist here, and the path is not the MCP endpoint either: a 401 challenge would send it to sign
 * in for nothing, where 404 lets it try the next URL.
 */
function notMetadataHere(path: string, resourcePath: string): LocalResponse {
  return errorResponse(
    'GW_ERR_NO_ROUTE',
    `no metadata at ${path}: well-known URIs go between the host and the path (RFC 8414 §3.1, RFC 9728 §3.1), e.g. /.well-known/oauth-protected-resource${resourcePath}`,
  )
}
