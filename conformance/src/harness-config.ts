/**
 * The gatehouse configuration the embedded stack runs, and prints for a `--target` that wants to
 * be judged in every profile: its listeners (one per route shape the checks need), the IdP's
 * provider, the MCP-aware policy and a planted secret the admin dump must never show.
 */
import type { MockIdp } from '@gatehouse/mock-idp'
import type { McpBackend } from '@gatehouse/mock-mcp'
import { REQUIRED_SCOPE } from './catalogue/scopes.js'
import { APP_ORIGIN } from './catalogue/transport.js'
import { OPAQUE_SERVER } from './fixtures.js'
import { jwtPolicy, mcpRoute } from './gateway-config.js'

/** A planted secret: a private RSA exponent-like value inside an inline JWKS. */
export const PLANTED_SECRET = 'conformance-planted-secret-d-value-6f1c2a'

/** Ports of one gateway instance. */
export interface Ports {
  gateway: number
  proxied: number
  /** A gateway whose route requires the scope {@link REQUIRED_SCOPE} (AUTHZ-004). */
  scoped: number
  /** A gateway whose policy runs in broker mode (profile broker, docs/design/broker.md); none without. */
  broker?: number
  /** A gateway whose route accepts opaque tokens by introspection (OPQ-*); none without. */
  opaque?: number
  admin: number
}

// APP_ORIGIN is the transport checks' own (catalogue/transport.ts); the harness configures it.
export { APP_ORIGIN }

/** The configured host of the resource: deliberately not the address clients connect to. */
export const CONFIGURED_HOST = 'gateway.example'

/** The gatehouse configuration the harness runs (and prints for `--target`). */
export function gatehouseConfig(
  f: { idp: MockIdp; backend: McpBackend },
  ports: Ports,
  extraOrigins: readonly string[] = [],
  tls?: TlsListener,
): Record<string, unknown> {
  const org = new URL(f.idp.orgUrl)
  const provider = (jwksPath: string) => ({
    issuer: f.idp.issuer,
    audiences: [f.idp.audience],
    jwks: { remote: { backendRef: { name: 'idp' }, jwksPath } },
  })
  const mcp = (port: number, clientId?: string, extra: Record<string, unknown> = {}) => ({
    provider: 'BridgedIdp',
    ...(clientId ? { clientId } : {}),
    resourceMetadata: {
      resource: `http://${CONFIGURED_HOST}:${port}/mcp`,
      scopesSupported: ['openid', 'profile'],
      bearerMethodsSupported: ['header'],
    },
    originValidation: { allowedOrigins: [APP_ORIGIN, ...extraOrigins] },
    ...extra,
  })
  const authorization = {
    action: 'Allow',
    policy: { matchExpressions: ['"AI-Users" in jwt.groups'] },
  }
  return {
    config: {
      adminAddr: `127.0.0.1:${ports.admin}`,
      logLevel: 'info',
      // What is still open at stop is cut after 1 s instead of the default 10 s, so a stop never
      // reaches the 5 s SIGKILL and the process exits normally (the Stryker runner's coverage is
      // written on exit), even for a mutant that breaks the drain.
      drainTimeout: '1s',
    },
    gateways: {
      default: { port: ports.gateway, address: '127.0.0.1' },
      proxied: { port: ports.proxied, address: '127.0.0.1' },
      scoped: { port: ports.scoped, address: '127.0.0.1' },
      ...(ports.broker ? { broker: { port: ports.broker, address: '127.0.0.1' } } : {}),
      ...(ports.opaque ? { opaque: { port: ports.opaque, address: '127.0.0.1' } } : {}),
      // Profile tls: an HTTPS listener, one certificate per server name (SNI).
      ...(tls
        ? {
            tls: {
              port: tls.port,
              address: '127.0.0.1',
              tls: {
                certificates: tls.certificates.map(({ hostname, certFile, keyFile }) => ({
                  hostname,
                  certFile,
                  keyFile,
                })),
              },
            },
          }
        : {}),
    },
    backends: {
      'mcp-backend': { static: { host: '127.0.0.1', port: f.backend.port } },
      idp: { static: { host: org.hostname, port: Number(org.port) } },
    },
    routes: {
      mcp: mcpRoute('default'),
      broken: {
        parentRefs: [{ name: 'default' }],
        rules: [
          {
            matches: [{ path: { type: 'PathPrefix', value: '/broken' } }],
            backendRefs: [{ name: 'mcp-backend' }],
          },
        ],
      },
      'mcp-proxied': mcpRoute('proxied'),
      'mcp-scoped': mcpRoute('scoped'),
      ...(ports.broker ? { 'mcp-broker': mcpRoute('broker') } : {}),
      ...(ports.opaque ? { 'mcp-opaque': mcpRoute('opaque') } : {}),
    },
    policies: {
      'mcp-auth': jwtPolicy(
        'mcp',
        {
          providers: [
            provider('/oauth2/default/v1/keys'),
            // A second provider with an inline key set whose private member is a planted secret:
            // the admin dump must never show it.
            {
              issuer: 'https://secrets.conformance.example/oauth2/x',
              audiences: ['api://secrets'],
              jwks: { inline: { keys: [{ ...SECRET_JWK, d: PLANTED_SECRET }] } },
            },
          ],
          // issuerMode Gateway: the metadata's issuer is the identifier clients derived its URL
          // from (RFC 8414 §3.3; ASM-006, ASM-007), not the seed's IdP issuer.
          mcp: mcp(ports.gateway, f.idp.publicClientId, { issuerMode: 'Gateway' }),
        },
        authorization,
      ),
      'broken-auth': jwtPolicy('broken', {
        providers: [provider('/oauth2/default/v1/wrong-keys')],
      }),
      // MCP-aware policy (profile mcp-policy): composed with mcp-auth on the same route, whose
      // verified claims it reads.
      'mcp-tools': {
        targetRefs: [{ kind: 'HTTPRoute', name: 'mcp' }],
        traffic: MCP_TOOLS_TRAFFIC,
      },
      // A route that wants a scope the IdP's tokens lack by default, and names it in the 403
      // (AUTHZ-004; MCP 2025-11-25 "Scope Challenge Handling").
      'mcp-auth-scoped': jwtPolicy(
        'mcp-scoped',
        {
          providers: [provider('/oauth2/default/v1/keys')],
          mcp: mcp(ports.scoped, f.idp.publicClientId, { requiredScopes: [REQUIRED_SCOPE] }),
        },
        { action: 'Allow', policy: { matchExpressions: [`"${REQUIRED_SCOPE}" in jwt.scp`] } },
      ),
      // Broker mode (profile broker): the gateway is its clients' authorization server and the
      // IdP's client. Client ID Metadata Documents over http are accepted (the harness serves them
      // on loopback), private addresses are not (BRK-007).
      ...(ports.broker
        ? {
            'mcp-auth-broker': jwtPolicy(
              'mcp-broker',
              {
                providers: [provider('/oauth2/default/v1/keys')],
                mcp: mcp(ports.broker, f.idp.publicClientId, {
                  // Memory: every run is fresh, and the suite's child may run on a Node without
                  // node:sqlite (the default store, docs/auth.md).
                  broker: { clientMetadataDocuments: { allowHttp: true }, store: { memory: {} } },
                  // A loopback resource: the broker's callback (<resource>/oauth/callback) must be
                  // a redirect URI the IdP accepts for its client, and mock-idp's public client
                  // accepts loopback ones (RFC 8252 §7.3). BRK-020… sign in through it.
                  resourceMetadata: {
                    resource: `http://127.0.0.1:${ports.broker}/mcp`,
                    scopesSupported: ['openid', 'profile'],
                    bearerMethodsSupported: ['header'],
                  },
                }),
              },
              authorization,
            ),
          }
        : {}),
      // Opaque access tokens (OPQ-*): introspected at the IdP's opaque server with the service
      // client's credentials (a secret the admin dump must never show), cached for up to 1h but
      // never past a token's exp (RFC 7662 §4).
      ...(ports.opaque
        ? {
            'mcp-auth-opaque': jwtPolicy('mcp-opaque', {
              providers: [],
              opaqueTokens: {
                issuer: f.idp.issuerFor(OPAQUE_SERVER.id),
                audiences: [OPAQUE_SERVER.audience],
                introspection: {
                  backendRef: { name: 'idp' },
                  path: `/oauth2/${OPAQUE_SERVER.id}/v1/introspect`,
                  clientId: f.idp.serviceClient.clientId,
                  clientSecret: f.idp.serviceClient.clientSecret,
                },
                cacheDuration: '1h',
              },
            }),
          }
        : {}),
      'mcp-auth-proxied': jwtPolicy(
        'mcp-proxied',
        { providers: [provider('/oauth2/default/v1/keys')], mcp: mcp(ports.proxied) },
        authorization,
      ),
    },
  }
}

/**
 * The MCP-aware policy the `mcp-policy` profile judges: `fetch` and the resource
 * `mock://notes/readme` only for the group `admins` (MOD-005), and at most 3 `tools/call` a
 * minute for each subject whose name starts with `ratelimit-` (the checks use fresh ones, so no
 * other check and no rerun is limited).
 */
export const MCP_TOOLS_TRAFFIC = {
  mcpAuthorization: {
    rules: [
      { deny: '!("admins" in jwt.groups) && mcp.tool.name == "fetch"' },
      { deny: '!("admins" in jwt.groups) && mcp.resource.uri == "mock://notes/readme"' },
    ],
  },
  localRateLimit: [
    {
      name: 'conformance-per-subject',
      maxTokens: 3,
      tokensPerFill: 3,
      fillInterval: '1m',
      key: 'jwt.sub',
      when: 'mcp.method == "tools/call" && jwt.sub.startsWith("ratelimit-")',
    },
  ],
}

/** A public RSA key (the harness only needs a well-formed JWK to carry the planted secret). */
const SECRET_JWK = {
  kty: 'RSA',
  kid: 'planted',
  e: 'AQAB',
  n: 'sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw',
}

/** The HTTPS listener of profile tls: its port and certificates (files), with their CAs. */
export interface TlsListener {
  port: number
  certificates: { hostname: string; certFile: string; keyFile: string; caCertPem: string }[]
}
