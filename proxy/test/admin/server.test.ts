import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ConfigDump } from '../../src/admin/config-dump-schema.js'
import { TRACE_EVENT_TYPES } from '../../src/telemetry/trace-bus.js'
import {
  logsWith,
  openTrace,
  startAdminGatehouse,
  startBackend,
  type TestBackend,
} from './helpers.js'

describe('admin server', () => {
  let backend: TestBackend
  let gh: Awaited<ReturnType<typeof startAdminGatehouse>>
  beforeAll(async () => {
    backend = await startBackend()
    gh = await startAdminGatehouse(backend.port)
  })
  afterAll(async () => {
    await gh.stop()
    await backend.close()
  })

  it('listens on the configured loopback address and reports its URL', () => {
    expect(gh.admin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(logsWith(gh.logs, 'admin interface on').length).toBe(1)
    expect(logsWith(gh.logs, 'UI served at')[0]?.ui).toBe(`${gh.admin}/ui`)
  })

  it('serves the read-only UI on the gateway ui.gateway names, and says where', async () => {
    const other = await startAdminGatehouse(backend.port, {
      config: { ui: { gateway: 'default' } },
    })
    try {
      expect(logsWith(other.logs, 'ui.gateway').length).toBe(0)
      const [line] = logsWith(other.logs, 'read-only UI served at')
      expect(line?.ui).toBe(`${other.url}/gatehouse/ui`)
      const page = await fetch(`${other.url}/gatehouse/ui`)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('data-mode="gateway"')
      expect((await fetch(`${other.admin}/ui`)).status).toBe(200)
    } finally {
      await other.stop()
    }
    // Without ui.gateway the path is the gateway's like any other (no route: 404).
    expect((await fetch(`${gh.url}/gatehouse/ui`)).status).toBe(404)
  })

  it('serves the web UI page, which loads its built script and style from the admin address', async () => {
    const res = await fetch(`${gh.admin}/ui`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/html')
    expect(res.headers.get('content-security-policy')).toContain("connect-src 'self'")
    const html = await res.text()
    expect(html).toContain('<script type="module" src="/ui/app.js">')
    expect(html).toContain('data-mode="admin"')
    const js = await fetch(`${gh.admin}/ui/app.js`)
    expect(js.headers.get('content-type')).toContain('text/javascript')
    expect(await js.text()).toContain('/debug/trace?follow=1')
  })

  it('answers an unknown path with 404 listing the endpoints', async () => {
    const res = await fetch(`${gh.admin}/nope`)
    expect(res.status).toBe(404)
    const body = (await res.json()) as { endpoints: Array<{ path: string }> }
    expect(body.endpoints.map((e) => e.path)).toContain('/config_dump')
  })

  it('answers 405 with Allow for a wrong method', async () => {
    const res = await fetch(`${gh.admin}/quitquitquit`)
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('POST')
    const dump = await fetch(`${gh.admin}/config_dump`, { method: 'DELETE' })
    expect(dump.status).toBe(405)
    expect(dump.headers.get('allow')).toBe('GET, HEAD')
    // HEAD would start a trace watch nobody reads: not offered on the stream.
    const head = await fetch(`${gh.admin}/debug/trace`, { method: 'HEAD' })
    expect(head.status).toBe(405)
    expect(head.headers.get('allow')).toBe('GET')
  })

  it('refuses a cross-origin browser request (a web page cannot POST /quitquitquit)', async () => {
    const res = await fetch(`${gh.admin}/quitquitquit`, {
      method: 'POST',
      headers: { origin: 'https://evil.example' },
    })
    expect(res.status).toBe(403)
    expect((await fetch(`${gh.url}/mcp`)).status).toBe(200)
  })

  it('refuses a non-loopback Host on a loopback bind (DNS rebinding)', async () => {
    const { request } = await import('undici')
    const res = await request(`${gh.admin}/config_dump`, { headers: { host: 'evil.example' } })
    expect(res.statusCode).toBe(403)
    await res.body.text()
  })

  describe('GET /config_dump', () => {
    it('dumps binds, listeners, routes, backends and build info', async () => {
      const res = await fetch(`${gh.admin}/config_dump`)
      expect(res.status).toBe(200)
      const dump = (await res.json()) as ConfigDump
      expect(dump.version).toMatchObject({ product: 'gatehouse', platform: process.platform })
      expect(dump.binds[0]).toMatchObject({
        name: 'default',
        address: '127.0.0.1',
        url: gh.url,
        listeners: [{ name: 'default', protocol: 'HTTP', routes: ['main'] }],
      })
      expect(dump.routes[0]?.name).toBe('main')
      expect(dump.backends[0]).toMatchObject({
        name: 'backend',
        address: `127.0.0.1:${backend.port}`,
        tls: null,
      })
      expect(dump.policies).toEqual([])
      expect(dump.workloads).toEqual([])
      expect(dump.services).toEqual([])
    })
  })

  describe('GET/POST /logging', () => {
    it('reports the current filter as a text line', async () => {
      const res = await fetch(`${gh.admin}/logging`)
      expect(res.status).toBe(200)
      expect(await res.text()).toBe('current log level is info\n')
    })

    it('sets a per-module filter that takes effect at once', async () => {
      await fetch(`${gh.url}/mcp/before`)
      expect(gh.logs.filter((l) => l.module === 'proxy::httpproxy' && l.msg === 'request')).toEqual(
        [],
      )
      const res = await fetch(`${gh.admin}/logging?level=info,proxy::httpproxy=debug`, {
        method: 'POST',
      })
      expect(res.status).toBe(200)
      expect(await res.text()).toBe('current log level is info,proxy::httpproxy=debug\n')
      await fetch(`${gh.url}/mcp/after`)
      const lines = gh.logs.filter((l) => l.module === 'proxy::httpproxy' && l.msg === 'request')
      expect(lines.map((l) => l.path)).toEqual(['/mcp/after'])
      await fetch(`${gh.admin}/logging?level=info`, { method: 'POST' })
      expect(await (await fetch(`${gh.admin}/logging`)).text()).toBe('current log level is info\n')
    })

    it('answers 400 naming what is wrong and keeps the filter', async () => {
      const level = await fetch(`${gh.admin}/logging?level=loud`, { method: 'POST' })
      expect(level.status).toBe(400)
      expect(await level.text()).toContain('"loud"')
      const mod = await fetch(`${gh.admin}/logging?level=info,proxy::nope=debug`, {
        method: 'POST',
      })
      expect(mod.status).toBe(400)
      expect(await mod.text()).toContain('unknown module "proxy::nope"')
      const missing = await fetch(`${gh.admin}/logging`, { method: 'POST' })
      expect(missing.status).toBe(400)
      expect(await missing.text()).toContain('"level"')
      expect(await (await fetch(`${gh.admin}/logging`)).text()).toBe('current log level is info\n')
    })
  })

  describe('GET /debug/trace', () => {
    it('streams the events of the next request as SSE and ends after it', async () => {
      const trace = await openTrace(`${gh.admin}/debug/trace`)
      expect(trace.response.headers.get('content-type')).toBe('text/event-stream')
      const forwarded = await fetch(`${gh.url}/mcp/traced`, {
        headers: { authorization: 'Bearer secret-token-value' },
      })
      expect(forwarded.status).toBe(200)
      const frames = (await trace.rest()).filter((f) => f.event)
      const types = frames.map((f) => f.event)
      expect(types[0]).toBe('request_started')
      expect(types.at(-1)).toBe('request_finished')
      for (const t of ['route_selected', 'backend_selected', 'backend_response', 'response']) {
        expect(types).toContain(t)
      }
      for (const t of types) expect(TRACE_EVENT_TYPES).toContain(t)
      const events = frames.map((f) => JSON.parse(f.data ?? '{}'))
      expect(events[0].data.path).toBe('/mcp/traced')
      expect(events.find((e) => e.type === 'response').data.status).toBe(200)
      expect(JSON.stringify(events)).not.toContain('secret-token-value')
    })

    it('gives every waiting watcher the same next request', async () => {
      const a = await openTrace(`${gh.admin}/debug/trace`)
      const b = await openTrace(`${gh.admin}/debug/trace`)
      await fetch(`${gh.url}/mcp/both`)
      const [fa, fb] = await Promise.all([a.rest(), b.rest()])
      const ids = (frames: typeof fa) =>
        new Set(frames.filter((f) => f.data).map((f) => JSON.parse(f.data ?? '{}').requestId))
      expect([...ids(fa)]).toHaveLength(1)
      expect([...ids(fa)]).toEqual([...ids(fb)])
    })

    it('traces only a request under ?path=', async () => {
      const trace = await openTrace(`${gh.admin}/debug/trace?path=/mcp/wanted`)
      await fetch(`${gh.url}/mcp/other`)
      await fetch(`${gh.url}/mcp/wanted/x`)
      const started = (await trace.rest()).find((f) => f.event === 'request_started')
      expect(JSON.parse(started?.data ?? '{}').data.path).toBe('/mcp/wanted/x')
    })

    it('rejects a path filter that is not a path', async () => {
      const res = await fetch(`${gh.admin}/debug/trace?path=mcp`)
      expect(res.status).toBe(400)
    })
  })
})
