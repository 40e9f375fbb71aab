import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compileCors } from '../../src/dataplane/cors.js'
import { simpleConfig, startTestGatehouse, type TestGatehouse } from '../helpers.js'

const SEED_CORS = {
  allowCredentials: true,
  allowHeaders: ['Origin', 'Authorization', 'Content-Type'],
  allowMethods: ['*'],
  allowOrigins: ['*'],
  exposeHeaders: ['Origin', 'Mcp-Session-Id'],
  maxAge: 86400,
}

describe('CORS filter on a route', () => {
  let gh: TestGatehouse
  let backendHits = 0
  const server = createServer((_req, res) => {
    backendHits++
    res.writeHead(200, { 'mcp-session-id': 's1' })
    res.end('ok')
  })
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    gh = await startTestGatehouse(
      simpleConfig((server.address() as AddressInfo).port, { cors: SEED_CORS }),
    )
  })
  afterAll(async () => {
    await gh.stop()
    server.close()
  })

  it('answers a preflight itself, reflecting origin and method because credentials are allowed', async () => {
    const before = backendHits
    const res = await fetch(`${gh.url}/mcp`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    })
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example')
    expect(res.headers.get('access-control-allow-credentials')).toBe('true')
    expect(res.headers.get('access-control-allow-methods')).toBe('POST')
    expect(res.headers.get('access-control-allow-headers')).toBe(
      'Origin, Authorization, Content-Type',
    )
    expect(res.headers.get('access-control-max-age')).toBe('86400')
    expect(res.headers.get('vary')).toContain('Origin')
    expect(backendHits).toBe(before)
  })

  it('adds CORS headers to a forwarded response and exposes Mcp-Session-Id', async () => {
    const res = await fetch(`${gh.url}/mcp`, { headers: { origin: 'https://app.example' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example')
    expect(res.headers.get('access-control-expose-headers')).toBe('Origin, Mcp-Session-Id')
    expect(res.headers.get('vary')).toBe('Origin')
  })

  it('takes only an OPTIONS with Origin and Access-Control-Request-Method for a preflight (Fetch standard §3.2.2)', async () => {
    const before = backendHits
    const res = await fetch(`${gh.url}/mcp`, {
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    })
    // A GET carrying the header is an actual request: forwarded, answered by the backend.
    expect(res.status).toBe(200)
    expect(backendHits).toBe(before + 1)
  })

  it('adds nothing when the request has no Origin', async () => {
    const res = await fetch(`${gh.url}/mcp`)
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('compileCors', () => {
  it('sends * without credentials, and only allowed origins from a list', () => {
    const open = compileCors({ ...SEED_CORS, allowCredentials: false })
    expect(open.response({ origin: 'https://a.example' })['access-control-allow-origin']).toBe('*')
    const list = compileCors({
      ...SEED_CORS,
      allowOrigins: ['https://a.example', 'https://*.b.example'],
    })
    expect(list.response({ origin: 'https://a.example' })['access-control-allow-origin']).toBe(
      'https://a.example',
    )
    expect(list.response({ origin: 'https://x.b.example' })['access-control-allow-origin']).toBe(
      'https://x.b.example',
    )
    expect(list.response({ origin: 'https://evil.example' })).toEqual({})
    expect(
      list.preflight({ origin: 'https://evil.example', 'access-control-request-method': 'POST' }),
    ).toEqual({})
  })

  it('adds extra exposed headers such as WWW-Authenticate on a denial', () => {
    const cors = compileCors(SEED_CORS)
    expect(
      cors.response({ origin: 'https://a.example' }, ['WWW-Authenticate'])[
        'access-control-expose-headers'
      ],
    ).toBe('Origin, Mcp-Session-Id, WWW-Authenticate')
  })
})
