/**
 * The building blocks the client-mode scenarios are made of (scenarios.ts, scenarios-2026.ts):
 * the types a scenario is written in, the IdP and gateway shapes, the official suite's client
 * metadata document.
 */
import type { MockIdpOptions } from '@gatehouse/mock-idp'
import type { Shaper } from './recorder.js'
import type { StackHandles, TokenAuthMethod } from './shapers.js'
import type { SpecRevision } from './spec-revision.js'

/** What a correct client does in a scenario. */
export type Outcome =
  /** Reaches the MCP server with a token and exits 0. */
  | 'complete'
  /** Must not get through (a forged answer, a scope it can never get); ends by itself. */
  | 'refuse'
  /** Either: refuse the forged answer, then possibly start over and complete. */
  | 'any'

/** How the client gets a client id in a scenario (MCP 2025-11-25, Client Registration). */
export type Registration = 'dcr' | 'pre-registered' | 'cimd'

/** The gateway's policy in a scenario. */
export interface GatewayShape {
  /** `BridgedIdp`: the gateway serves AS metadata and registration; else the IdP does. */
  bridged: boolean
  /** With `bridged`: answer registration with the IdP's demo client id (`mcp.clientId`). */
  clientId: boolean
  /** The token audience accepted: the IdP server's (`api://default`) or the resource (RFC 8707). */
  audience: 'server' | 'resource'
  scopesSupported: string[]
  /** Named in the 403 `insufficient_scope` challenge (`mcp.requiredScopes`). */
  requiredScopes?: string[]
  /** CEL rules over the token's claims. */
  rules: string[]
  /** `clockSkew` of the provider; default gatehouse's (60 s). */
  clockSkew?: string
  /**
   * With `bridged`: the `issuer` of the AS metadata the gateway serves — `Gateway` (`<base>/mcp`,
   * the identifier the client derives from PRM, so RFC 8414 §3.3 holds) or `Provider` (the
   * seed's default, the IdP's issuer: metadata a client MUST NOT use, RFC 8414 §3.3).
   */
  issuerMode?: 'Provider' | 'Gateway'
  /**
   * Tokens of the IdP's second authorization server (`/oauth2/second`) are accepted too: the
   * authorization-server migration (MCP 2026-07-28, Authorization Server Binding).
   */
  secondAuthServer?: boolean
}

/** A client-mode scenario. */
export interface ClientScenario {
  /** Stable name, kebab-case (`--scenario`, report groups, baseline `<name>/<ID>`). */
  name: string
  /**
   * `MCP_CONFORMANCE_SCENARIO`: the official MCP conformance scenario whose client behaviour this
   * one needs, so clients written for that suite run unchanged.
   */
  clientScenario: string
  /**
   * `MCP_CONFORMANCE_PROTOCOL_VERSION`: the spec version the official suite (0.1.16) lists for
   * {@link clientScenario} (`conformance/test/client/scenarios.test.ts` holds them in step).
   */
  protocolVersion: string
  /**
   * The MCP revision whose rules the scenario judges: `2026-07-28` (the current revision),
   * `2025-11-25` (back-compat, run by default with it) or `2025-03-26` (run only when asked for,
   * by `--spec-version 2025-03-26` or by name, as the official suite's `auth` suite leaves it
   * out). A `2026-07-28` scenario tells the client that revision (`protocolVersion`).
   */
  revision: SpecRevision
  /**
   * Getting through needs a behaviour the spec only recommends (step-up: "Clients SHOULD respond
   * to these errors…"): CLI-FLOW-003 (SHOULD) judges it instead of CLI-FLOW-001 (MUST); or only
   * allows (refresh: MAY), and then CLI-FLOW-004 (MUST) judges only what comes before it: an
   * access token obtained and sent to the MCP server.
   */
  throughBy?: 'SHOULD' | 'MAY'
  /** One line. */
  title: string
  outcome: Outcome
  registration: Registration
  idp: Omit<MockIdpOptions, 'publicUrl' | 'port' | 'host' | 'https' | 'testMode'>
  gateway: GatewayShape
  /**
   * The 2025-03-26 shape (MCP 2025-03-26, Server Metadata Discovery): no protected-resource
   * metadata, the MCP server's origin is the authorization server — with RFC 8414 metadata at
   * `<origin>/.well-known/oauth-authorization-server` (`metadata`, endpoints under `/oauth/`) or
   * without any (`defaults`: `/authorize`, `/token`, `/register`). The gateway recorder plays
   * that authorization server in front of the IdP.
   */
  legacy?: 'metadata' | 'defaults'
  /**
   * The only client authentication method the authorization server supports at its token
   * endpoint: its metadata lists only this (RFC 8414 §2) and registration gives every client
   * this method (RFC 7591 §3.2.1: the server may replace requested values).
   */
  tokenAuthMethod?: TokenAuthMethod
  /** Builds the recorders' shapers for one run (fresh state per run). */
  shapers?(h: StackHandles): { gateway?: Shaper; idp?: Shaper }
}

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
