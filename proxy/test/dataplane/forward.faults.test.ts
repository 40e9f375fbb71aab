/**
 * Forwarding under faults (docs/reliability.md): the backend's budget of requests in flight,
 * slots given back after every kind of failure, an upload the backend refuses early,
 * `Expect: 100-continue`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { type AddressInfo, connect } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { simpleConfig, startTestGatehouse, type TestGatehouse } from '../helpers.js'
import { rawRequest } from '../reliability/helpers.js'

type Handler = (req: IncomingMessage, res: ServerResponse) => void

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.()
})

async function gatewayTo(
  handler: Handler,
  backend: { maxRequests?: number; response?: string } = {},
): Promise<{ gh: TestGatehouse; server: Server }> {
  const server = createServer(handler)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  cleanups.push(() => new Promise((r) => server.close(r)))
  cleanups.push(() => server.closeAllConnections())
  const config = simpleConfig((server.address() as AddressInfo).port, {
    timeouts: { response: backend.response ?? '30s' },
  })
  const b = config.backends?.backend
  if (b && backend.maxRequests) b.limits = { maxRequests: backend.maxRequests }
  const gh = await startTestGatehouse(config)
  cleanups.push(() => gh.stop())
  return { gh, server }
}

/** Reads and counts a request body, then answers with its size. */
function countBody(req: IncomingMessage, res: ServerResponse): void {
  let n = 0
  req.on('data', (c: Buffer) => (n += c.length))
  req.on('end', () => res.end(`got ${n}`))
}

describe('the backend budget (limits.maxRequests)', () => {
  it('answers 503 upstream_busy with a JSON body to a request still waiting past timeouts.response', async () => {
    const held: ServerResponse[] = []
    const { gh } = await gatewayTo(
      (req, res) => {
        if (req.url === '/mcp/hold') {
          res.writeHead(200, { 'content-type': 'text/plain' })
          res.write('holding')
          held.push(res)
        } else res.end('ok')
      },
      { maxRequests: 1, response: '300ms' },
    )
    const first = await fetch(`${gh.url}/mcp/hold`)
    const reader = (first.body as ReadableStream<Uint8Array>).getReader()
    await reader.read()
    const busy = await fetch(`${gh.url}/mcp`, { signal: AbortSignal.timeout(10_000) })
    expect(busy.status).toBe(503)
    expect(busy.headers.get('retry-after')).toBe('1')
    const body = (await busy.json()) as { error: string; error_description: string }
    expect(body.error).toBe('upstream_busy')
    expect(body.error_description).toContain('limits.maxRequests')
    held[0]?.end()
    while (!(await reader.read()).done) {}
    const after = await fetch(`${gh.url}/mcp`, { signal: AbortSignal.timeout(10_000) })
    expect(after.status).toBe(200)
  })

  it('gives its slot back after every kind of upstream failure, so the next request is served', async () => {
    const { gh } = await gatewayTo(
      (req, res) => {
        if (req.url === '/mcp/slow') return // never answers: 504
        if (req.url === '/mcp/reset') return req.socket.destroy() // 502
        if (req.url === '/mcp/break') {
          res.writeHead(200, { 'content-type': 'text/plain' })
          res.write('partial')
          setTimeout(() => req.socket.destroy(), 20)
          return
        }
        res.end('ok')
      },
      { maxRequests: 1, response: '300ms' },
    )
    const bound = { signal: AbortSignal.timeout(10_000) }
    expect((await fetch(`${gh.url}/mcp/slow`, bound)).status).toBe(504)
    expect((await fetch(`${gh.url}/mcp/reset`, bound)).status).toBe(502)
    await expect((await fetch(`${gh.url}/mcp/break`, bound)).text()).rejects.toThrow()
    const gone = new AbortController()
    const waiting = fetch(`${gh.url}/mcp/slow`, { signal: gone.signal }).catch(() => 'aborted')
    setTimeout(() => gone.abort(), 100)
    expect(await waiting).toBe('aborted')
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${gh.url}/mcp`, bound)
      expect(res.status).toBe(200)
      expect(await res.text()).toBe('ok')
    }
  })
})

describe('an upload the backend refuses before reading it', () => {
  const upload = Buffer.alloc(20 * 1024 * 1024, 0x61)

  for (const how of ['closes the connection', 'resets the connection'] as const) {
    it(`passes the backend's own 413 through when it ${how} (not 502)`, async () => {
      const { gh } = await gatewayTo((req, res) => {
        const close = how === 'closes the connection'
        res.writeHead(413, {
          'content-type': 'text/plain',
          ...(close ? { connection: 'close' } : {}),
        })
        res.end('too big for me', () => {
          if (!close) req.socket.destroy()
        })
      })
      const res = await fetch(`${gh.url}/mcp/upload`, {
        method: 'POST',
        body: upload,
        signal: AbortSignal.timeout(20_000),
      })
      expect(res.status).toBe(413)
      expect(await res.text()).toBe('too big for me')
    })
  }
})

describe('the client connection after an early answer', () => {
  it('stays usable: the rest of the refused upload is read and dropped, the next request served', async () => {
    const { gh } = await gatewayTo((req, res) => {
      if (req.url === '/mcp/upload') {
        res.writeHead(413, { 'content-type': 'text/plain', connection: 'close' })
        res.end('too big for me')
      } else res.end('next one served')
    })
    const size = 4 * 1024 * 1024
    const port = Number(new URL(gh.url).port)
    const socket = connect(port, '127.0.0.1')
    let raw = ''
    socket.on('data', (c) => (raw += c))
    await new Promise((r) => socket.once('connect', r))
    socket.write(`POST /mcp/upload HTTP/1.1\r\nHost: a\r\nContent-Length: ${size}\r\n\r\n`)
    socket.write(Buffer.alloc(size, 0x61))
    socket.write('GET /mcp/next HTTP/1.1\r\nHost: a\r\n\r\n')
    const deadline = Date.now() + 10_000
    while (!raw.includes('next one served') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20))
    }
    socket.destroy()
    expect(raw).toMatch(/^HTTP\/1\.1 413/)
    expect(raw).toContain('too big for me')
    expect(raw).toContain('next one served')
  })
})

describe('Expect: 100-continue', () => {
  const size = 2 * 1024 * 1024
  /** A curl-like upload: headers with Expect, the body only once 100 Continue came. */
  function curlUpload(port: number) {
    return rawRequest(port, [
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: ${size}\r\nExpect: 100-continue\r\n\r\n`,
      (socket) =>
        new Promise<void>((resolve) => {
          const onData = (c: Buffer) => {
            if (!c.toString('latin1').startsWith('HTTP/1.1 100')) return
            socket.off('data', onData)
            socket.write(Buffer.alloc(size, 0x62), () => resolve())
          }
          socket.on('data', onData)
        }),
    ])
  }

  it('sends 100 Continue, forwards the body without Expect, and frees the slot every time', async () => {
    const seen: Array<string | undefined> = []
    const { gh } = await gatewayTo(
      (req, res) => {
        seen.push(req.headers.expect)
        countBody(req, res)
      },
      { maxRequests: 1 },
    )
    const port = Number(new URL(gh.url).port)
    for (let i = 0; i < 5; i++) {
      const res = await curlUpload(port)
      expect(res.raw.startsWith('HTTP/1.1 100 Continue')).toBe(true)
      expect(res.status).toBe(200)
      expect(res.body).toBe(`got ${size}`)
    }
    expect(seen).toEqual([undefined, undefined, undefined, undefined, undefined])
  })

  it('answers 417 with a JSON body to an expectation it cannot meet', async () => {
    const { gh } = await gatewayTo((_req, res) => res.end('ok'))
    const res = await rawRequest(Number(new URL(gh.url).port), [
      'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nExpect: teapot\r\n\r\n',
    ])
    expect(res.status).toBe(417)
    expect(JSON.parse(res.body)).toMatchObject({ error: 'expectation_failed' })
  })
})
