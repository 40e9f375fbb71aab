/**
 * docs/reliability.md: paths that reach a protected backend without a token. The gateway carries
 * the protected `/mcp` route and, to the same backend, unprotected routes (`/healthz` exact and a
 * `/` catch-all), as deployments do. Every spelling of `/mcp` must be matched as `/mcp` (401
 * without a token) or refused (400); the backend must never get a request it reads as `/mcp`.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GatehouseConfigInput } from '../../src/config/schema.js'
import { authConfig } from '../auth/config.js'
import { startTinyIdp, type TinyIdp } from '../auth/tiny-idp.js'
import { startTestGatehouse, type TestGatehouse } from '../helpers.js'
import { rawRequest } from './helpers.js'

let idp: TinyIdp
let backend: Server
let gh: TestGatehouse
let port: number
const seen: Array<{ url: string; authorization: string | undefined }> = []

beforeAll(async () => {
  idp = await startTinyIdp()
  backend = createServer((req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization })
    req.resume()
    req.on('end', () => res.end('backend'))
  })
  await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r))
  const backendPort = (backend.address() as AddressInfo).port
  const config = authConfig({ idpPort: idp.port, backendPort, issuer: idp.issuer })
  const open = (type: 'Exact' | 'PathPrefix', value: string) => ({
    matches: [{ path: { type, value } }],
    backendRefs: [{ name: 'mcp-backend' }],
  })
  config.routes = {
    ...config.routes,
    // Public on purpose: the unprotected routes a bypass would reach.
    healthz: { rules: [open('Exact', '/healthz')], allowUnauthenticated: true },
    site: { rules: [open('PathPrefix', '/')], allowUnauthenticated: true },
  }
  gh = await startTestGatehouse(config as GatehouseConfigInput)
  port = Number(new URL(gh.url).port)
})
afterAll(async () => {
  await gh?.stop()
  backend?.closeAllConnections()
  await new Promise((r) => backend?.close(r))
  await idp?.stop()
})

/**
 * Whether a backend would read the target as the protected route: as a WHATWG URL parser does
 * (Express, most Node servers: dot segments, `%2e`, backslashes resolved), with unreserved
 * escapes and encoded slashes decoded (as many routers do), matched on whole path elements.
 */
function readAsMcp(url: string): boolean {
  const path = new URL(url, 'http://backend.internal').pathname.replace(
    /%(2f|5c|[46][1-9a-f]|[57][0-9a]|3[0-9]|2d|2e|5f|7e)/gi,
    (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)),
  )
  const resolved = new URL(path.replace(/\\/g, '/'), 'http://backend.internal').pathname
  return resolved === '/mcp' || resolved.startsWith('/mcp/')
}

const ATTACKS = [
  '/healthz/../mcp',
  '/healthz/..%2fmcp',
  '/healthz/%2e%2e/mcp',
  '/healthz/.%2E/mcp',
  '/./mcp',
  '/%2e/mcp',
  '/%2e%2e/mcp',
  '//mcp',
  '///mcp/../mcp',
  '/%6dcp',
  '/%6D%63%70',
  '/healthz\\..\\mcp',
  '/healthz%5c..%5cmcp',
  '/x/..;/mcp',
  '/%252e%252e/mcp',
  '/healthz/../mcp?x=1',
  'http://gateway.example/healthz/../mcp',
  'http://gateway.example//mcp',
]

describe('paths that spell a protected route', () => {
  for (const target of ATTACKS) {
    it(`never reaches the backend's /mcp without a token: ${target}`, async () => {
      const before = seen.length
      const res = await rawRequest(port, [`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`])
      expect([400, 401]).toContain(res.status)
      expect(JSON.parse(res.body).error).toMatch(/^(invalid_path|unauthorized)$/)
      const reached = seen.slice(before).filter((s) => readAsMcp(s.url))
      expect(reached).toEqual([])
    })
  }

  it('routes an absolute-form request line like origin-form (RFC 9112 §3.2.2) and forwards the normalised path', async () => {
    const denied = await rawRequest(port, [
      `GET http://127.0.0.1:${port}/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
    ])
    expect(denied.status).toBe(401)
    const token = await idp.sign()
    const before = seen.length
    const ok = await rawRequest(port, [
      `GET http://127.0.0.1:${port}/x/../mcp/./tools?y=%2e HTTP/1.1\r\nHost: other\r\nAuthorization: Bearer ${token}\r\n\r\n`,
    ])
    expect(ok.status).toBe(200)
    expect(seen.slice(before).map((s) => s.url)).toEqual(['/mcp/tools?y=%2e'])
  })

  it('still serves the unprotected routes, with paths normalised', async () => {
    const before = seen.length
    const res = await rawRequest(port, ['GET /healthz/x/.. HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'])
    expect(res.status).toBe(200)
    expect(seen.slice(before).map((s) => s.url)).toEqual(['/healthz/'])
  })

  it('refuses an upload to a protected route before the body is sent (no 100 Continue)', async () => {
    const res = await rawRequest(port, [
      'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1048576\r\nExpect: 100-continue\r\n\r\n',
    ])
    expect(res.status).toBe(401)
    expect(res.raw).not.toContain('100 Continue')
  })
})
