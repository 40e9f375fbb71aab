/**
 * The building blocks the client-mode scenarios are made of (scenarios.ts, scenarios-2026.ts):
 * the IdP and gateway shapes, the official suite's client metadata document.
 */
import type { GatewayShape } from './scenarios.js'

/** The client metadata document URL the official suite's clients use, known to the CIMD IdP. */
export const CIMD_CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json'

/**
 * Where `prm-named-url-only` serves the protected-resource metadata: a path of the server's own
 * choosing, outside both well-known forms, that only the 401's resource_metadata names.
 */
export const NAMED_PRM_PATH = '/metadata/protected-resource.json'

/** The resource the metadata of `resource-mismatch` names instead of the MCP server's. */
export const MISMATCHED_RESOURCE = 'https://other-resource.example/mcp'

/** The document behind {@link CIMD_CLIENT_METADATA_URL}: a native client on loopback. */
export const CIMD_DOCUMENT = {
  client_id: CIMD_CLIENT_METADATA_URL,
  client_name: 'MCP conformance client',
  redirect_uris: ['http://localhost:3000/callback', 'http://127.0.0.1:3000/callback'],
  application_type: 'native',
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
}

/** The seed's rule: the user is in the AI-Users group. */
export const SEED_RULE = '"AI-Users" in jwt.groups'
/** The seed's rule where the auth0 shape puts groups: a namespaced claim (mock-idp/src/shapes.ts). */
export const AUTH0_RULE = '"AI-Users" in jwt["https://example.com/groups"]'
/**
 * The rule where the google shape says who the user is: a verified address of the Workspace domain
 * (`email_verified`, `hd`; mock-idp/src/shapes.ts, docs/idp/google.md).
 */
export const GOOGLE_RULE = 'jwt.email_verified == true && jwt.hd == "example.com"'
/** The scopes every mock-idp authorization server knows. */
export const OIDC_SCOPES = ['openid', 'profile', 'email', 'offline_access']
/** The scopes the seed's protected-resource metadata lists. */
export const SEED_SCOPES = ['openid', 'profile']
/** mock-idp signs alice in without a page (the scripted clients' "browser"). */
export const SIGN_IN = { autoSignIn: 'alice' }

/** The seed's gateway: BridgedIdp with the pre-registered client id answering registration. */
export const BRIDGED: GatewayShape = {
  bridged: true,
  clientId: true,
  issuerMode: 'Gateway',
  audience: 'server',
  scopesSupported: SEED_SCOPES,
  rules: [SEED_RULE],
}

/** A gateway that only validates tokens: PRM names the IdP, which the client talks to directly. */
export const RESOURCE_SERVER: GatewayShape = {
  bridged: false,
  clientId: false,
  audience: 'resource',
  scopesSupported: SEED_SCOPES,
  rules: [SEED_RULE],
}

/** A standards IdP: RFC 8414 path form, RFC 8707, open registration. */
export const STANDARDS_IDP = {
  ...SIGN_IN,
  rfc8414PathForm: true,
  resourceIndicators: true,
  registration: 'open',
} as const
