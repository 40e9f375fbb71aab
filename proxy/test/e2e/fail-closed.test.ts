/**
 * No MCP route is open by accident (docs/reliability.md, "Fail-open configuration" and "Route
 * takeover across namespaces"), over real HTTP: a reload that would leave a route without its
 * policy is refused and the protected configuration keeps serving; a route of another namespace
 * on a protected path never answers for it, nor receives its users' tokens.
 */
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import { loadConfigSources } from '../../src/config/sources.js'
import { type Gatehouse, startGatehouse } from '../../src/index.js'
import { es256Signer } from '../auth/signer.js'
import { configDir, startFromPaths } from '../reload-harness.js'

const ISSUER = 'https://idp.fail-closed.example/oauth2/default'
const GROUP = 'gateway.example.dev'
const GW = 'gateway.networking.k8s.io'
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 't', version: '1' },
  },
})

/** A backend that records the headers of every request it receives. */
async function recordingBackend() {
  const seen: IncomingHttpHeaders[] = []
  const server = createServer((req, res) => {
    seen.push(req.headers)
    req.resume()
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end('{"jsonrpc":"2.0","id":1,"result":{}}')
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}

const post = (url: string, token?: string) =>
  fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: INITIALIZE,
  })

const cleanups: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

describe('a reload that would leave a route without its policy', () => {
  it('is refused, the protected configuration keeps serving, and the dump says why', async () => {
    const signer = await es256Signer({ iss: ISSUER, aud: 'api://default', sub: 'alice' })
    const backend = await recordingBackend()
    cleanups.push(backend.close)
    const policy = {
      targetRefs: [{ name: 'mcp' }],
      traffic: {
        jwtAuthentication: {
          providers: [
            {
              issuer: ISSUER,
              audiences: ['api://default'],
              jwks: { inline: { keys: [signer.jwk] } },
            },
          ],
        },
      },
    }
    const config = (withPolicy: boolean) =>
      stringify({
        config: { adminAddr: '127.0.0.1:0', logLevel: 'error' },
        gateways: { default: { port: 3000, address: '127.0.0.1' } },
        backends: { b: { static: { host: '127.0.0.1', port: backend.port } } },
        routes: {
          mcp: {
            rules: [
              {
                matches: [{ path: { type: 'PathPrefix', value: '/mcp' } }],
                backendRefs: [{ name: 'b' }],
              },
            ],
          },
        },
        ...(withPolicy ? { policies: { 'mcp-auth': policy } } : {}),
      })
    const file = join(configDir({ 'gatehouse.yaml': config(true) }), 'gatehouse.yaml')
    const gh = await startFromPaths([file])
    cleanups.push(() => gh.stop('test finished'))
    const url = gh.gateways[0]?.url as string
    expect((await post(url)).status).toBe(401)

    writeFileSync(file, config(false))
    const record = await gh.reload('admin')
    expect(record).toMatchObject({ result: 'failure', reason: 'Unauthenticated' })
    expect(record.message).toContain('routes.mcp: no policy with traffic.jwtAuthentication')

    expect((await post(url)).status).toBe(401)
    expect(backend.seen).toHaveLength(0)
    expect((await post(url, await signer.sign())).status).toBe(200)
    const dump = (await (await fetch(`${gh.adminUrl}/config_dump`)).json()) as {
      reload: { result: string; reason: string }
      routes: Array<{ name: string; authentication: string }>
    }
    expect(dump.reload).toMatchObject({ result: 'failure', reason: 'Unauthenticated' })
    expect(dump.routes).toEqual([
      expect.objectContaining({ name: 'mcp', authentication: 'Policy' }),
    ])
  })
})

describe('a route of another namespace on a protected path (listener admitting All)', () => {
  for (const [label, aCreated, defaultCreated] of [
    ['older', '2020-01-01T00:00:00Z', '2026-01-01T00:00:00Z'],
    ['newer', '2026-01-01T00:00:00Z', '2020-01-01T00:00:00Z'],
  ] as const) {
    it(`never serves it nor receives its tokens when a/mcp is ${label}`, async () => {
      const signer = await es256Signer({ iss: ISSUER, aud: 'api://default', sub: 'alice' })
      const [mine, theirs] = [await recordingBackend(), await recordingBackend()]
      cleanups.push(mine.close, theirs.close)
      const route = (namespace: string, backend: string, created: string) => ({
        apiVersion: `${GW}/v1`,
        kind: 'HTTPRoute',
        metadata: { name: 'mcp', namespace, creationTimestamp: created },
        spec: {
          parentRefs: [{ name: 'gw', namespace: 'default' }],
          rules: [
            {
              matches: [{ path: { type: 'PathPrefix', value: '/mcp' } }],
              backendRefs: [{ group: GROUP, kind: 'GatewayBackend', name: backend }],
            },
          ],
        },
      })
      const backendOf = (name: string, namespace: string, port: number) => ({
        apiVersion: `${GROUP}/v1alpha1`,
        kind: 'GatewayBackend',
        metadata: { name, namespace },
        spec: { static: { host: '127.0.0.1', port } },
      })
      const docs = [
        { config: { adminAddr: '127.0.0.1:0', logLevel: 'error' } },
        {
          apiVersion: `${GW}/v1`,
          kind: 'Gateway',
          metadata: { name: 'gw' },
          spec: {
            listeners: [
              {
                name: 'http',
                protocol: 'HTTP',
                port: 3000,
                allowedRoutes: { namespaces: { from: 'All' } },
              },
            ],
          },
        },
        backendOf('mcp-backend', 'default', mine.port),
        backendOf('a-backend', 'a', theirs.port),
        route('default', 'mcp-backend', defaultCreated),
        // No policy of its own: the tenant of namespace a.
        route('a', 'a-backend', aCreated),
        {
          apiVersion: `${GROUP}/v1alpha1`,
          kind: 'GatewayPolicy',
          metadata: { name: 'mcp-auth' },
          spec: {
            targetRefs: [{ group: GW, kind: 'HTTPRoute', name: 'mcp' }],
            traffic: {
              jwtAuthentication: {
                providers: [
                  {
                    issuer: ISSUER,
                    audiences: ['api://default'],
                    jwks: { inline: { keys: [signer.jwk] } },
                  },
                ],
              },
            },
          },
        },
      ]
      const dir = configDir({ 'all.yaml': docs.map((d) => stringify(d)).join('---\n') })
      const source = await loadConfigSources([dir], { env: {} })
      const gh: Gatehouse = await startGatehouse({
        config: source.config,
        source,
        ephemeralPorts: true,
      })
      cleanups.push(() => gh.stop('test finished'))
      const url = gh.gateways[0]?.url as string

      expect((await post(url)).status).toBe(401)
      const token = await signer.sign()
      expect((await post(url, token)).status).toBe(200)
      // Only the protected route's backend was reached (the policy strips the bearer token
      // before forwarding); a's backend received nothing, alice's Authorization least of all.
      expect(theirs.seen).toHaveLength(0)
      expect(mine.seen).toHaveLength(1)

      const dump = (await (await fetch(`${gh.adminUrl}/config_dump`)).json()) as {
        resources: Array<{
          kind: string
          namespace: string
          conditions: Array<{ type: string; status: string; reason: string }>
        }>
      }
      const a = dump.resources.find((r) => r.kind === 'HTTPRoute' && r.namespace === 'a')
      expect(a?.conditions.find((c) => c.type === 'Accepted')).toMatchObject({
        status: 'False',
        reason: 'ProtectedPathConflict',
      })
    })
  }
})
