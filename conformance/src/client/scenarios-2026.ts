/**
 * The client mode's scenarios for the current MCP revision, 2026-07-28: the authorization rules
 * it added or hardened (basic/authorization, changelog minor changes 7–9, SEP-2207, the
 * deprecation of DCR in favour of Client ID Metadata Documents) and the per-request metadata of
 * the stateless protocol (basic/transports/streamable-http §Request Metadata, basic/index §_meta).
 * Each tells the client `MCP_CONFORMANCE_PROTOCOL_VERSION=2026-07-28` and names the official
 * suite's scenario of the same behaviour (`@modelcontextprotocol/conformance` main; the pinned
 * 0.1.16 predates most of them: conformance/test/client/scenarios.test.ts). docs/client-testing.md
 * explains each.
 */

import {
  CIMD_CLIENT_METADATA_URL,
  CIMD_DOCUMENT,
  type ClientScenario,
  RESOURCE_SERVER,
  SEED_SCOPES,
  SIGN_IN,
  STANDARDS_IDP,
} from './scenario-shapes.js'
import { reshapers } from './shapers.js'
import { currentReshapers } from './shapers-2026.js'

const REVISION = { protocolVersion: '2026-07-28', revision: '2026-07-28' } as const

/** An OIDC-flavoured IdP: OpenID discovery only (no RFC 8414 path form), RFC 8707, open DCR. */
const OIDC_IDP = { ...SIGN_IN, resourceIndicators: true, registration: 'open' } as const

/** The 2026-07-28 scenarios, in report order. */
export const CURRENT_SCENARIOS: readonly ClientScenario[] = [
  {
    name: 'request-metadata',
    clientScenario: 'auth/metadata-default',
    ...REVISION,
    title:
      'A 2026-07-28 client against a standards IdP: every POST mirrors its body in MCP-Protocol-Version, Mcp-Method and Mcp-Name, and carries _meta; registration names its application_type',
    outcome: 'complete',
    registration: 'dcr',
    idp: STANDARDS_IDP,
    gateway: RESOURCE_SERVER,
  },
  {
    name: 'iss-missing',
    clientScenario: 'auth/iss-supported-missing',
    ...REVISION,
    title:
      'The AS advertises authorization_response_iss_parameter_supported, but the first authorization response carries no iss: reject it (RFC 9207 §2.4)',
    outcome: 'any',
    registration: 'dcr',
    idp: STANDARDS_IDP,
    gateway: RESOURCE_SERVER,
    shapers: (h) => ({ idp: currentReshapers.dropFirstIss(h.authorizePath) }),
  },
  {
    name: 'iss-wrong-issuer',
    clientScenario: 'auth/iss-wrong-issuer',
    ...REVISION,
    title:
      'The AS advertises iss; the first authorization response names another issuer in it (RFC 9207 mix-up): a MUST at 2026-07-28, where wrong-iss judges the 2025-11-25 SHOULD',
    outcome: 'any',
    registration: 'dcr',
    idp: STANDARDS_IDP,
    gateway: RESOURCE_SERVER,
    shapers: (h) => ({ idp: reshapers.forgeFirstRedirect(h.authorizePath, 'iss') }),
  },
  {
    name: 'iss-unadvertised',
    clientScenario: 'auth/iss-unexpected',
    ...REVISION,
    title:
      'The AS metadata does not advertise iss, yet the first authorization response names another issuer in it: compare a present iss all the same',
    outcome: 'any',
    registration: 'dcr',
    idp: STANDARDS_IDP,
    gateway: RESOURCE_SERVER,
    shapers: (h) => ({
      idp: currentReshapers.withMetadata(
        h,
        reshapers.forgeFirstRedirect(h.authorizePath, 'iss'),
        (m) => {
          delete m.authorization_response_iss_parameter_supported
        },
        'authorization_response_iss_parameter_supported removed',
      ),
    }),
  },
  {
    name: 'as-migration',
    clientScenario: 'auth/authorization-server-migration',
    ...REVISION,
    title:
      'After the first call the protected-resource metadata names another authorization server and the old tokens are refused: re-register there, never reuse the old client id',
    outcome: 'complete',
    registration: 'dcr',
    idp: {
      ...STANDARDS_IDP,
      authServers: [
        { id: 'default', audience: 'api://default' },
        { id: 'second', audience: 'api://second' },
      ],
    },
    gateway: { ...RESOURCE_SERVER, secondAuthServer: true },
    shapers: (h) => ({ gateway: currentReshapers.migrateAuthServer(h) }),
  },
  {
    name: 'offline-access-oidc',
    clientScenario: 'auth/offline-access-scope',
    ...REVISION,
    throughBy: 'MAY',
    title:
      'An OIDC-flavoured AS lists offline_access (the protected-resource metadata does not); the access token expires: a client that wants a refresh token registers for it, asks for offline_access and refreshes',
    outcome: 'complete',
    registration: 'dcr',
    idp: { ...OIDC_IDP, accessTokenTtlByGrant: { authorization_code: 1 } },
    gateway: { ...RESOURCE_SERVER, scopesSupported: SEED_SCOPES, clockSkew: '0s' },
    shapers: () => ({ gateway: reshapers.holdUntilExpired() }),
  },
  {
    name: 'cimd-preferred',
    clientScenario: 'auth/basic-cimd',
    ...REVISION,
    title:
      'The AS advertises Client ID Metadata Documents and open registration (DCR, deprecated in 2026-07-28): use the metadata document URL',
    outcome: 'complete',
    registration: 'cimd',
    idp: {
      ...STANDARDS_IDP,
      clientIdMetadataDocuments: { documents: { [CIMD_CLIENT_METADATA_URL]: CIMD_DOCUMENT } },
    },
    gateway: RESOURCE_SERVER,
  },
]
