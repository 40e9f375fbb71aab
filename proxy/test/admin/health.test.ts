/**
 * `GET /ready` and `GET /healthz` on the admin interface, and a gateway's `probePath`
 * (proxy/src/admin/health.ts, docs/admin-api.md "Health"), against the real mock-idp: readiness
 * follows the IdP's key set at start and when its refresh fails later. Each change is awaited on
 * the key set's refresh event (`gatehouse:jwks:refresh`), never on a timer.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { controlClient, type MockIdp, startMockIdp } from '@gatehouse/mock-idp'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type JwksRefreshMessage, jwksRefreshChannel } from '../../src/telemetry/channels.js'
import { authConfig } from '../auth/config.js'
import { startTestGatehouse, type TestGatehouse } from '../helpers.js'

let idp: MockIdp
let gh: TestGatehouse | undefined

beforeEach(async () => {
  idp = await startMockIdp()
})
afterEach(async () => {
  await gh?.stop()
  gh = undefined
  await idp.stop()
})

/** Resolves with the next JWKS fetch that ends with `ok`. */
function nextRefresh(ok: boolean): Promise<JwksRefreshMessage> {
  return new Promise((resolve) => {
    const listener = (message: unknown) => {
      const m = message as JwksRefreshMessage
      if (m.ok !== ok) return
      unsubscribe(jwksRefreshChannel.name, listener)
      resolve(m)
    }
    subscribe(jwksRefreshChannel.name, listener)
  })
}

async function start(backendPort = 1): Promise<TestGatehouse> {
  const config = authConfig({ idpPort: idp.port, backendPort, issuer: idp.issuer })
  const gateway = { ...config.gateways?.default, port: 3000, probePath: '/lb-health' }
  gh = await startTestGatehouse({
    ...config,
    gateways: { default: gateway },
    config: { adminAddr: '127.0.0.1:0' },
  })
  return gh
}

async function ready(g: TestGatehouse): Promise<{ status: number; reasons: string[] }> {
  const res = await fetch(`${g.adminUrl}/ready`)
  const body = (await res.json()) as { ready: boolean; reasons: string[] }
  expect(body.ready).toBe(res.status === 200)
  return { status: res.status, reasons: body.reasons }
}

async function probe(g: TestGatehouse): Promise<{ status: number; body: string }> {
  const res = await fetch(`${g.url}/lb-health`)
  return { status: res.status, body: await res.text() }
}

describe('admin /ready and /healthz', () => {
  it('goes 503 → 200 at start: not ready while the IdP serves no keys, ready once it does', async () => {
    await controlClient(idp.controlUrl).setFault({ endpoint: 'jwks', mode: 'error', status: 500 })
    const g = await start()
    const before = await ready(g)
    expect(before.status).toBe(503)
    expect(before.reasons).toEqual([expect.stringMatching(/^policy mcp-auth: JwksUnavailable: /)])
    expect(before.reasons[0]).toContain(`127.0.0.1:${idp.port}/oauth2/default/v1/keys`)
    expect(await probe(g)).toEqual({ status: 503, body: 'unavailable\n' })
    expect((await fetch(`${g.adminUrl}/healthz`)).status).toBe(200)

    const loaded = nextRefresh(true)
    await controlClient(idp.controlUrl).clearFaults()
    await loaded // the key set's retry after the failed first fetch
    expect(await ready(g)).toEqual({ status: 200, reasons: [] })
    expect(await probe(g)).toEqual({ status: 200, body: 'ok\n' })
  })

  it('goes 200 → 503 when a refresh of the keys fails, and tells why on the admin address only', async () => {
    const g = await start()
    expect(await ready(g)).toEqual({ status: 200, reasons: [] })

    // The IdP rotates its key and its key set fails from now on: the token with the new kid
    // makes the gateway fetch the keys again, and that refresh fails.
    const control = controlClient(idp.controlUrl)
    await control.rotateKeys()
    await control.setFault({ endpoint: 'jwks', mode: 'error', status: 500 })
    const { access_token } = await control.token({ sub: 'alice' })
    const failed = nextRefresh(false)
    const res = await fetch(`${g.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
      body: '{}',
    })
    expect(res.status).toBe(401)
    await failed

    const after = await ready(g)
    expect(after.status).toBe(503)
    expect(after.reasons).toEqual([
      expect.stringMatching(
        /^policy mcp-auth: JwksRefreshFailing: JWKS refresh failed at .*\/oauth2\/default\/v1\/keys: HTTP 500/,
      ),
    ])
    // The load balancer's probe says no more than that.
    expect(await probe(g)).toEqual({ status: 503, body: 'unavailable\n' })
    expect((await fetch(`${g.adminUrl}/healthz`)).status).toBe(200)
  })

  it('answers 503 while shutting down, as long as requests drain', async () => {
    // A backend that holds every request: the shutdown drains while one is in flight.
    const held = createServer()
    const arrived = once(held, 'request')
    held.listen(0, '127.0.0.1')
    await once(held, 'listening')
    const g = await start((held.address() as AddressInfo).port)
    expect((await ready(g)).status).toBe(200)
    const { access_token } = await controlClient(idp.controlUrl).token({ sub: 'alice' })
    const inFlight = fetch(`${g.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
      body: '{}',
    }).catch(() => undefined)
    await arrived
    const stopping = g.stop('test')
    const during = await ready(g)
    held.closeAllConnections()
    held.close()
    await Promise.all([stopping, inFlight])
    gh = undefined
    expect(during.status).toBe(503)
    expect(during.reasons).toEqual(['shutting down: draining in-flight requests'])
  })
})
