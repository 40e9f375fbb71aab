/**
 * The read-only UI on a gateway (proxy/src/admin/ui/gateway-view.ts, `ui.gateway`) over real
 * HTTP on the demo stack: it serves the page, its files, names and conditions, and request sums;
 * nothing under its path returns a configuration value, a token or the trace unless
 * `ui.showTrace` allows the trace; it is read-only; and the gateway's routes are unaffected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startUiStack, type UiStack } from './app/ui-stack.js'

/** Every path the view answers, and some it must not. */
const PATHS = [
  '',
  '/',
  '/app.js',
  '/app.css',
  '/status.json',
  '/metrics.json',
  '/trace',
  '/config_dump',
  '/relay',
  '/callback',
  '/../config_dump',
  '/nope',
]

describe('read-only UI on a gateway (ui.gateway)', () => {
  let stack: UiStack
  let token: string
  let secrets: string[]
  beforeAll(async () => {
    stack = await startUiStack(
      (config) => {
        config.ui = { gateway: 'default' }
      },
      { browser: false },
    )
    const res = await fetch(`${stack.idp.orgUrl}/__control/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sub: 'alice' }),
    })
    token = ((await res.json()) as { access_token: string }).access_token
    // A request with a token, so that its trace and metrics exist.
    await fetch(`${stack.gateway}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    })
    // Configuration values of the demo: issuer, audience, client id, JWKS path, the rule, backend
    // and IdP addresses, the resource URL's port as the config states it.
    const idp = new URL(stack.idp.orgUrl)
    secrets = [
      stack.idp.issuer,
      'api://default',
      'gatehouse-demo-client',
      '/oauth2/default/v1/keys',
      'AI-Users',
      `${idp.host}`,
      `127.0.0.1:${stack.backend.port}`,
      'per-user-tool',
      'jwt.sub',
      token,
      token.slice(-24),
    ]
  }, 60_000)
  afterAll(async () => {
    await stack?.stop()
  })

  const base = () => `${stack.gateway}/gatehouse/ui`

  it('serves the page, its script and style, names and conditions, and request sums', async () => {
    const page = await fetch(base())
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(await page.text()).toContain('data-mode="gateway"')
    expect((await fetch(`${base()}/app.js`)).headers.get('content-type')).toContain('javascript')
    const status = (await (await fetch(`${base()}/status.json`)).json()) as {
      policies: Array<{ name: string; status: { conditions: Array<Record<string, string>> } }>
      backends: Array<Record<string, string>>
    }
    expect(status.policies.map((p) => p.name)).toEqual(['mcp-auth', 'mcp-tools'])
    expect(status.policies[0]?.status.conditions).toContainEqual({
      type: 'Programmed',
      status: 'True',
      reason: 'Programmed',
    })
    expect(status.backends).toEqual([{ name: 'mcp-backend' }, { name: 'idp' }])
    const metrics = (await (await fetch(`${base()}/metrics.json`)).json()) as { requests: number }
    expect(metrics.requests).toBeGreaterThanOrEqual(1)
  })

  it('returns no configuration value, token or trace under its path', async () => {
    for (const path of PATHS) {
      const res = await fetch(`${base()}${path}`)
      const body = await res.text()
      for (const secret of secrets) expect(body, `${path}: ${secret}`).not.toContain(secret)
      if (path === '/trace') expect(res.status).toBe(404)
    }
  })

  it('is read-only: anything but GET and HEAD is refused', async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const res = await fetch(`${base()}/status.json`, { method })
      expect(res.status, method).toBe(405)
      expect(res.headers.get('allow')).toBe('GET, HEAD')
    }
  })

  it("leaves the gateway's routes as they were", async () => {
    const res = await fetch(`${stack.gateway}/mcp`, { method: 'POST' })
    expect(res.status).toBe(401)
    expect((await fetch(`${stack.gateway}/gatehouse/uix`)).status).toBe(404)
  })

  it('streams the redacted trace only when ui.showTrace allows it, and never a token', async () => {
    const config = structuredClone(stack.config)
    config.ui = { gateway: 'default', showTrace: true }
    stack.write(config)
    expect((await stack.gatehouse.reload('api')).result).toBe('success')
    const abort = new AbortController()
    const res = await fetch(`${base()}/trace`, { signal: abort.signal })
    expect(res.status).toBe(200)
    const reader = (res.body as ReadableStream<Uint8Array>).getReader()
    await fetch(`${stack.gateway}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    })
    let text = ''
    while (!text.includes('event: request_finished')) {
      const { value, done } = await reader.read()
      if (done) break
      text += new TextDecoder().decode(value)
    }
    abort.abort()
    expect(text).toContain('event: authentication')
    expect(text).not.toContain(token.slice(-24))
  })
})
