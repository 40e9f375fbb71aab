import { channel } from 'node:diagnostics_channel'
import type { IncomingMessage } from 'node:http'
import { Writable } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { jwksRefreshChannel } from '../../src/telemetry/channels.js'
import { createLogging } from '../../src/telemetry/logging.js'
import { BoundedLabel, Metrics, OTHER_LABEL } from '../../src/telemetry/metrics.js'
import { Telemetry } from '../../src/telemetry/telemetry.js'

const open: Metrics[] = []
afterEach(() => {
  for (const m of open.splice(0)) m.close()
})

function setup(filter = 'info') {
  const lines: Array<Record<string, unknown>> = []
  const destination = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l))
      cb()
    },
  })
  const metrics = new Metrics({ defaultMetrics: false, issuers: ['https://idp.example'] })
  open.push(metrics)
  const telemetry = new Telemetry({ metrics, logging: createLogging({ filter, destination }) })
  return { metrics, telemetry, lines }
}

const req = {
  method: 'POST',
  headers: { authorization: 'Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl' },
  socket: { remoteAddress: '127.0.0.1' },
} as unknown as IncomingMessage

const ROUTE = { route: 'mcp', rule: 0, match: { type: 'PathPrefix', value: '/mcp' } }

async function value(metrics: Metrics, name: string, labels: Record<string, string>) {
  const json = await metrics.registry.getSingleMetric(name)?.get()
  const hit = json?.values.find((v) =>
    Object.entries(labels).every(([k, l]) => String(v.labels[k]) === l),
  )
  return hit?.value
}

describe('Telemetry request observation', () => {
  it('counts a forwarded tool call and logs one line with subject and tool, never the token', async () => {
    const { metrics, telemetry, lines } = setup()
    const t = telemetry.observe(undefined, req, 'default', '/mcp')
    t.event('route_selected', {
      route: 'mcp',
      rule: 0,
      match: { type: 'PathPrefix', value: '/mcp' },
    })
    t.event('policies_applied', { policies: ['mcp-auth'], cors: false })
    t.event('authentication', {
      policy: 'mcp-auth',
      result: 'ok',
      issuer: 'https://idp.example',
      subject: 'alice',
      claims: {},
    })
    t.event('mcp_request', {
      batch: false,
      messages: [{ type: 'request', method: 'tools/call', id: 4, tool: 'echo' }],
    })
    t.event('backend_selected', { backend: 'mcp-backend', address: 'http://127.0.0.1:1' })
    t.event('backend_response', { status: 200, contentType: 'text/event-stream', durationMs: 12 })
    expect(await value(metrics, 'gatehouse_open_streams', { route: 'mcp' })).toBe(1)
    t.event('response', { status: 200 })
    t.finish({ status: 200, durationMs: 20, outcome: { policy: 'allowed' } })

    expect(
      await value(metrics, 'gatehouse_requests_total', {
        route: 'mcp',
        status: '200',
        outcome: 'allowed',
        method: 'POST',
      }),
    ).toBe(1)
    expect(
      await value(metrics, 'gatehouse_mcp_tool_calls_total', {
        tool: 'echo',
        outcome: 'forwarded',
      }),
    ).toBe(1)
    expect(await value(metrics, 'gatehouse_open_streams', { route: 'mcp' })).toBe(0)
    const text = await metrics.registry.metrics()
    expect(text).toContain(
      'gatehouse_upstream_duration_seconds_count{route="mcp",backend="mcp-backend"} 1',
    )

    const access = lines.filter((l) => l.module === 'proxy::access')
    expect(access).toHaveLength(1)
    expect(access[0]).toMatchObject({
      msg: 'request',
      gateway: 'default',
      route: 'mcp',
      method: 'POST',
      path: '/mcp',
      status: 200,
      outcome: 'allowed',
      backend: 'mcp-backend',
      upstreamMs: 12,
      subject: 'alice',
      mcp: { method: 'tools/call', id: 4, tool: 'echo' },
    })
    expect(JSON.stringify(lines)).not.toContain('eyJ')
  })

  it('records an authentication failure by reason', async () => {
    const { metrics, telemetry, lines } = setup()
    const t = telemetry.observe(undefined, req, 'default', '/mcp')
    t.event('route_selected', {
      route: 'mcp',
      rule: 0,
      match: { type: 'PathPrefix', value: '/mcp' },
    })
    t.event('policies_applied', { policies: ['mcp-auth'], cors: false })
    t.event('authentication', { policy: 'mcp-auth', result: 'failed', check: 'expired' })
    t.finish({
      status: 401,
      durationMs: 1,
      outcome: { policy: 'unauthenticated', authFailure: 'expired' },
    })
    expect(await value(metrics, 'gatehouse_auth_failures_total', { reason: 'expired' })).toBe(1)
    expect(
      await value(metrics, 'gatehouse_requests_total', {
        status: '401',
        outcome: 'unauthenticated',
      }),
    ).toBe(1)
    expect(lines.find((l) => l.module === 'proxy::access')).toMatchObject({
      authFailure: 'expired',
      outcome: 'unauthenticated',
    })
  })

  it('records denials, hidden list items and rate limiting', async () => {
    const { metrics, telemetry } = setup()
    const denied = telemetry.observe(undefined, req, 'default', '/mcp')
    denied.event('route_selected', ROUTE)
    denied.event('mcp_request', {
      batch: false,
      messages: [{ type: 'request', method: 'tools/call', id: 1, tool: 'fetch' }],
    })
    denied.event('mcp_authorization', {
      decisions: [{ method: 'tools/call', kind: 'tool', name: 'fetch', allowed: false }],
    })
    denied.finish({ status: 200, durationMs: 1, outcome: { policy: 'mcp_denied' } })
    expect(
      await value(metrics, 'gatehouse_mcp_tool_calls_total', { tool: 'fetch', outcome: 'denied' }),
    ).toBe(1)
    expect(await value(metrics, 'gatehouse_mcp_denials_total', { kind: 'tool' })).toBe(1)
    expect(await value(metrics, 'gatehouse_requests_total', { outcome: 'mcp_denied' })).toBe(1)

    const listed = telemetry.observe(undefined, req, 'default', '/mcp')
    listed.event('route_selected', ROUTE)
    listed.event('mcp_list_filtered', { kind: 'tool', hidden: 2 })
    listed.finish({ status: 200, durationMs: 1, outcome: { policy: 'allowed' } })
    expect(await value(metrics, 'gatehouse_mcp_list_items_hidden_total', { kind: 'tool' })).toBe(2)

    const limited = telemetry.observe(undefined, req, 'default', '/mcp')
    limited.event('route_selected', ROUTE)
    limited.event('mcp_request', {
      batch: false,
      messages: [{ type: 'request', method: 'tools/call', id: 1, tool: 'echo' }],
    })
    limited.event('rate_limit', {
      admitted: false,
      retryAfterSec: 1,
      limits: [{ name: 'calls', exceeded: true }],
    })
    limited.finish({ status: 429, durationMs: 1, outcome: { policy: 'rate_limited' } })
    expect(await value(metrics, 'gatehouse_rate_limited_total', { limit: 'calls' })).toBe(1)
    expect(
      await value(metrics, 'gatehouse_mcp_tool_calls_total', {
        tool: 'echo',
        outcome: 'rate_limited',
      }),
    ).toBe(1)
  })

  it('passes every event on to the /debug/trace watcher', () => {
    const { telemetry } = setup()
    const seen: string[] = []
    const t = telemetry.observe(
      {
        requestId: 'req-9',
        watched: true,
        event: (type) => seen.push(type),
        finish: () => seen.push('finish'),
      },
      req,
      'default',
      '/mcp',
    )
    t.event('route_selected', ROUTE)
    t.finish({ status: 200, durationMs: 1, outcome: { policy: 'allowed' } })
    expect(t.requestId).toBe('req-9')
    expect(t.watched).toBe(true)
    expect(seen).toEqual(['route_selected', 'finish'])
  })

  it('reads the outcome the pipeline gives, not the status', async () => {
    const { metrics, telemetry, lines } = setup()
    const t = telemetry.observe(undefined, req, 'default', '/mcp')
    t.event('route_selected', ROUTE)
    // A status that says nothing about authentication: the outcome alone decides.
    t.finish({
      status: 200,
      durationMs: 1,
      outcome: { policy: 'unauthenticated', authFailure: 'missing_token' },
    })
    expect(await value(metrics, 'gatehouse_auth_failures_total', { reason: 'missing_token' })).toBe(
      1,
    )
    expect(
      await value(metrics, 'gatehouse_requests_total', {
        status: '200',
        outcome: 'unauthenticated',
      }),
    ).toBe(1)
    expect(lines.find((l) => l.module === 'proxy::access')).toMatchObject({
      outcome: 'unauthenticated',
      authFailure: 'missing_token',
    })
  })

  it('redacts what a client chose in the access line: path, subject, MCP id and names, errors', () => {
    const { telemetry, lines } = setup()
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl'
    const t = telemetry.observe(undefined, req, 'default', `/mcp/${jwt}`)
    t.event('route_selected', ROUTE)
    t.event('authentication', {
      policy: 'p',
      result: 'ok',
      issuer: 'https://idp.example',
      subject: `Bearer ${jwt}`,
      claims: {},
    })
    t.event('mcp_request', {
      batch: true,
      messages: [
        { type: 'request', method: 'tools/call', id: jwt, tool: `Bearer ${jwt}` },
        { type: 'request', method: 'resources/read', id: 2, resource: 'file:///x?access_token=s3' },
      ],
    })
    t.event('mcp_authorization', {
      decisions: [{ method: 'tools/call', kind: 'tool', name: jwt, allowed: false }],
    })
    t.finish({ status: 200, durationMs: 1, outcome: { policy: 'mcp_denied' } })
    const t2 = telemetry.observe(undefined, req, 'default', '/mcp')
    t2.event('mcp_request', { error: `bad body near ${jwt}` })
    t2.finish({ status: 400, durationMs: 1, outcome: { policy: 'mcp_invalid' } })
    const access = lines.filter((l) => l.module === 'proxy::access')
    expect(access).toHaveLength(2)
    const text = JSON.stringify(access)
    for (const secret of ['eyJ', 'c2lnbmF0dXJl', 's3']) expect(text).not.toContain(secret)
    expect(access[0]).toMatchObject({
      path: '/mcp/[redacted]',
      subject: 'Bearer [redacted]',
      mcp: {
        batch: 2,
        messages: [
          { method: 'tools/call', id: '[redacted]', tool: 'Bearer [redacted]' },
          { method: 'resources/read', id: 2, resource: 'file:///x?access_token=[redacted]' },
        ],
      },
      denied: ['tool:[redacted]'],
    })
    expect(access[1]).toMatchObject({ mcpError: 'bad body near [redacted]' })
  })

  it('is not watched without a /debug/trace watcher', () => {
    const { telemetry } = setup()
    expect(telemetry.observe(undefined, req, 'default', '/mcp').watched).toBe(false)
  })

  it('writes no access line when proxy::access is off', () => {
    const { telemetry, lines } = setup('info,proxy::access=off')
    const t = telemetry.observe(undefined, req, 'default', '/mcp')
    t.finish({ status: 404, durationMs: 1, outcome: { policy: 'no_route' } })
    expect(lines).toEqual([])
  })
})

describe('Metrics', () => {
  it('counts JWKS refreshes of its own issuers, published on the diagnostics channel', async () => {
    const { metrics } = setup()
    channel(jwksRefreshChannel.name).publish({
      issuer: 'https://idp.example',
      reason: 'start',
      ok: true,
    })
    channel(jwksRefreshChannel.name).publish({
      issuer: 'https://idp.example',
      reason: 'interval',
      ok: false,
    })
    channel(jwksRefreshChannel.name).publish({
      issuer: 'https://other.example',
      reason: 'start',
      ok: true,
    })
    expect(await value(metrics, 'gatehouse_jwks_refreshes_total', { result: 'success' })).toBe(1)
    expect(await value(metrics, 'gatehouse_jwks_refreshes_total', { result: 'failure' })).toBe(1)
    expect(
      await value(metrics, 'gatehouse_jwks_refreshes_total', { issuer: 'https://other.example' }),
    ).toBeUndefined()
  })

  it('caps client-chosen label values', () => {
    const label = new BoundedLabel(2)
    expect([label.of('a'), label.of('b'), label.of('c'), label.of('a')]).toEqual([
      'a',
      'b',
      OTHER_LABEL,
      'a',
    ])
    const { metrics } = setup()
    expect(metrics.methodLabel('tools/call')).toBe('tools/call')
    expect(metrics.methodLabel('x/invented')).toBe('other')
  })
})
