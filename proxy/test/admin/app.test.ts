/**
 * The admin application (proxy/src/admin/app.ts) in process with `inject`: routing answers
 * (404 listing the endpoints, 405 with Allow, HEAD only where it cannot start a stream), the
 * browser guard (foreign Origin, non-loopback Host), `/logging` keeping its level on a refusal,
 * and the one error handler.
 */
import type { AddressInfo } from 'node:net'
import { connect } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { buildAdminApp } from '../../src/admin/app.js'
import type { AdminContext } from '../../src/admin/context.js'
import { HeapProfiling } from '../../src/admin/profile-endpoints.js'
import { createLogging } from '../../src/telemetry/logging.js'
import { fakeContext } from './context.js'

let app: FastifyInstance | undefined
const shutdowns: string[] = []

async function build(
  ctx: AdminContext = fakeContext({
    shutdown: async (reason) => {
      shutdowns.push(reason)
    },
  }),
  loopbackOnly = true,
) {
  const built = buildAdminApp(
    ctx,
    {
      heap: new HeapProfiling(),
      closing: new AbortController().signal,
      profiling: { running: false },
      onLogFilterChange: () => undefined,
      onShutdownRequested: () => undefined,
    },
    { loopbackOnly: () => loopbackOnly },
  )
  app = built.app
  await app.ready()
  return { app, endpoints: built.endpoints }
}

afterEach(async () => {
  await app?.close()
  app = undefined
  shutdowns.length = 0
})

describe('admin app: routing', () => {
  it('answers an unknown path with 404 listing every endpoint', async () => {
    const { app, endpoints } = await build()
    const res = await app.inject({ url: '/nope', headers: { host: '127.0.0.1:15000' } })
    expect(res.statusCode).toBe(404)
    const body = res.json() as { error: string; endpoints: Array<{ path: string }> }
    expect(body.error).toBe('not_found')
    expect(body.endpoints.map((e) => e.path)).toEqual(endpoints.map((e) => e.path))
    expect(body.endpoints.map((e) => e.path)).toContain('/quitquitquit')
  })

  it('answers a known path with a wrong method 405, naming the methods in Allow', async () => {
    const { app } = await build()
    const res = await app.inject({ method: 'GET', url: '/quitquitquit' })
    expect(res.statusCode).toBe(405)
    expect(res.headers.allow).toBe('POST')
    expect(res.body).toContain('use POST')
    expect(shutdowns).toEqual([])
    const del = await app.inject({ method: 'DELETE', url: '/config_dump' })
    expect(del.statusCode).toBe(405)
    expect(del.headers.allow).toBe('GET, HEAD')
  })

  it('answers HEAD on a document but never on a stream it would start', async () => {
    const { app } = await build()
    const head = await app.inject({ method: 'HEAD', url: '/memory' })
    expect(head.statusCode).toBe(200)
    expect(head.body).toBe('')
    const trace = await app.inject({ method: 'HEAD', url: '/debug/trace' })
    expect(trace.statusCode).toBe(405)
    expect(trace.headers.allow).toBe('GET')
  })

  it('redirects / to the UI page', async () => {
    const { app } = await build()
    const res = await app.inject({ url: '/' })
    expect(res.statusCode).toBe(302)
    expect(res.headers.location).toBe('/ui')
  })

  it('shuts down on POST /quitquitquit once the answer is out, ignoring any body', async () => {
    const { app } = await build()
    const res = await app.inject({
      method: 'POST',
      url: '/quitquitquit',
      headers: { 'content-type': 'application/x-whatever' },
      payload: 'ignored',
    })
    expect(res.statusCode).toBe(200)
    expect(res.body).toContain('shutting down')
    expect(shutdowns).toEqual(['quitquitquit'])
  })
})

describe('admin app: browser guard', () => {
  it('refuses a request with a foreign Origin before any handler runs (cross-site POST)', async () => {
    const { app } = await build()
    const res = await app.inject({
      method: 'POST',
      url: '/quitquitquit',
      headers: { origin: 'https://evil.example', host: '127.0.0.1:15000' },
    })
    expect(res.statusCode).toBe(403)
    expect(res.body).toContain('cross-origin request from https://evil.example refused')
    expect(shutdowns).toEqual([])
  })

  it('refuses a non-loopback Host on a loopback bind (DNS rebinding), and not otherwise', async () => {
    const { app } = await build()
    const rebind = await app.inject({
      url: '/config_dump',
      headers: { host: 'evil.example:15000' },
    })
    expect(rebind.statusCode).toBe(403)
    expect(rebind.body).toContain('answers loopback names only')
    for (const host of ['localhost:15000', '127.0.0.1:15000', '[::1]:15000', 'gw.localhost']) {
      const ok = await app.inject({ url: '/memory', headers: { host } })
      expect(ok.statusCode, host).toBe(200)
    }
    await app.close()
    const open = await build(undefined, false)
    const any = await open.app.inject({ url: '/memory', headers: { host: 'gw.internal:15000' } })
    expect(any.statusCode).toBe(200)
  })
})

describe('admin app: browser guard (docs/design/hardening.md)', () => {
  it('refuses an Origin with the right host but another scheme (the admin speaks http only)', async () => {
    const { app } = await build()
    const res = await app.inject({
      method: 'POST',
      url: '/quitquitquit',
      headers: { origin: 'https://127.0.0.1:15000', host: '127.0.0.1:15000' },
    })
    expect(res.statusCode).toBe(403)
    expect(res.body).toContain('cross-origin request from https://127.0.0.1:15000 refused')
    expect(shutdowns).toEqual([])
    const same = await app.inject({
      url: '/memory',
      headers: { origin: 'http://127.0.0.1:15000', host: '127.0.0.1:15000' },
    })
    expect(same.statusCode).toBe(200)
  })

  for (const site of ['cross-site', 'same-site']) {
    it(`refuses Sec-Fetch-Site: ${site} without Origin on every endpoint but the UI's OAuth callback page, before any handler runs`, async () => {
      const { app, endpoints } = await build()
      const admitted: string[] = []
      for (const e of endpoints) {
        for (const method of e.methods) {
          const res = await app.inject({
            method: method as 'GET',
            url: e.path,
            headers: { host: '127.0.0.1:15000', 'sec-fetch-site': site },
          })
          if (res.statusCode !== 403) admitted.push(`${method} ${e.path}`)
          else expect(res.body).toContain(`Sec-Fetch-Site: ${site}`)
        }
      }
      // The authorization server sends the browser back to the debugger's redirect URI from
      // another site: that static page, which reveals and changes nothing, is the one exception.
      expect(admitted).toEqual(['GET /ui/callback'])
      expect(shutdowns).toEqual([])
    })
  }

  it('accepts Sec-Fetch-Site same-origin and none (the address typed in the browser)', async () => {
    const { app } = await build()
    for (const site of ['same-origin', 'none']) {
      const res = await app.inject({
        url: '/memory',
        headers: { host: '127.0.0.1:15000', 'sec-fetch-site': site },
      })
      expect(res.statusCode, site).toBe(200)
    }
  })

  it('judges the authority of an absolute-form target, not the Host header (RFC 9112 §3.2.2)', async () => {
    const { app } = await build()
    await app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = app.server.address() as AddressInfo
    const raw = (target: string, extra = '') =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () =>
          socket.write(
            `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${extra}Connection: close\r\n\r\n`,
          ),
        )
        let text = ''
        socket.on('data', (c) => (text += c))
        socket.on('end', () => resolve(text))
        socket.on('error', reject)
      })
    const rebound = await raw(`http://evil.example:${port}/memory`)
    expect(rebound).toMatch(/^HTTP\/1\.1 403/)
    expect(rebound).toContain('Host "evil.example')
    const foreignScheme = await raw(
      `http://127.0.0.1:${port}/memory`,
      `Origin: http://evil.example:${port}\r\n`,
    )
    expect(foreignScheme).toMatch(/^HTTP\/1\.1 403/)
    expect(await raw(`http://127.0.0.1:${port}/memory`)).toMatch(/^HTTP\/1\.1 200/)
  })
})

describe('admin app: /logging', () => {
  it('keeps the current level when a POST names an invalid one', async () => {
    const logging = createLogging({ filter: 'info' })
    const { app } = await build(fakeContext({ logging }))
    const bad = await app.inject({ method: 'POST', url: '/logging?level=verbose' })
    expect(bad.statusCode).toBe(400)
    expect(bad.body).toContain('the log level stays info')
    expect(logging.filter()).toBe('info')
    const missing = await app.inject({ method: 'POST', url: '/logging' })
    expect(missing.statusCode).toBe(400)
    expect(missing.body).toContain('missing query parameter "level"')
    const good = await app.inject({ method: 'POST', url: '/logging?level=debug' })
    expect(good.body).toBe('current log level is debug\n')
    expect(logging.filter()).toBe('debug')
  })
})

describe('admin app: errors', () => {
  it('answers a failing endpoint with one JSON 500 and logs it', async () => {
    const ctx = fakeContext()
    const { app } = await build({
      ...ctx,
      config: () => {
        throw new Error('config unavailable')
      },
    })
    const res = await app.inject({ url: '/config_dump' })
    expect(res.statusCode).toBe(500)
    expect(res.json()).toEqual({ error: 'internal', message: 'config unavailable' })
  })
})
