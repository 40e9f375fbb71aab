/**
 * A demo-shaped stack in broker mode for the broker tests: mock-idp (the real oidc-provider, its
 * interactive sign-in page included), the real MCP backend, and gatehouse whose resource is its
 * own real address (`http://127.0.0.1:<port>/mcp`, so the issuer is that too). The gateway's
 * upstream client is mock-idp's `gatehouse-demo-client`, which accepts the gateway's loopback
 * callback.
 */
import { type MockIdp, type MockIdpOptions, startMockIdp } from '@gatehouse/mock-idp'
import { type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { freePort } from '@gatehouse/support'
import { authConfig } from '../auth/config.js'
import { startTestGatehouse, type TestGatehouse } from '../helpers.js'

/** The running stack. */
export interface BrokerStack {
  idp: MockIdp
  backend: McpBackend
  gh: TestGatehouse
  /** `http://127.0.0.1:<port>/mcp`: the resource and the broker's issuer. */
  issuer: string
  authorizeUrl: string
  tokenUrl: string
  stop(): Promise<void>
}

/** Options of {@link startBrokerStack}. */
export interface BrokerStackOptions {
  /** `mcp.broker` (merged over `{}`). */
  broker?: Record<string, unknown>
  idp?: MockIdpOptions
  /** The IdP backend's response timeout (default 2s). */
  idpTimeout?: string
  /** `providers[0].audiences`; default `api://default`. */
  audience?: string
}

/** Starts mock-idp, the MCP backend and gatehouse in broker mode. */
export async function startBrokerStack(o: BrokerStackOptions = {}): Promise<BrokerStack> {
  const idp = await startMockIdp(o.idp)
  const backend = await startMcpBackend()
  const port = await freePort()
  const issuer = `http://127.0.0.1:${port}/mcp`
  const config = authConfig({
    idpPort: idp.port,
    backendPort: backend.port,
    issuer: idp.issuer,
    resource: issuer,
    broker: o.broker ?? {},
  })
  const backends = config.backends as Record<string, { timeouts?: Record<string, string> }>
  if (o.idpTimeout && backends.idp)
    backends.idp.timeouts = { connect: '1s', response: o.idpTimeout }
  if (o.audience) {
    const jwt = (
      config.policies as Record<
        string,
        { traffic: { jwtAuthentication: { providers: { audiences: string[] }[] } } }
      >
    )['mcp-auth']
    const first = jwt?.traffic.jwtAuthentication.providers[0]
    if (first) first.audiences = [o.audience]
  }
  const gh = await startTestGatehouse(
    { ...config, gateways: { default: { port, address: '127.0.0.1' } } },
    { ephemeralPorts: false },
  )
  return {
    idp,
    backend,
    gh,
    issuer,
    authorizeUrl: `${issuer}/oauth/authorize`,
    tokenUrl: `${issuer}/oauth/token`,
    async stop() {
      await gh.stop('done')
      await backend.stop()
      await idp.stop()
    },
  }
}

/** The configured public client of the demo (`mcp.clientId`): loopback redirect URIs. */
export const DEMO_CLIENT = 'gatehouse-demo-client'

/** An authorization URL for the demo client with the given parameters over sane defaults. */
export function authorizationUrl(
  stack: Pick<BrokerStack, 'authorizeUrl' | 'issuer'>,
  params: Record<string, string | undefined>,
): URL {
  const url = new URL(stack.authorizeUrl)
  const defaults: Record<string, string> = {
    response_type: 'code',
    client_id: DEMO_CLIENT,
    redirect_uri: 'http://127.0.0.1:33418/callback',
    scope: 'openid profile',
    resource: stack.issuer,
  }
  for (const [k, v] of Object.entries({ ...defaults, ...params })) {
    if (v !== undefined) url.searchParams.set(k, v)
  }
  return url
}

/** POSTs a form to the token endpoint; returns status, headers and the JSON body. */
export async function tokenRequest(
  stack: Pick<BrokerStack, 'tokenUrl'>,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const res = await fetch(stack.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  })
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as Record<string, unknown>,
  }
}

/** Registers a client at the gateway (RFC 7591); returns its id and secret (if confidential). */
export async function registerClient(
  stack: Pick<BrokerStack, 'issuer'>,
  metadata: Record<string, unknown>,
): Promise<{ clientId: string; clientSecret?: string }> {
  const res = await fetch(`${stack.issuer}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(metadata),
  })
  const body = (await res.json()) as { client_id?: string; client_secret?: string }
  if (res.status !== 201 || !body.client_id) {
    throw new Error(`registration failed: HTTP ${res.status} ${JSON.stringify(body)}`)
  }
  return {
    clientId: body.client_id,
    ...(body.client_secret ? { clientSecret: body.client_secret } : {}),
  }
}
