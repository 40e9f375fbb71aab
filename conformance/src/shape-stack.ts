/**
 * The stack of one IdP shape: mock-idp shaped like Okta, Auth0, Entra ID (v1 or v2 tokens),
 * Keycloak, Google or a generic standards IdP (mock-idp/src/shapes.ts), the MCP backend, and the
 * reference proxy in broker mode with the provider as docs/idp/<preset>.md configures it (its
 * preset, discovery, audiences, upstream parameters and the CEL rule for the IdP's groups or
 * roles). The broker and resource-server profiles are judged on its one MCP route: every check
 * runs as it runs against the bridged IdP, nothing is weakened per shape.
 */
import { controlClient, type IdpShapeName, type MockIdp, startMockIdp } from '@gatehouse/mock-idp'
import { type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { freePort } from '@gatehouse/support'
import { type GatehouseProcess, startGatehouse } from './gatehouse-process.js'
import { jwtPolicy, mcpRoute } from './gateway-config.js'
import { APP_ORIGIN } from './harness-config.js'
import type { Target } from './types.js'

/** A shape the stack runs: a mock-idp shape, entra once per token version. */
export type StackShape = Exclude<IdpShapeName, 'entra'> | 'entra-v1' | 'entra-v2'

/** Every {@link StackShape}, in the order of docs/idp. */
export const STACK_SHAPES: readonly StackShape[] = [
  'okta',
  'auth0',
  'entra-v2',
  'entra-v1',
  'keycloak',
  'google',
  'generic',
]

/** The gateway's client at the IdP (mock-idp accepts its loopback callback). */
const CLIENT = { clientId: 'gatehouse-broker', clientSecret: 'shape-stack-broker-secret-4c1e' }
/** The Entra app registration's id (its App ID URI is `api://<id>`). */
const APP_ID = '6e1c2a7d-0f0e-4c55-9a3b-5d2f0c7b9a11'
/** alice may use the tools (her groups or roles hold AI-Users); bob may not. */
const USERS = [
  { login: 'alice', groups: ['AI-Users', 'Everyone'] },
  { login: 'bob', groups: ['Everyone'], email: 'bob@gmail.com' },
]

/** The CEL rule of each walkthrough: where the IdP puts groups, roles or the hosted domain. */
const RULE: Record<StackShape, string> = {
  okta: '"AI-Users" in jwt.groups',
  auth0: '"AI-Users" in jwt["https://example.com/groups"]',
  'entra-v2': '"AI-Users" in jwt.roles',
  'entra-v1': '"AI-Users" in jwt.roles',
  keycloak: '"/AI-Users" in jwt.groups',
  google: 'jwt.email_verified == true && jwt.hd == "example.com"',
  generic: '"AI-Users" in jwt.groups',
}

/** The providers and upstream settings of docs/idp/<preset>.md for a running mock. */
function providerSettings(shape: StackShape, idp: MockIdp) {
  switch (shape) {
    case 'okta':
      return {
        providers: [
          {
            issuer: idp.issuer,
            preset: 'okta',
            audiences: [idp.audience],
            jwks: { remote: { backendRef: { name: 'idp' }, jwksPath: '/oauth2/default/v1/keys' } },
          },
        ],
      }
    case 'entra-v1':
    case 'entra-v2':
      return {
        providers: [
          { issuer: idp.issuer, preset: 'entra', audiences: [APP_ID, `api://${APP_ID}`] },
          {
            issuer: idp.entraV1?.issuer,
            preset: 'entra',
            discoveryUrl: idp.entraV1?.discoveryUrl,
            audiences: [`api://${APP_ID}`],
          },
        ],
        upstream: { scopeMap: { 'mcp:tools': `api://${APP_ID}/mcp.access` } },
        scopes: ['openid', 'profile', 'offline_access', `api://${APP_ID}/mcp.access`],
      }
    case 'generic':
      return {
        providers: [{ issuer: idp.issuer, preset: 'generic', audiences: [idp.audience] }],
        upstream: { audienceParameter: false },
      }
    default:
      return { providers: [{ issuer: idp.issuer, preset: shape, audiences: [idp.audience] }] }
  }
}

/** The gatehouse configuration of a shape's stack: one broker-mode MCP route on `port`. */
export function shapeStackConfig(
  shape: StackShape,
  f: { idp: MockIdp; backend: McpBackend },
  port: number,
): Record<string, unknown> {
  const org = new URL(f.idp.orgUrl)
  const { providers, upstream, scopes } = providerSettings(shape, f.idp)
  const resource = `http://127.0.0.1:${port}/mcp`
  return {
    config: { logLevel: 'info', drainTimeout: '1s' },
    gateways: { default: { port, address: '127.0.0.1' } },
    backends: {
      'mcp-backend': { static: { host: '127.0.0.1', port: f.backend.port } },
      idp: { static: { host: org.hostname, port: Number(org.port) } },
    },
    routes: { mcp: mcpRoute('default') },
    policies: {
      'mcp-auth': jwtPolicy(
        'mcp',
        {
          providers,
          mcp: {
            provider: 'BridgedIdp',
            resourceMetadata: {
              resource,
              scopesSupported: ['openid', 'profile'],
              bearerMethodsSupported: ['header'],
            },
            originValidation: { allowedOrigins: [APP_ORIGIN] },
            ...(upstream ? { upstream } : {}),
            broker: {
              upstreamClient: { ...CLIENT, ...(scopes ? { scopes } : {}) },
              clientMetadataDocuments: { allowHttp: true },
              store: { memory: {} },
            },
          },
        },
        { action: 'Allow', policy: { matchExpressions: [RULE[shape]] } },
      ),
    },
  }
}

/** A running shape stack and the target it presents. */
export interface ShapeStack {
  idp: MockIdp
  target: Target
  gateway: GatehouseProcess
  stop(): Promise<void>
}

/** Starts mock-idp in `shape`, the MCP backend and the reference proxy configured for it. */
export async function startShapeStack(shape: StackShape): Promise<ShapeStack> {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const idpShape = shape.startsWith('entra') ? 'entra' : (shape as IdpShapeName)
  const idp = await startMockIdp({
    users: USERS,
    clients: [CLIENT],
    ...(idpShape === 'okta'
      ? {}
      : {
          shape: idpShape,
          // Whom the IdP's tokens are for: the MCP resource (Auth0's API identifier, Keycloak's
          // audience mapper), the App ID URI (Entra), the client (Google's ID-token audience).
          audience:
            idpShape === 'entra'
              ? `api://${APP_ID}`
              : idpShape === 'google'
                ? CLIENT.clientId
                : `${base}/mcp`,
          ...(shape === 'entra-v1' ? { entraTokenVersion: 1 as const } : {}),
        }),
  })
  const backend = await startMcpBackend()
  let gateway: GatehouseProcess
  try {
    gateway = await startGatehouse(shapeStackConfig(shape, { idp, backend }, port))
  } catch (err) {
    await backend.stop()
    await idp.stop()
    throw err
  }
  const target: Target = {
    base,
    configuredBase: base,
    brokerBase: base,
    brokerConfiguredBase: base,
    idp: {
      issuer: idp.issuer,
      audience: idp.audience,
      orgUrl: idp.orgUrl,
      publicClientId: CLIENT.clientId,
      control: controlClient(idp.controlUrl),
    },
    backendOrigin: backend.origin,
    secrets: [CLIENT.clientSecret],
    allowShutdown: false,
  }
  return {
    idp,
    target,
    gateway,
    async stop() {
      await gateway.stop()
      await backend.stop()
      await idp.stop()
    },
  }
}
