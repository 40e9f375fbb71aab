/**
 * The web UI's endpoints on the admin address (proxy/src/admin/ui/admin-routes.ts) in process:
 * the page and its files with their headers, the callback page (the one page another site may
 * send the browser to, still judged on its Host), the relay (its checks, its content type, the
 * origins it may reach, a real exchange) — and, for each control the UI offers, that a request a
 * page of another site could send is refused before any handler runs.
 */
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { buildAdminApp } from '../../../src/admin/app.js'
import type { AdminContext } from '../../../src/admin/context.js'
import { HeapProfiling } from '../../../src/admin/profile-endpoints.js'
import { RELAY_CONTENT_TYPE } from '../../../src/admin/ui/relay.js'
import { createLogging } from '../../../src/telemetry/logging.js'
import { fakeContext } from '../context.js'

const HOST = '127.0.0.1:15000'
let app: FastifyInstance | undefined
let levelChanges = 0

async function build(ctx: AdminContext = fakeContext()): Promise<FastifyInstance> {
  app = buildAdminApp(
    ctx,
    {
      heap: new HeapProfiling(),
      closing: new AbortController().signal,
      profiling: { running: false },
      onLogFilterChange: () => levelChanges++,
      onShutdownRequested: () => undefined,
    },
    { loopbackOnly: () => true },
  ).app
  await app.ready()
  return app
}

afterEach(async () => {
  await app?.close()
  app = undefined
})

describe('admin UI endpoints', () => {
  it('serves the page with a strict content security policy, never framed', async () => {
    const res = await (await build()).inject({ url: '/ui', headers: { host: HOST } })
    expect(res.statusCode).toBe(200)
    const csp = String(res.headers['content-security-policy'])
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(res.headers['referrer-policy']).toBe('no-referrer')
    expect(res.body).toContain('src="/ui/app.js"')
  })

  it('serves the callback page to a browser sent from another site, but never on a foreign Host', async () => {
    const a = await build()
    const sent = await a.inject({
      url: '/ui/callback?code=c&state=s',
      headers: { host: HOST, 'sec-fetch-site': 'same-site' },
    })
    expect(sent.statusCode).toBe(200)
    expect(sent.body).toContain('data-mode="callback"')
    // It reflects nothing of the query into the page.
    expect(sent.body).not.toContain('code=c')
    const rebound = await a.inject({
      url: '/ui/callback',
      headers: { host: 'evil.example:15000', 'sec-fetch-site': 'cross-site' },
    })
    expect(rebound.statusCode).toBe(403)
  })
})

describe('admin UI: every control refuses a request from another site, before its handler', () => {
  const controls: Array<[string, 'GET' | 'POST', string]> = [
    ['log level', 'POST', '/logging?level=trace'],
    ['reload', 'POST', '/reload'],
    ['CPU profile', 'GET', '/debug/pprof/profile?seconds=1'],
    ['heap profile', 'GET', '/debug/pprof/heap'],
    ['trace timeline', 'GET', '/debug/trace?follow=1'],
    ['flow debugger relay', 'POST', '/ui/relay'],
  ]
  const attacks: Array<[string, Record<string, string>]> = [
    ['a foreign Origin', { origin: 'http://evil.example' }],
    [
      'another port of the same host (same-site)',
      { origin: 'http://127.0.0.1:3000', 'sec-fetch-site': 'same-site' },
    ],
    ['cross-site Fetch Metadata without Origin', { 'sec-fetch-site': 'cross-site' }],
  ]
  for (const [control, method, url] of controls) {
    it(`refuses the ${control} from ${attacks.map((a) => a[0]).join(', ')}`, async () => {
      let reloads = 0
      const a = await build({
        ...fakeContext(),
        reload: async () => {
          reloads++
          return {
            at: new Date().toISOString(),
            trigger: 'admin',
            result: 'unchanged',
            message: '',
          }
        },
      })
      for (const [what, headers] of attacks) {
        const res = await a.inject({
          method,
          url,
          headers: { host: HOST, 'content-type': RELAY_CONTENT_TYPE, ...headers },
          payload:
            method === 'POST'
              ? JSON.stringify({ method: 'GET', url: 'http://127.0.0.1:3000/mcp' })
              : undefined,
        })
        expect(res.statusCode, `${control}, ${what}`).toBe(403)
      }
      expect(reloads).toBe(0)
      expect(levelChanges).toBe(0)
    })
  }
})

describe('admin UI relay', () => {
  let target: Server
  let targetUrl: string
  beforeAll(async () => {
    target = createServer((req, res) => {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () => {
        res.writeHead(401, {
          'www-authenticate': 'Bearer resource_metadata="x"',
          'content-type': 'text/plain',
        })
        res.end(`${req.method} ${req.url} ${req.headers.authorization ?? '-'} ${body}`)
      })
    })
    target.listen(0, '127.0.0.1')
    await once(target, 'listening')
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`
  })
  afterAll(() => {
    target.close()
  })

  /** A context whose one gateway is the target server. */
  const ctx = (): AdminContext => {
    const base = fakeContext()
    const port = Number(new URL(targetUrl).port)
    return {
      ...base,
      gateways: () => [{ name: 'default', address: '127.0.0.1', port, url: targetUrl, routes: [] }],
    }
  }
  const relay = (a: FastifyInstance, body: unknown, type = RELAY_CONTENT_TYPE) =>
    a.inject({
      method: 'POST',
      url: '/ui/relay',
      headers: {
        host: HOST,
        origin: `http://${HOST}`,
        'sec-fetch-site': 'same-origin',
        'content-type': type,
      },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    })

  it('sends the request to a gateway and answers the whole exchange, no redirect followed', async () => {
    const res = await relay(await build(ctx()), {
      method: 'POST',
      url: `${targetUrl}/mcp?x=1`,
      headers: { authorization: 'Bearer abc' },
      body: 'hello',
    })
    expect(res.statusCode).toBe(200)
    const answer = res.json() as { status: number; headers: Array<[string, string]>; body: string }
    expect(answer.status).toBe(401)
    expect(answer.headers).toContainEqual(['www-authenticate', 'Bearer resource_metadata="x"'])
    expect(answer.body).toBe('POST /mcp?x=1 Bearer abc hello')
    expect(res.headers['cache-control']).toBe('no-store')
  })

  it('refuses an origin the configuration does not name, and names the ones it may reach', async () => {
    const res = await relay(await build(ctx()), {
      method: 'GET',
      url: 'http://169.254.169.254/latest/meta-data',
    })
    expect(res.statusCode).toBe(403)
    expect(res.body).toContain('not http://169.254.169.254')
    expect(res.body).toContain(targetUrl)
    // The configured issuer's origin is reachable (fakeContext's provider).
    expect(res.body).toContain('https://idp.example')
  })

  it('refuses a body that is not a relay request, and one sent as another content type', async () => {
    const a = await build(ctx())
    const bad = await relay(a, { method: 'TRACE', url: 'file:///etc/passwd' })
    expect(bad.statusCode).toBe(400)
    expect(bad.body).toContain('invalid_request')
    const form = await relay(a, 'url=http://127.0.0.1/', 'text/plain')
    expect(form.statusCode).toBe(400)
  })

  it('says when the target does not answer', async () => {
    const closed = createServer()
    closed.listen(0, '127.0.0.1')
    await once(closed, 'listening')
    const port = (closed.address() as AddressInfo).port
    closed.close()
    const base = fakeContext()
    const url = `http://127.0.0.1:${port}`
    const a = await build({
      ...base,
      logging: createLogging({ filter: 'off' }),
      gateways: () => [{ name: 'd', address: '127.0.0.1', port, url, routes: [] }],
    })
    const res = await relay(a, { method: 'GET', url: `${url}/mcp` })
    expect(res.statusCode).toBe(502)
    expect(res.body).toContain('did not answer')
  })
})
