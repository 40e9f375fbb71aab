/**
 * The listener's limits (docs/reliability.md: slow headers and bodies, header size, connections) and
 * the JSON body of what it answers itself (item 9: bad bytes, 431, 408, 405, 503 while draining).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { type AddressInfo, connect } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import type { GatehouseConfigInput } from '../../src/config/schema.js'
import { simpleConfig, startTestGatehouse, type TestGatehouse } from '../helpers.js'
import { eventually, openStreams, rawRequest } from '../reliability/helpers.js'

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.()
})

type Limits = NonNullable<NonNullable<GatehouseConfigInput['gateways'][string]>['limits']>

async function gateway(
  limits: Limits,
  handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end('ok'),
): Promise<{ gh: TestGatehouse; port: number; backend: Server }> {
  const backend = createServer(handler)
  await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r))
  cleanups.push(() => new Promise((r) => backend.close(r)))
  cleanups.push(() => backend.closeAllConnections())
  const config = simpleConfig((backend.address() as AddressInfo).port)
  const gw = config.gateways.default
  if (gw && Object.keys(limits).length > 0) gw.limits = limits
  const gh = await startTestGatehouse(config)
  cleanups.push(() => gh.stop())
  return { gh, port: Number(new URL(gh.url).port), backend }
}

const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

function jsonError(body: string): { error: string; error_description: string } {
  return JSON.parse(body)
}

describe('listener limits', () => {
  it('answers 408 with a JSON body and closes when headers trickle past headersTimeout', async () => {
    const { port } = await gateway({ headersTimeout: '300ms', requestTimeout: '5s' })
    const res = await rawRequest(port, ['GET /mcp HTTP/1.1\r\nHost: a\r\n', () => wait(60_000)])
    expect(res.status).toBe(408)
    expect(res.headers.connection).toBe('close')
    expect(jsonError(res.body).error).toBe('request_timeout')
  })

  it('answers 408 when a forwarded body trickles past requestTimeout, and aborts the upstream request', async () => {
    let upstreamClosed = false
    const { port } = await gateway({ headersTimeout: '300ms', requestTimeout: '600ms' }, (req) => {
      req.resume()
      req.on('close', () => (upstreamClosed = true))
    })
    const res = await rawRequest(port, [
      'POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n0123456789',
      () => wait(60_000),
    ])
    expect(res.status).toBe(408)
    expect(jsonError(res.body).error).toBe('request_timeout')
    await eventually(() => upstreamClosed, 'the upstream request was aborted')
  })

  it('does not cut an event stream that lives longer than requestTimeout', async () => {
    let later!: (text: string) => void
    const { gh } = await gateway(
      { headersTimeout: '200ms', requestTimeout: '300ms' },
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.write(': open\n\n')
        later = (text) => res.write(text)
      },
    )
    const res = await fetch(`${gh.url}/mcp`, { headers: { accept: 'text/event-stream' } })
    const reader = (res.body as ReadableStream<Uint8Array>).getReader()
    await reader.read()
    await wait(1200) // four times requestTimeout, several deadline checks
    later('data: still here\n\n')
    const { value } = await reader.read()
    expect(new TextDecoder().decode(value)).toContain('still here')
    await reader.cancel()
  })

  it('answers 431 with a JSON body to headers larger than maxHeaderSize', async () => {
    const { port } = await gateway({ maxHeaderSize: 1024 })
    const res = await rawRequest(port, [
      `GET /mcp HTTP/1.1\r\nHost: a\r\nX-Big: ${'x'.repeat(2048)}\r\n\r\n`,
    ])
    expect(res.status).toBe(431)
    expect(jsonError(res.body).error).toBe('request_header_fields_too_large')
  })

  it('closes connections beyond maxConnections, logs it, and takes new ones once some closed', async () => {
    const { gh } = await gateway({ maxConnections: 2 }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(': open\n\n')
    })
    const streams = await openStreams(`${gh.url}/mcp`, 2)
    await expect(fetch(`${gh.url}/mcp`, { signal: AbortSignal.timeout(5000) })).rejects.toThrow()
    expect(gh.logs.some((l) => String(l.msg).includes('limits.maxConnections (2) reached'))).toBe(
      true,
    )
    for (const s of streams) s.abort()
    await eventually(async () => {
      const r = await fetch(`${gh.url}/mcp`, { headers: { accept: 'application/json' } }).catch(
        () => undefined,
      )
      await r?.body?.cancel()
      return r?.status === 200
    }, 'a new connection is served')
  })

  it('rejects limits that cannot work, naming the field', async () => {
    await expect(gateway({ headersTimeout: '2m', requestTimeout: '1m' })).rejects.toThrow(
      /gateways\.default\.limits\.headersTimeout: headersTimeout \(2m\) must not exceed requestTimeout/,
    )
  })
})

describe('answers the listener gives itself', () => {
  const probes: Array<[string, string, number, string]> = [
    ['bytes that are not HTTP', 'HELLO\r\n\r\n', 400, 'bad_request'],
    [
      'a bad header line',
      'GET /mcp HTTP/1.1\r\nHost: a\r\nBad Header: x\r\n\r\n',
      400,
      'bad_request',
    ],
    ['HTTP/1.1 without Host', 'GET /mcp HTTP/1.1\r\n\r\n', 400, 'bad_request'],
    ['two Host headers', 'GET /mcp HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n', 400, 'bad_request'],
    ['a malformed Host', 'GET /mcp HTTP/1.1\r\nHost: a b/c\r\n\r\n', 400, 'bad_request'],
    [
      'Content-Length with Transfer-Encoding (request smuggling)',
      'POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
      'bad_request',
    ],
    [
      'two different Content-Lengths',
      'POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!',
      400,
      'bad_request',
    ],
    ['TRACE', 'TRACE /mcp HTTP/1.1\r\nHost: a\r\n\r\n', 405, 'method_not_allowed'],
    ['CONNECT', 'CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n', 405, 'method_not_allowed'],
    ['asterisk-form', 'OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n', 400, 'invalid_path'],
  ]
  for (const [what, text, status, error] of probes) {
    it(`answers ${status} ${error} with a JSON body to ${what}`, async () => {
      const { port } = await gateway({})
      const res = await rawRequest(port, [text])
      expect(res.status).toBe(status)
      expect(res.headers['content-type']).toBe('application/json')
      expect(jsonError(res.body).error).toBe(error)
      if (status === 405) expect(res.headers.allow).toContain('POST')
    })
  }

  it('closes a connection as soon as its answer, started before draining, is done', async () => {
    let finish!: () => void
    const { gh, port } = await gateway({}, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '16' })
      res.write('started ')
      finish = () => res.end('and done')
    })
    // A keep-alive client that leaves its connection open after the answer.
    const socket = connect(port, '127.0.0.1')
    let raw = ''
    socket.on('data', (c) => (raw += c))
    const closedByGateway = new Promise<number>((r) => socket.on('close', () => r(Date.now())))
    socket.write('GET /mcp HTTP/1.1\r\nHost: a\r\n\r\n')
    await eventually(() => raw.includes('started '), 'the answer started')
    const stopped = gh.stop('test') // drainTimeout: 10s
    const started = Date.now()
    await wait(100)
    finish()
    const closedAt = await closedByGateway
    await stopped
    expect(raw).toMatch(/keep-alive/i)
    expect(raw.endsWith('started and done')).toBe(true)
    expect(closedAt - started).toBeLessThan(5000)
  })

  it('closes a connection that never sent a byte at once instead of holding the drain', async () => {
    const backend = createServer((_req, res) => res.end('ok'))
    await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r))
    cleanups.push(() => new Promise((r) => backend.close(r)))
    const config = simpleConfig((backend.address() as AddressInfo).port)
    // Were the connection held, the stop would last an hour and the test time out.
    config.config = { drainTimeout: '1h' }
    const gh = await startTestGatehouse(config)
    // A preconnected socket (a browser's, or one whose client aborted before writing).
    const socket = connect(Number(new URL(gh.url).port), '127.0.0.1')
    await new Promise<void>((r) => socket.once('connect', () => r()))
    const closedByGateway = new Promise<void>((r) => socket.once('close', () => r()))
    socket.on('error', () => {})
    // Connections are accepted in order: once a later one is answered, this one was taken.
    expect(await (await fetch(`${gh.url}/mcp`)).text()).toBe('ok')
    await gh.stop('test')
    await closedByGateway
    expect(socket.bytesWritten).toBe(0)
  })

  it('finishes in-flight requests while draining and answers 503 shutting_down to a request completed after', async () => {
    let release!: () => void
    let arrived!: () => void
    const inFlight = new Promise<void>((r) => (arrived = r))
    const { gh, port } = await gateway({}, (req, res) => {
      if (req.url === '/mcp/slow') {
        arrived()
        release = () => res.end('slow done')
      } else res.end('ok')
    })
    const slow = rawRequest(port, ['GET /mcp/slow HTTP/1.1\r\nHost: a\r\n\r\n'])
    await inFlight
    let finishHeaders!: () => void
    const late = rawRequest(port, [
      'GET /mcp HTTP/1.1\r\nHost: a\r\n',
      () => new Promise<void>((r) => (finishHeaders = r)),
      '\r\n',
    ])
    await wait(100) // the late request's first bytes are in
    const stopped = gh.stop('test')
    await eventually(
      () => gh.logs.some((l) => String(l.msg).startsWith('shutting down')),
      'draining',
    )
    finishHeaders()
    const refused = await late
    expect(refused.status).toBe(503)
    expect(refused.headers.connection).toBe('close')
    expect(jsonError(refused.body).error).toBe('shutting_down')
    release()
    const done = await slow
    expect(done.status).toBe(200)
    expect(done.body).toBe('slow done')
    expect(done.headers.connection).toBe('close')
    await stopped
  })
})
