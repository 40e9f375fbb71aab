/**
 * docs/design/hardening.md: no upstream behaviour may crash the gateway. The gateway runs as its own
 * process (through tsx, from source) and meets a backend that fails in every way it can — reset,
 * garbage, stalls, huge headers and bodies, cut mid-body, compressed or mislabelled bodies — at
 * every stage (before the headers, in a body passed through, in a list the MCP policy filters as
 * JSON, in a filtered event stream), on a route without a policy and on one with
 * `mcpAuthorization`. After each case the process must still run and answer the next request,
 * and no answer on the filtered route may carry the hidden tool.
 */
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { type GatehouseProcess, startGatehouseProcess } from '@gatehouse/support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const HIDDEN = 'secret-tool'
const LIST = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }, { name: HIDDEN }] },
})
const LIST_REQUEST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
const HUGE = 9 * 1024 * 1024
/** JSON.parse reads it; JSON.stringify overflows the stack on it. */
const DEEP = `${'['.repeat(3_000_000)}${']'.repeat(3_000_000)}`
const SSE = { 'content-type': 'text/event-stream' }
const JSON_TYPE = { 'content-type': 'application/json' }

type Fault = (
  req: import('node:http').IncomingMessage,
  res: import('node:http').ServerResponse,
) => void

/** Every way the backend misbehaves, by stage. */
const FAULTS: Record<string, Fault> = {
  // Before the response headers.
  'headers: reset': (req) => req.socket.destroy(),
  'headers: garbage': (req) => req.socket.end('\u0000\u00ffnot http at all\r\n\r\n'),
  'headers: bad status line': (req) => req.socket.end('HTTP/1.1 abc\r\n\r\n'),
  'headers: slow': () => {},
  'headers: huge': (_req, res) => {
    res.writeHead(200, { ...JSON_TYPE, 'x-huge': 'a'.repeat(200_000) })
    res.end(LIST)
  },
  'headers: invalid content-length': (req) =>
    req.socket.end(
      'HTTP/1.1 200 OK\r\nContent-Length: -5\r\nContent-Type: application/json\r\n\r\n{}',
    ),
  // In the body.
  'body: cut mid-body': (_req, res) => {
    res.writeHead(200, { ...JSON_TYPE, 'content-length': String(LIST.length + 100) })
    res.write(LIST.slice(0, 30), () => res.socket?.destroy())
  },
  'body: stalls': (_req, res) => {
    res.writeHead(200, JSON_TYPE)
    res.write(LIST.slice(0, 30))
  },
  'body: gzip': (_req, res) => {
    res.writeHead(200, { ...JSON_TYPE, 'content-encoding': 'gzip' })
    res.end(gzipSync(LIST))
  },
  'body: br': (_req, res) => {
    res.writeHead(200, { ...JSON_TYPE, 'content-encoding': 'br' })
    res.end(brotliCompressSync(LIST))
  },
  'body: gzip that is not gzip': (_req, res) => {
    res.writeHead(200, { ...JSON_TYPE, 'content-encoding': 'gzip' })
    res.end(LIST)
  },
  'body: unknown encoding': (_req, res) => {
    res.writeHead(200, { ...JSON_TYPE, 'content-encoding': 'x-custom' })
    res.end(LIST)
  },
  'body: garbage': (_req, res) => {
    res.writeHead(200, JSON_TYPE)
    res.end(Buffer.from([0, 0xff, 0xfe, 0x7b, 0x22]))
  },
  'body: text/plain list': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' })
    res.end(LIST)
  },
  'body: no content type': (_req, res) => {
    res.removeHeader('content-type')
    res.end(LIST)
  },
  'body: huge': (_req, res) => {
    res.writeHead(200, JSON_TYPE)
    res.end(
      `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"${HIDDEN}","x":"${'a'.repeat(HUGE)}"}]}}`,
    )
  },
  'body: nested too deep to re-serialize': (_req, res) => {
    res.writeHead(200, JSON_TYPE)
    res.end(`{"jsonrpc":"2.0","id":1,"result":{"tools":[]},"x":${DEEP}}`)
  },
  // In an event stream.
  'sse: cut mid-event': (_req, res) => {
    res.writeHead(200, SSE)
    res.write(`data: ${LIST.slice(0, 30)}`, () => res.socket?.destroy())
  },
  'sse: gzip': (_req, res) => {
    res.writeHead(200, { ...SSE, 'content-encoding': 'gzip' })
    res.end(gzipSync(`event: message\ndata: ${LIST}\n\n`))
  },
  'sse: garbage': (_req, res) => {
    res.writeHead(200, SSE)
    res.end(`data: }{\n\n\u0000\u00ff\r\r\n\ndata: ${LIST}\n\n`)
  },
  'sse: huge event': (_req, res) => {
    res.writeHead(200, SSE)
    res.end(`data: ${'a'.repeat(HUGE)}`)
  },
  'sse: nested too deep to re-serialize': (_req, res) => {
    res.writeHead(200, SSE)
    res.end(`data: {"jsonrpc":"2.0","id":1,"result":{"tools":[]},"x":${DEEP}}\n\n`)
  },
  'sse: gzip, nested too deep to re-serialize': (_req, res) => {
    res.writeHead(200, { ...SSE, 'content-encoding': 'gzip' })
    res.end(gzipSync(`data: {"jsonrpc":"2.0","id":1,"result":{"tools":[]},"x":${DEEP}}\n\n`))
  },
  'sse: stalls': (_req, res) => {
    res.writeHead(200, SSE)
    res.write(': open\n\n')
  },
}

let backend: Server
let gatehouse: GatehouseProcess
let port: number

async function startBackend(): Promise<number> {
  backend = createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url ?? '/', 'http://x').searchParams.get('f') ?? '')
    req.resume()
    req.on('end', () => {
      const fault = FAULTS[name]
      if (fault) fault(req, res)
      else res.writeHead(200, JSON_TYPE).end(LIST)
    })
  })
  await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r))
  return (backend.address() as AddressInfo).port
}

beforeAll(async () => {
  const backendPort = await startBackend()
  const rule = (value: string) => ({
    matches: [{ path: { type: 'PathPrefix', value } }],
    backendRefs: [{ name: 'backend' }],
  })
  gatehouse = await startGatehouseProcess({
    backends: {
      backend: {
        static: { host: '127.0.0.1', port: backendPort },
        timeouts: { response: '1s' },
      },
    },
    // Public on purpose: the faults are the backend's, not the client's.
    routes: {
      plain: { rules: [rule('/plain')], allowUnauthenticated: true },
      mcp: { rules: [rule('/mcp')], allowUnauthenticated: true },
    },
    policies: {
      tools: {
        targetRefs: [{ name: 'mcp' }],
        traffic: { mcpAuthorization: { rules: [{ deny: `mcp.tool.name == "${HIDDEN}"` }] } },
      },
    },
  })
  port = gatehouse.port
}, 40_000)

afterAll(async () => {
  await gatehouse?.stop('SIGKILL')
  backend?.closeAllConnections()
  await new Promise((r) => backend?.close(r))
})

/**
 * One exchange through the gateway: the status (0 when the connection failed) and what arrived
 * of the body before it ended, was cut, or `abortAfterMs` passed since the headers came.
 */
function exchange(
  path: string,
  options: { method: string; accept?: string; body?: string; abortAfterMs?: number },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    let status = 0
    let body = ''
    const done = () => resolve({ status, body })
    const headers: Record<string, string> = {
      accept: options.accept ?? 'application/json, text/event-stream',
      'content-type': 'application/json',
    }
    const req = request(
      { host: '127.0.0.1', port, path, method: options.method, headers, agent: false },
      (res) => {
        status = res.statusCode ?? 0
        res.setEncoding('latin1')
        res.on('data', (c) => (body += c))
        res.on('error', () => {})
        res.on('close', done)
      },
    )
    // A client that gives up on a stalled answer (before or after its headers).
    if (options.abortAfterMs !== undefined) setTimeout(() => req.destroy(), options.abortAfterMs)
    req.setTimeout(20_000, () => req.destroy())
    req.on('error', () => (status === 0 ? done() : undefined))
    req.end(options.body)
  })
}

/** Whether the gateway process still runs and answers an ordinary request with 200. */
async function stillServing(): Promise<void> {
  const next = await exchange('/plain?f=ok', { method: 'POST', body: LIST_REQUEST })
  expect(
    gatehouse.child.exitCode,
    `the gateway exited:\n${gatehouse.output().slice(-2000)}`,
  ).toBeNull()
  expect(next.status).toBe(200)
}

const STAGES = [
  { name: 'passed through (no policy)', path: '/plain', method: 'POST', filtered: false },
  { name: 'a filtered tools/list (POST)', path: '/mcp', method: 'POST', filtered: true },
  { name: 'a filtered server stream (GET)', path: '/mcp', method: 'GET', filtered: true },
] as const

describe('the gateway process under a failing backend', () => {
  for (const stage of STAGES) {
    for (const fault of Object.keys(FAULTS)) {
      it(`stays up and answers the next request: ${fault}, ${stage.name}`, async () => {
        const answer = await exchange(`${stage.path}?f=${encodeURIComponent(fault)}`, {
          method: stage.method,
          ...(stage.method === 'POST' ? { body: LIST_REQUEST } : { accept: 'text/event-stream' }),
          ...(/stalls|slow/.test(fault) ? { abortAfterMs: 300 } : {}),
        })
        if (stage.filtered) expect(answer.body).not.toContain(HIDDEN)
        await stillServing()
      }, 30_000)
    }
  }
})
