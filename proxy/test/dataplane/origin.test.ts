/**
 * DNS rebinding protection on MCP routes (docs/reliability.md, MCP 2025-06-18 Transports: servers
 * MUST validate Origin). The gateway rewrites Host for the backend, so it checks Host and Origin
 * itself: a page at evil.example.com whose name resolves to the gateway gets 403.
 */
import { request } from 'node:http'
import { initializeBody, type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GatehouseConfigInput } from '../../src/config/schema.js'
import { authConfig } from '../auth/config.js'
import { startTinyIdp, type TinyIdp } from '../auth/tiny-idp.js'
import { simpleConfig, startTestGatehouse, type TestGatehouse } from '../helpers.js'

let idp: TinyIdp
let backend: McpBackend
const started: TestGatehouse[] = []

beforeAll(async () => {
  idp = await startTinyIdp()
  backend = await startMcpBackend()
})
afterAll(async () => {
  for (const g of started) await g.stop('done')
  await backend.stop()
  await idp.stop()
})

/** A gatehouse with the auth test config, its MCP policy and CORS filter changed by `edit`. */
async function gateway(
  edit: (config: ReturnType<typeof authConfig>) => void = () => {},
): Promise<TestGatehouse> {
  const config = authConfig({ idpPort: idp.port, backendPort: backend.port, issuer: idp.issuer })
  edit(config)
  const g = await startTestGatehouse(config as GatehouseConfigInput)
  started.push(g)
  return g
}

function mcpOf(config: ReturnType<typeof authConfig>) {
  const mcp = config.policies?.['mcp-auth']?.traffic.jwtAuthentication?.mcp
  if (!mcp) throw new Error('no mcp block')
  return mcp
}

/** POST initialize with a valid token and the given Host and Origin (http.request sends Host as given). */
async function send(
  g: TestGatehouse,
  headers: { host?: string; origin?: string },
  options: { token?: boolean } = {},
): Promise<{ status: number; body: string }> {
  const auth = options.token === false ? {} : { authorization: `Bearer ${await idp.sign()}` }
  const body = initializeBody()
  return new Promise((resolve, reject) => {
    const req = request(`${g.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...auth,
        ...headers,
      },
    })
    req.on('response', (res) => {
      let text = ''
      res.on('data', (c) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

describe('Origin validation on MCP routes', () => {
  let g: TestGatehouse
  beforeAll(async () => {
    g = await gateway()
  })

  it('answers 403 host_not_allowed to a rebound name: Host and Origin both evil.example.com', async () => {
    const r = await send(g, {
      host: 'evil.example.com:3000',
      origin: 'http://evil.example.com:3000',
    })
    expect(r.status).toBe(403)
    expect(JSON.parse(r.body)).toMatchObject({
      error: 'host_not_allowed',
      error_description: expect.stringContaining('Host "evil.example.com:3000"'),
    })
  })

  it('lets a request without Origin (a non-browser client) through, whatever its Host', async () => {
    expect((await send(g, { host: 'evil.example.com:3000' })).status).toBe(200)
  })

  it("accepts the configured resource's host, localhost and IP addresses", async () => {
    const { port } = new URL(g.url)
    for (const host of ['gateway.example:3000', `localhost:${port}`, `127.0.0.1:${port}`]) {
      const r = await send(g, { host, origin: `http://${host}` })
      expect(r.status, host).toBe(200)
    }
  })

  it('accepts any cross origin when the route CORS filter allows "*" (the seed)', async () => {
    const r = await send(g, { host: 'gateway.example:3000', origin: 'https://inspector.example' })
    expect(r.status).toBe(200)
  })

  it("takes the accepted origins from the route's CORS allowOrigins by default", async () => {
    const strict = await gateway((c) => {
      const filter = c.routes?.mcp?.rules[0]?.filters?.[0]
      if (filter?.type === 'CORS') filter.cors.allowOrigins = ['https://app.example.com']
    })
    const ok = await send(strict, { host: '127.0.0.1', origin: 'https://app.example.com' })
    expect(ok.status).toBe(200)
    const r = await send(strict, { host: '127.0.0.1', origin: 'https://evil.example.com' })
    expect(r.status).toBe(403)
    expect(JSON.parse(r.body)).toMatchObject({
      error: 'origin_not_allowed',
      error_description: expect.stringContaining('https://app.example.com'),
    })
  })

  it('uses mcp.originValidation when configured', async () => {
    const configured = await gateway((c) => {
      mcpOf(c).originValidation = {
        allowedOrigins: ['https://app.example.com'],
        allowedHosts: ['mcp.example.com', '*.internal.example'],
      }
    })
    const app = 'https://app.example.com'
    expect((await send(configured, { host: 'mcp.example.com:443', origin: app })).status).toBe(200)
    expect((await send(configured, { host: 'a.internal.example', origin: app })).status).toBe(200)
    // The configured hosts replace the resource's host.
    expect((await send(configured, { host: 'gateway.example:3000', origin: app })).status).toBe(403)
    // allowedOrigins replaces the CORS "*".
    const other = await send(configured, { host: 'mcp.example.com', origin: 'https://x.example' })
    expect(other.status).toBe(403)
    // Same-origin with an accepted Host is always accepted.
    const same = await send(configured, {
      host: 'mcp.example.com',
      origin: 'http://mcp.example.com',
    })
    expect(same.status).toBe(200)
  })

  it('rejects an origin with a path in the configuration, naming the field', async () => {
    await expect(
      gateway((c) => {
        mcpOf(c).originValidation = { allowedOrigins: ['https://app.example.com/'] }
      }),
    ).rejects.toThrow(/originValidation\.allowedOrigins\[0\]: expected an origin/)
  })
})

describe('Origin validation is a route-level setting (traffic.originValidation)', () => {
  /** A gatehouse whose route has no authentication, with `policies` attached to it. */
  async function noAuth(policies: Record<string, unknown> = {}): Promise<TestGatehouse> {
    const g = await startTestGatehouse({
      ...simpleConfig(backend.port),
      policies,
    } as GatehouseConfigInput)
    started.push(g)
    return g
  }
  /** The official conformance suite's dns-rebinding-protection request, with no token. */
  const rebound = { host: 'evil.example.com', origin: 'http://evil.example.com' }

  it('refuses a rebound name on a route without authentication (the default is on)', async () => {
    const g = await noAuth()
    const r = await send(g, rebound, { token: false })
    expect(r.status).toBe(403)
    expect(JSON.parse(r.body)).toMatchObject({
      error: 'host_not_allowed',
      error_description: expect.stringContaining('traffic.originValidation.allowedHosts'),
    })
    // localhost and IP addresses cannot be rebound: accepted, same-origin.
    const { port } = new URL(g.url)
    const local = `localhost:${port}`
    expect(
      (await send(g, { host: local, origin: `http://${local}` }, { token: false })).status,
    ).toBe(200)
  })

  it("refuses an Origin with the listener's host but another scheme: it is not same-origin", async () => {
    const g = await noAuth()
    const { port } = new URL(g.url)
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
      for (const scheme of ['https', 'ws', 'ftp']) {
        const r = await send(g, { host, origin: `${scheme}://${host}` }, { token: false })
        expect(r.status, `${scheme}://${host}`).toBe(403)
        expect(JSON.parse(r.body)).toMatchObject({ error: 'origin_not_allowed' })
      }
    }
  })

  it('takes allowedHosts and allowedOrigins from a policy without authentication', async () => {
    const g = await noAuth({
      origins: {
        targetRefs: [{ name: 'main' }],
        traffic: {
          originValidation: {
            allowedHosts: ['mcp.example.com'],
            allowedOrigins: ['https://app.example.com'],
          },
        },
      },
    })
    const app = 'https://app.example.com'
    expect((await send(g, { host: 'mcp.example.com', origin: app }, { token: false })).status).toBe(
      200,
    )
    expect((await send(g, rebound, { token: false })).status).toBe(403)
    const other = await send(
      g,
      { host: 'mcp.example.com', origin: 'https://x.example' },
      {
        token: false,
      },
    )
    expect(other.status).toBe(403)
  })

  it('is off on a route whose policy says mode: Disabled', async () => {
    const g = await noAuth({
      web: { targetRefs: [{ name: 'main' }], traffic: { originValidation: { mode: 'Disabled' } } },
    })
    expect((await send(g, rebound, { token: false })).status).toBe(200)
  })

  it('refuses a route configured twice, naming both places', async () => {
    await expect(
      gateway((c) => {
        mcpOf(c).originValidation = { allowedOrigins: ['https://app.example.com'] }
        const policy = c.policies?.['mcp-auth']
        if (policy) Object.assign(policy.traffic, { originValidation: { mode: 'Disabled' } })
      }),
    ).rejects.toThrow(
      /policies\.mcp-auth\.traffic\.originValidation: route "mcp" also takes origin validation from policies\.mcp-auth\.traffic\.jwtAuthentication\.mcp\.originValidation/,
    )
  })
})
