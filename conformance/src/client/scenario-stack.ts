/**
 * One scenario's stack: mock-idp, mcp-backend and gatehouse on loopback, a recorder in front of
 * the gateway and one in front of the IdP — one in front of each of its hosts when its endpoints
 * are on several (the google shape's token and keys hosts). The client under test only ever sees
 * the recorders' origins: the gateway's resource is `<gateway recorder>/mcp`, and the IdP's public
 * URLs (its issuer and every URL in its metadata) are the IdP recorders'. Gatehouse reaches the
 * IdP directly (key set, discovery), so only the client's traffic is recorded.
 */
import { controlClient, type MockIdp, startMockIdp } from '@gatehouse/mock-idp'
import { type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { withFreePort } from '@gatehouse/support'
import { jwtPolicy, mcpRoute } from '../gateway-config.js'
import { type GatehouseProcess, type GatewayOptions, startGatehouse } from '../stack.js'
import { type PortPicker, type Recorder, startRecorder } from './recorder.js'
import {
  type ClientScenario,
  LEGACY_ENDPOINTS,
  PRE_REGISTERED,
  type StackHandles,
} from './scenarios.js'
import { composeShapers, reshapers } from './shapers.js'
import { Traffic } from './traffic.js'

/** What the checks know about a stack, independently of what the client did. */
export interface StackFacts {
  /** The gateway recorder's origin: the only gateway address the client knows. */
  gatewayOrigin: string
  /** The protected resource, `<gateway>/mcp` (the server URL handed to the client). */
  resource: string
  /** RFC 9728 §3.1 path-insertion and root forms of the PRM URL. */
  prmPathUrl: string
  prmRootUrl: string
  /** The authorization server PRM names (`authorization_servers[0]`). */
  authServer: string
  /**
   * The `issuer` of the AS metadata the client is served: {@link authServer} unless the
   * scenario's gateway names the IdP's issuer instead (RFC 8414 §3.3 broken on purpose).
   */
  asIssuer: string
  /** The IdP's endpoints (without query). */
  authorizeUrl: string
  tokenUrl: string
  revocationUrl: string
  /** The registration endpoint the AS metadata advertises. */
  registrationUrl: string
  /** The IdP's own org-level registration endpoint (where a guessing client might go). */
  idpRegistrationUrl: string
  /**
   * The issuer of the IdP's second authorization server, which PRM names after the migration
   * (`secondAuthServer` scenarios).
   */
  secondIssuer?: string
  /** Scopes in PRM `scopes_supported`. */
  scopesSupported: string[]
  /** The context handed to the client (`MCP_CONFORMANCE_CONTEXT`), if any. */
  context?: Record<string, unknown>
}

/** A running scenario stack. */
export interface ScenarioStack {
  scenario: ClientScenario
  /** The URL appended to the client's command. */
  serverUrl: string
  facts: StackFacts
  traffic: Traffic
  /** Clears the traffic and gives the recorders fresh shapers: a new client run. */
  beginRun(): Promise<void>
  stop(): Promise<void>
}

/** The gatehouse configuration of a scenario. */
function gatewayConfig(
  s: ClientScenario,
  ports: { gateway: number; idp: number; backend: number },
  idp: MockIdp,
  resource: string,
): Record<string, unknown> {
  const g = s.gateway
  const shaped = idp.shape !== 'okta'
  const direct = `http://127.0.0.1:${ports.idp}`
  // Keys on a host of their own (google): read there directly, as discovery is.
  const keysBackend = idp.hosts ? 'idp-keys' : 'idp'
  const provider = (issuer: string, id: string) => ({
    issuer,
    audiences: [g.audience === 'resource' ? resource : idp.audience],
    // Another IdP's shape: its preset, keys where the shape serves them, discovery read directly
    // (not through the IdP recorder, which records only the client's traffic).
    ...(shaped
      ? {
          preset: idp.shape,
          discoveryUrl: `${direct}${new URL(idp.discoveryUrl).pathname}`,
          jwks: {
            remote: { backendRef: { name: keysBackend }, jwksPath: new URL(idp.jwksUri).pathname },
          },
        }
      : { jwks: { remote: { backendRef: { name: 'idp' }, jwksPath: `/oauth2/${id}/v1/keys` } } }),
    ...(g.clockSkew ? { clockSkew: g.clockSkew } : {}),
  })
  return {
    config: { adminAddr: 'off', logLevel: 'info', drainTimeout: '0s' },
    gateways: { default: { port: ports.gateway, address: '127.0.0.1' } },
    backends: {
      'mcp-backend': { static: { host: '127.0.0.1', port: ports.backend } },
      idp: { static: { host: '127.0.0.1', port: ports.idp } },
      ...(idp.hosts
        ? { 'idp-keys': { static: { host: '127.0.0.1', port: idp.hosts.keys.port } } }
        : {}),
    },
    routes: { mcp: mcpRoute('default') },
    policies: {
      'mcp-auth': jwtPolicy(
        'mcp',
        {
          providers: [
            provider(idp.issuer, 'default'),
            ...(g.secondAuthServer ? [provider(idp.issuerFor('second'), 'second')] : []),
          ],
          mcp: {
            ...(g.bridged ? { provider: 'BridgedIdp' } : {}),
            ...(g.bridged && g.clientId ? { clientId: idp.publicClientId } : {}),
            ...(g.bridged && g.issuerMode ? { issuerMode: g.issuerMode } : {}),
            resourceMetadata: {
              resource,
              scopesSupported: g.scopesSupported,
              bearerMethodsSupported: ['header'],
            },
            ...(g.requiredScopes ? { requiredScopes: g.requiredScopes } : {}),
          },
        },
        { action: 'Allow', policy: { matchExpressions: g.rules } },
      ),
    },
  }
}

/** The context a scenario hands to the client (`MCP_CONFORMANCE_CONTEXT`), if it needs one. */
function contextOf(s: ClientScenario): Record<string, unknown> | undefined {
  if (s.registration !== 'pre-registered') return undefined
  return { client_id: PRE_REGISTERED.clientId, client_secret: PRE_REGISTERED.clientSecret }
}

/**
 * The IdP's endpoints as the client sees them: the Okta layout's under the issuer, or another
 * shape's as its discovery document names them (read directly, so not recorded), which may put
 * them on other paths and hosts than the issuer's (mock-idp/src/shapes.ts).
 */
async function idpEndpoints(
  idp: MockIdp,
): Promise<{ authorize: string; token: string; revocation: string }> {
  if (idp.shape === 'okta') {
    return {
      authorize: `${idp.issuer}/v1/authorize`,
      token: `${idp.issuer}/v1/token`,
      revocation: `${idp.issuer}/v1/revoke`,
    }
  }
  const url = `http://127.0.0.1:${idp.port}${new URL(idp.discoveryUrl).pathname}`
  const res = await fetch(url)
  if (!res.ok) throw new Error(`mock-idp discovery ${url}: HTTP ${res.status}`)
  const doc = (await res.json()) as Record<string, unknown>
  const at = (key: string) => {
    const v = doc[key]
    if (typeof v !== 'string') throw new Error(`mock-idp discovery ${url}: no ${key}`)
    return v
  }
  return {
    authorize: at('authorization_endpoint'),
    token: at('token_endpoint'),
    revocation: at('revocation_endpoint'),
  }
}

/** Starts a scenario's stack. */
export async function startScenarioStack(
  scenario: ClientScenario,
  options: GatewayOptions = {},
  clientPorts?: PortPicker,
  cimdDocuments: readonly Record<string, unknown>[] = [],
): Promise<ScenarioStack> {
  const traffic = new Traffic()
  const started: Array<{ stop(): Promise<void> }> = []
  try {
    const gwRecorder: Recorder = await startRecorder('gateway', traffic, clientPorts)
    started.push(gwRecorder)
    const idpRecorder = await startRecorder('idp', traffic, clientPorts)
    started.push(idpRecorder)
    // The IdP's other hosts (google: token and keys), each behind a recorder of its own.
    const hostRecorders =
      scenario.idp.shape === 'google'
        ? {
            token: await startRecorder('idp', traffic, clientPorts),
            keys: await startRecorder('idp', traffic, clientPorts),
          }
        : undefined
    if (hostRecorders) started.push(hostRecorders.token, hostRecorders.keys)
    // The client's own metadata documents (--cimd-document), known to a CIMD IdP besides ours.
    const known = scenario.idp.clientIdMetadataDocuments
    const idp = await startMockIdp({
      ...scenario.idp,
      ...(known
        ? {
            clientIdMetadataDocuments: {
              documents: {
                ...known.documents,
                ...Object.fromEntries(cimdDocuments.map((d) => [String(d.client_id), d])),
              },
            },
          }
        : {}),
      publicUrl: idpRecorder.origin,
      ...(hostRecorders
        ? { hostUrls: { token: hostRecorders.token.origin, keys: hostRecorders.keys.origin } }
        : {}),
    })
    started.push(idp)
    idpRecorder.setUpstream(idp.port)
    if (hostRecorders && idp.hosts) {
      hostRecorders.token.setUpstream(idp.hosts.token.port)
      hostRecorders.keys.setUpstream(idp.hosts.keys.port)
    }
    // mcp-backend serves 2026-07-28 and 2025-11-25 on one endpoint (mock-mcp/src/modern.ts).
    const backend: McpBackend = await startMcpBackend()
    started.push(backend)
    const resource = `${gwRecorder.origin}/mcp`
    // Gatehouse is told its port in its configuration: another process may take that port before
    // it listens ("address already in use"), so it starts again on a new one.
    const ports = { gateway: 0, idp: idp.port, backend: backend.port }
    let config: Record<string, unknown> = {}
    let gatehouse: GatehouseProcess = await withFreePort((port) => {
      ports.gateway = port
      config = gatewayConfig(scenario, ports, idp, resource)
      return startGatehouse(config, options)
    })
    // A restart a shaper began (key rotation) is waited for before a new run or the stop, so it
    // cannot start a gatehouse after the stack stopped.
    let restarting: Promise<void> = Promise.resolve()
    started.push({
      stop: async () => {
        await restarting.catch(() => {})
        await gatehouse.stop()
      },
    })
    gwRecorder.setUpstream(ports.gateway)

    const control = controlClient(`http://127.0.0.1:${idp.port}/__control`)
    const endpoints = await idpEndpoints(idp)
    const secondIssuer = scenario.gateway.secondAuthServer ? idp.issuerFor('second') : undefined
    const handles: StackHandles = {
      gatewayUpstream: `http://127.0.0.1:${ports.gateway}`,
      ...(secondIssuer ? { secondIssuer } : {}),
      authorizePath: new URL(endpoints.authorize).pathname,
      idpUpstream: `http://127.0.0.1:${idp.port}`,
      idpIssuer: idp.issuer,
      registrationPath: new URL(idp.registrationUrl).pathname,
      async rotateKeys() {
        await control.rotateKeys({ keepOld: false })
      },
      restartGateway() {
        restarting = (async () => {
          await gatehouse.stop()
          gatehouse = await startGatehouse(config, options)
        })()
        return restarting
      },
    }
    const context = contextOf(scenario)
    const gatewayIssuer = scenario.gateway.bridged && scenario.gateway.issuerMode === 'Gateway'
    const legacy = scenario.legacy ? LEGACY_ENDPOINTS[scenario.legacy] : undefined
    const origin = gwRecorder.origin
    const facts: StackFacts = {
      gatewayOrigin: origin,
      resource,
      prmPathUrl: `${origin}/.well-known/oauth-protected-resource/mcp`,
      prmRootUrl: `${origin}/.well-known/oauth-protected-resource`,
      // 2025-03-26: the MCP server's origin (its URL without the path) is the authorization server.
      authServer: legacy ? origin : scenario.gateway.bridged ? resource : idp.issuer,
      asIssuer: legacy ? origin : scenario.gateway.bridged && gatewayIssuer ? resource : idp.issuer,
      authorizeUrl: legacy ? `${origin}${legacy.authorize}` : endpoints.authorize,
      tokenUrl: legacy ? `${origin}${legacy.token}` : endpoints.token,
      revocationUrl: endpoints.revocation,
      registrationUrl: legacy
        ? `${origin}${legacy.register}`
        : scenario.gateway.bridged
          ? `${origin}/.well-known/oauth-authorization-server/mcp/client-registration`
          : idp.registrationUrl,
      idpRegistrationUrl: idp.registrationUrl,
      ...(secondIssuer ? { secondIssuer } : {}),
      scopesSupported: scenario.gateway.scopesSupported,
      ...(context ? { context } : {}),
    }
    const stack: ScenarioStack = {
      scenario,
      serverUrl: resource,
      facts,
      traffic,
      async beginRun() {
        await restarting.catch(() => {})
        traffic.clear()
        const shapers = scenario.shapers?.(handles) ?? {}
        gwRecorder.setShaper(shapers.gateway)
        // The scenario's forgery first: the rewrite leaves a forged iss alone.
        const idpShaper = composeShapers(
          shapers.idp,
          gatewayIssuer
            ? reshapers.issAsGateway(handles.authorizePath, idp.issuer, resource)
            : undefined,
        )
        // One IdP, whichever of its hosts a request goes to.
        for (const r of [idpRecorder, hostRecorders?.token, hostRecorders?.keys])
          r?.setShaper(idpShaper)
      },
      async stop() {
        for (const part of started.reverse()) await part.stop()
      },
    }
    await stack.beginRun()
    return stack
  } catch (err) {
    for (const part of started.reverse()) await part.stop().catch(() => {})
    throw err
  }
}
