/**
 * The authorization-server metadata of broker mode (RFC 8414 §2; docs/design/broker.md). The gateway is
 * the authorization server its clients see, so every member names the gateway: `issuer` is the
 * identifier the metadata URL is built from (RFC 8414 §3, §3.3: a client MUST refuse metadata
 * whose issuer differs), and the endpoints are the gateway's own. Served at
 * `/.well-known/oauth-authorization-server<issuer path>`, the first URL of the MCP 2025-11-25
 * discovery order for an issuer with a path. It needs nothing from the IdP, so it is served even
 * while the IdP is down.
 */
import type { LocalResponse } from '../http/local-response.js'
import type { BrokerContext } from './context.js'

/** The members gatehouse serves (RFC 8414 §2, RFC 9207 §3, MCP 2025-11-25). */
export interface BrokerAuthorizationServerMetadata {
  issuer: string
  authorization_endpoint: string
  token_endpoint: string
  registration_endpoint?: string
  scopes_supported?: string[]
  response_types_supported: string[]
  response_modes_supported: string[]
  grant_types_supported: string[]
  token_endpoint_auth_methods_supported: string[]
  code_challenge_methods_supported: string[]
  client_id_metadata_document_supported: boolean
  authorization_response_iss_parameter_supported: boolean
  service_documentation?: string
}

/** The metadata document of one broker. */
export function brokerMetadata(ctx: BrokerContext): BrokerAuthorizationServerMetadata {
  const { urls, config, mcp } = ctx
  const scopes = mcp.resourceMetadata.scopesSupported
  return {
    issuer: urls.issuer,
    authorization_endpoint: urls.authorizationEndpoint,
    token_endpoint: urls.tokenEndpoint,
    // RFC 8414 §2: OPTIONAL; advertised only when the gateway answers registrations.
    ...(config.registration.enabled ? { registration_endpoint: urls.registrationEndpoint } : {}),
    ...(scopes ? { scopes_supported: scopes } : {}),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    // OAuth 2.1 §4.1.1 / MCP 2025-11-25 "Authorization Code Protection": S256 only, never plain.
    code_challenge_methods_supported: ['S256'],
    client_id_metadata_document_supported: config.clientMetadataDocuments.enabled,
    // RFC 9207 §3: the authorization response carries iss = this issuer.
    authorization_response_iss_parameter_supported: true,
    ...(mcp.resourceMetadata.resourceDocumentation
      ? { service_documentation: mcp.resourceMetadata.resourceDocumentation }
      : {}),
  }
}

/** The metadata as an HTTP answer. */
export function serveBrokerMetadata(ctx: BrokerContext): LocalResponse {
  return {
    status: 200,
    headers: { 'cache-control': 'public, max-age=300' },
    body: brokerMetadata(ctx),
  }
}
