/**
 * docs/design/hardening.md on the real command: every access-log line is redacted, and a client chooses
 * what goes into it — the path, without a token, and the tool name of a `tools/call`. The old JWT
 * regex backtracked quadratically on `eyJ` repeated: 15 KB paths slowed every request down, and a
 * tool named `"eyJ"` × 64,000 froze the process for 5.6 s (at the 4 MiB body limit, minutes).
 * Here the gateway runs as its own process; hostile requests and ordinary ones go together, and
 * every one must be answered (the requests allow a minute each: a frozen process fails them).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type GatehouseProcess, startGatehouseProcess } from '@gatehouse/support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { INITIALIZE } from './helpers.js'

let backend: Server
let gatehouse: GatehouseProcess
let base: string

beforeAll(async () => {
  backend = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"jsonrpc":"2.0","id":1,"result":{}}')
    })
  })
  await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r))
  gatehouse = await startGatehouseProcess({
    backends: {
      backend: { static: { host: '127.0.0.1', port: (backend.address() as AddressInfo).port } },
    },
    routes: {
      mcp: {
        rules: [
          {
            matches: [{ path: { type: 'PathPrefix', value: '/mcp' } }],
            backendRefs: [{ name: 'backend' }],
          },
        ],
        allowUnauthenticated: true,
      },
    },
    policies: {
      tools: {
        targetRefs: [{ name: 'mcp' }],
        traffic: { mcpAuthorization: { rules: ['mcp.tool.name == "echo"'] } },
      },
    },
  })
  base = `http://127.0.0.1:${gatehouse.port}`
}, 40_000)

afterAll(async () => {
  await gatehouse?.stop('SIGKILL')
  backend?.closeAllConnections()
  await new Promise((r) => backend?.close(r))
})

const post = (path: string, body: string) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body,
    signal: AbortSignal.timeout(60_000),
  })

describe('redaction of client-chosen log fields', () => {
  it('answers a 4 MiB tools/call named "eyJ"×N, 15 KB "eyJ" paths and ordinary requests alike', async () => {
    const name = 'eyJ'.repeat(1_398_000)
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name, arguments: {} },
    })
    expect(call.length).toBeLessThanOrEqual(4 * 1024 * 1024)
    const path = `/mcp/${'eyJ'.repeat(5000)}`
    const [denied, ...rest] = await Promise.all([
      post('/mcp', call),
      ...Array.from({ length: 8 }, () => post(path, INITIALIZE)),
      post('/mcp', INITIALIZE),
    ])
    // Denied as a tool the server does not have (the name is not "echo"); the body names it.
    expect(denied?.status).toBe(200)
    const answer = (await denied?.json()) as { error: { code: number } }
    expect(answer.error.code).toBe(-32602)
    for (const r of rest) expect(r.status).toBe(200)
    expect(gatehouse.child.exitCode).toBeNull()
    // The access log shows neither the 4 MiB name nor the 15 KB path whole.
    const lines = gatehouse.output().split('\n')
    expect(lines.every((l) => l.length < 300_000)).toBe(true)
  }, 120_000)
})
