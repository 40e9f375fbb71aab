/**
 * The client mode's scenarios: each one stack — mock-idp, gatehouse, mcp-backend — in one
 * real-world shape of the MCP authorization flow, with the recorders' reshaping where the shape is
 * one the reference proxy deliberately does not produce. docs/client-testing.md explains each.
 */
import {
  AUTH0_RULE,
  BRIDGED,
  CIMD_CLIENT_METADATA_URL,
  CIMD_DOCUMENT,
  type ClientScenario,
  GOOGLE_RULE,
  MISMATCHED_RESOURCE,
  NAMED_PRM_PATH,
  OIDC_SCOPES,
  RESOURCE_SERVER,
  SEED_RULE,
  SEED_SCOPES,
  SIGN_IN,
  STANDARDS_IDP,
} from './scenario-shapes.js'
import { CURRENT_SCENARIOS } from './scenarios-2026.js'
import { reshapers } from './shapers.js'

// The types a scenario is written in live with its building blocks (scenario-shapes.ts), so that
// scenarios-2026.ts and scenario-shapes.ts import nothing from this module.
export type { ClientScenario, GatewayShape, Outcome, Registration } from './scenario-shapes.js'

// The 2025-03-26 endpoints' paths, the handles a shaper gets and the token endpoint's client
// authentication live with the reshapers that use them: shapers.ts imports nothing from this
// module, so the two do not import each other.
export { LEGACY_ENDPOINTS, type StackHandles, type TokenAuthMethod } from './shapers.js'

/** The client id and secret of the pre-registered scenario (the official suite's values). */
export const PRE_REGISTERED = {
  clientId: 'pre-registered-client',
  clientSecret: 'pre-registered-secret',
} as const

export {
  CIMD_CLIENT_METADATA_URL,
  MISMATCHED_RESOURCE,
} from './scenario-shapes.js'

/** Every 2025-era scenario, in report order. */
const SCENARIOS_2025: readonly ClientScenario[] = [
  {
    name: 'bridged-client-id',
    clientScenario: 'auth/metadata-default',
    protocolVersion: '2025-11-25',
    revision: '2025-11-25',
    title:
      "The seed: BridgedIdp with mcp.clientId; the gateway serves AS metadata and answers registration with the IdP's client id",
    outcome: 'complete',
    registration: 'dcr',
    idp: SIGN_IN,
    gateway: BRIDGED,
  },
  {
    name: 'bridged-proxied-dcr',
    clientScenario: 'auth/metadata-default',
    protocolVersion: '2025-11-25',
    revision: '2025-11-25',
    title:
      "BridgedIdp without clientId: registration is proxied to the IdP's org-level endpoint (open here)",
    outcome: 'complete',
    registration: 'dcr',
    idp: { ...SIGN_IN, registration: 'open' },
    gateway: { ...BRIDGED, clientId: false },
  },
  {
    name: 'standards-idp',
    clientScenario: 'auth/metadata-default',
    protocolVersion: '2025-11-25',
    revision: '2025-11-25',
    title:
      'A standards IdP: PRM names it; RFC 8414 path-form metadata, RFC 8707 audience, open registration',
    outcome: 'complete',
    registration: 'dcr',
    idp: STANDARDS_IDP,
    gateway: RESOURCE_SERVER,
  },
  {
    name: 'prm-root-only',
    clientScenario: 'auth/metadata-var3',
    protocolVersion: '2025-11-25',
    revision: '2025-11-25',
    title: 'PRM only at the root form; the challenge names that URL (the path form is 404)',
    outcome: 'complete',
    registration: 'dcr',
    idp: SIGN_IN,
    gateway: BRIDGED,
    shapers: () => ({ gateway: reshapers.prmRootOnly(true) }),
  },
  {
    name: 'prm-named-url-only',
    clientScenario: 'auth/metadata-var3',
    protocolVersion: '2025-11-25',
    revision: '2025-11-25',
    title:
      "PRM only at the URL the 401's resource_metadata names (both well-known forms are 404); it names the IdP, so the MCP server is not the authorization server",
    outcome: 'complete',
    registration: 'dcr',
    idp: STANDARDS_IDP,
    gateway: RESOURCE_SERVER,
    shapers: (h) => ({ gateway: reshapers.prmOnlyAtNamedUrl(h, NAMED_PRM_PATH) }),
  },
  {
    name: 'no-resource-metadata',
    clientScenario: 'auth/metadata-var2',
    protocolVersion: '2025-11-25',
    revision: '2025-11-25',
    title: 'No resource_metadata in the challenge: well-known discovery, path form (404) then root',
    outcome: 'complete',
    registration: 'dcr',
    idp: SIGN_IN,
    gateway: BRIDGED,
    shapers: () => ({ gateway: reshapers.prmRootOnly(false) }),
  },
  {
    name: 'scope-step-up',
    clientScenario: 'auth/scope-step-up',
    protocolVersion: '2025-11-25',
    revision: '2025-11-25',
    throughBy: 'SHOULD',
    title:
      '403 insufficient_scope with scope="mcp:tools": one step-up authorization must get through',
    outcome: 'complete',
    registration: 'dcr',
    idp: {
      ...SIGN_IN,
      authServers: [
        {
          id: 'default',
          audience: 'api://default',
          scopes: [...OIDC_SCOPES, 'mcp:tools'],
        },
      ],
    },
    gateway: {
      ...BRIDGED,
      requiredScopes: ['mcp:tools'],
      rules: [SEED_RULE, '"mcp:tools" in jwt.scp'],
    },
  },
  {
    name: 'runtime-step-up',
    clientScenario: 'auth/scope-step-up',
    protocolVersion: '2025-11-25',
    revision: '2025-11-25',
    throughBy: 'SHOULD',
    title:
      'A challenge at runtime: initialize and tools/list pass, tools/call gets 403 insufficient_scope with scope="mcp:tools"',
    outcome: 'complete',
    registration: 'dcr',
    idp: {
      ...SIGN_IN,
      authServers: [
        { id: 'default', audience: 'api://default', scopes: [...OIDC_SCOPES, 'mcp:tools'] },
      ],
    },
    gateway: BRIDGED,
    shapers: () => ({ gateway: reshapers.stepUpOnToolsCall('mcp:tools') }),
  },
  {
    name: 'scope-retry-limit',
    clientScenario: 'auth/scope-retry-limit',
    protocolVersion: '2025-11-25',
    revision: '2025-11-25',
    title:
      '403 insufficient_scope with scope="mcp:admin" that no new authorization satisfies (the user also lacks the group a rule wants): the client must stop',
    outcome: 'refuse',
    registration: 'dcr',
    idp: {
      autoSignIn: 'bob',
      authServers: [
        { id: 'default', audience: 'api://default', scopes: [...OIDC_SCOPES, 'mcp:admin'] },
      ],
    },
    gateway: {
      ...BRIDGED,
      requiredScopes: ['mcp:admin'],
      rules: [SEED_RULE, '"mcp:admin" in jwt.scp'],
    },
    shapers: () => ({ gateway: reshapers.stopAfterTokenRequests(5) }),
  },
  {
    name: 'token-refresh',
    clientScenario: 'auth/offline-access-scope',
    protocolVersion: 'draft',
    revision: '2025-11-25',
    throughBy: 'MAY',
    title:
      'The access token expires (offline_access granted a refresh token): refresh, do not sign in again',
    outcome: 'complete',
    registration: 'dcr',
    idp: { ...SIGN_IN, accessTokenTtlByGrant: { authorization_code: 1 } },
    gateway: {
      ...BRIDGED,
      scopesSupported: [...SEED_SCOPES, 'offline_access'],
      clockSkew: '0s',
    },
    shapers: () => ({ gateway: reshapers.holdUntilExpired() }),
  },
  {
    name: 'key-rotation',
    clientScenario: 'auth/metadata-default',
    protocolVersion: '2025-11-25',
    revision: '2025-11-25',
    title:
      "The IdP rotates its signing key mid-session and drops the old one: the session's token is refused",
    outcome: 'complete',
    registration: 'dcr',
    idp: SIGN_IN,
    gateway: { ...BRIDGED, scopesSupported: [...SEED_SCOPES, 'offline_access'] },
    shapers: (h) => ({ gateway: reshapers.rotateAfterFirstSuccess(h) }),
  },
  {
    name: 'pre-registered',
    clientScenario: 'auth/pre-registration',
    protocolVersion: '2025-11-25',
    revision: '2025-11-25',
    title:
      'A pre-registered confidential client (MCP_CONFORMANCE_CONTEXT); the IdP has no path-form metadata',
    outcome: 'complete',
    registration: 'pre-registered',
    idp: {
      ...SIGN_IN,
      clients: [
        {
          clientId: PRE_REGISTERED.clientId,
          clientSecret: PRE_REGISTERED.clientSecret,
          redirectUris: ['http://localhost:3000/callback'],
        },
      ],
    },
    gateway: { ...RESOURCE_SERVER, audience: 'server' },
  },
  {
    name: 'idp-issuer-trailing-slash',
    clientScenario: 'auth/pre-registration',
    protocolVersion: '2025-11-25',
    revision: '2025-11-25',
    title:
      'An Auth0-shaped IdP that PRM names: its issuer ends with "/" (RFC 8414 §3.1: removed before the well-known suffix; compared as stated), no registration, a pre-registered client',
    outcome: 'complete',
    registration: 'pre-registered',
    idp: {
      ...SIGN_IN,
      shape: 'auth0',
      clients: [
        {
          clientId: PRE_REGISTERED.clientId,
          clientSecret: PRE_REGISTERED.clientSecret,
          redirectUris: ['http://localhost:3000/callback'],
        },
      ],
    },
    gateway: { ...RESOURCE_SERVER, audience: 'server', rules: [AUTH0_RULE] },
  },
  {
    name: 'idp-endpoints-on-other-hosts',
    clientScenario: 'auth/pre-registration',
    protocolVersion: '2025-11-25',
    revision: '2025-11-25',
    title:
      'A Google-shaped IdP that PRM names: issuer <origin> (no path), authorization endpoint /o/oauth2/v2/auth, token endpoint and keys on two other hosts (RFC 8414 §2: the metadata names them), no registration, a pre-registered client',
    outcome: 'complete',
    registration: 'pre-registered',
    idp: {
      ...SIGN_IN,
      shape: 'google',
      // Google's tokens are for the client that asked (mock-idp's google shape: `aud`).
      audience: PRE_REGISTERED.clientId,
      clients: [
        {
          clientId: PRE_REGISTERED.clientId,
          clientSecret: PRE_REGISTERED.clientSecret,
          redirectUris: ['http://localhost:3000/callback'],
        },
      ],
    },
    gateway: { ...RESOURCE_SERVER, audience: 'server', rules: [GOOGLE_RULE] },
  },
  {
    name: 'cimd',
    clientScenario: 'auth/basic-cimd',
    protocolVersion: '2025-11-25',
    revision: '2025-11-25',
    title: 'The IdP advertises Client ID Metadata Documents (and open registration)',
    outcome: 'complete',
    registration: 'cimd',
    idp: {
      ...STANDARDS_IDP,
      clientIdMetadataDocuments: { documents: { [CIMD_CLIENT_METADATA_URL]: CIMD_DOCUMENT } },
    },
    gateway: RESOURCE_SERVER,
  },
  {
    name: 'forged-state',
    clientScenario: 'auth/metadata-default',
    protocolVersion: '2025-11-25',
    revision: '2025-11-25',
    title: 'The first authorization response carries a state the client never sent (CSRF)',
    outcome: 'any',
    registration: 'dcr',
    idp: SIGN_IN,
    gateway: BRIDGED,
    shapers: (h) => ({ idp: reshapers.forgeFirstRedirect(h.authorizePath, 'state') }),
  },
  {
    name: 'wrong-iss',
    clientScenario: 'auth/metadata-default',
    protocolVersion: '2025-11-25',
    revision: '2025-11-25',
    title: 'The first authorization response names another issuer in iss (RFC 9207 mix-up)',
    outcome: 'any',
    registration: 'dcr',
    idp: SIGN_IN,
    gateway: BRIDGED,
    shapers: (h) => ({ idp: reshapers.forgeFirstRedirect(h.authorizePath, 'iss') }),
  },
  {
    name: 'resource-mismatch',
    clientScenario: 'auth/resource-mismatch',
    protocolVersion: 'draft',
    revision: '2025-11-25',
    title:
      "The protected-resource metadata names another resource than the MCP server's (RFC 9728 §3.3: MUST NOT be used)",
    outcome: 'refuse',
    registration: 'dcr',
    idp: SIGN_IN,
    gateway: BRIDGED,
    shapers: () => ({ gateway: reshapers.prmOfAnotherResource(MISMATCHED_RESOURCE) }),
  },
  ...(['client_secret_basic', 'client_secret_post', 'none'] as const).map(
    (method): ClientScenario => {
      const short = method === 'none' ? 'none' : method.slice('client_secret_'.length)
      return {
        name: `token-endpoint-auth-${short}`,
        clientScenario: `auth/token-endpoint-auth-${short}`,
        protocolVersion: '2025-11-25',
        revision: '2025-11-25',
        title: `The authorization server supports only ${method} at its token endpoint (metadata and registration say so)`,
        outcome: 'complete',
        registration: 'dcr',
        idp: STANDARDS_IDP,
        gateway: RESOURCE_SERVER,
        tokenAuthMethod: method,
        shapers: (h) => ({ idp: reshapers.onlyTokenAuthMethod(h, method) }),
      }
    },
  ),
  {
    name: 'legacy-metadata',
    clientScenario: 'auth/2025-03-26-oauth-metadata-backcompat',
    protocolVersion: '2025-03-26',
    revision: '2025-03-26',
    title:
      "A 2025-03-26 server: no protected-resource metadata; RFC 8414 metadata at the MCP server's origin, endpoints under /oauth/",
    outcome: 'complete',
    registration: 'dcr',
    idp: { ...SIGN_IN, registration: 'open' },
    gateway: { ...RESOURCE_SERVER, audience: 'server', scopesSupported: [] },
    legacy: 'metadata',
    shapers: (h) => ({ gateway: reshapers.legacyAuthServer(h, 'metadata') }),
  },
  {
    name: 'legacy-defaults',
    clientScenario: 'auth/2025-03-26-oauth-endpoint-fallback',
    protocolVersion: '2025-03-26',
    revision: '2025-03-26',
    title:
      "A 2025-03-26 server without any metadata: the default endpoints /authorize, /token, /register at the MCP server's origin",
    outcome: 'complete',
    registration: 'dcr',
    idp: { ...SIGN_IN, registration: 'open' },
    gateway: { ...RESOURCE_SERVER, audience: 'server', scopesSupported: [] },
    legacy: 'defaults',
    shapers: (h) => ({ gateway: reshapers.legacyAuthServer(h, 'defaults') }),
  },
  {
    name: 'issuer-mismatch',
    clientScenario: 'auth/metadata-default',
    protocolVersion: '2025-11-25',
    revision: '2025-11-25',
    title:
      "The seed's default issuerMode: the gateway's AS metadata names the IdP's issuer, not the identifier the client derived from PRM (RFC 8414 §3.3: MUST NOT be used)",
    outcome: 'refuse',
    registration: 'dcr',
    idp: SIGN_IN,
    gateway: { ...BRIDGED, issuerMode: 'Provider' },
  },
]

/** Every scenario, in report order: the 2025 ones, then the current revision's (2026-07-28). */
export const SCENARIOS: readonly ClientScenario[] = [...SCENARIOS_2025, ...CURRENT_SCENARIOS]

/** The scenario named `name`, or undefined. */
export function scenarioNamed(name: string): ClientScenario | undefined {
  return SCENARIOS.find((s) => s.name === name)
}
