import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { simpleConfig, startTestGatehouse, type TestGatehouse } from '../helpers.js'

type Handler = (req: IncomingMessage, res: ServerResponse) => void

async function backend(handler: Handler): Promise<{ server: Server; port: number }> {
  const server = createServer(handler)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { server, port: (server.address() as AddressInfo).port }
}

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.()
})

async function proxyTo(
  handler: Handler,
  extra: Parameters<typeof simpleConfig>[1] = {},
): Promise<TestGatehouse> {
  const b = await backend(handler)
  cleanups.push(() => new Promise((r) => b.server.close(r)))
  b.server.on('connection', (s) => cleanups.push(() => s.destroy()))
  const gh = await startTestGatehouse(simpleConfig(b.port, extra))
  cleanups.push(() => gh.stop())
  return gh
}

describe('forwarding', () => {
  it('forwards a POST body and the answer, with X-Forwarded-* set and hop-by-hop headers dropped', async () => {
    let seen: { headers: IncomingMessage['headers']; body: string } | undefined
    const gh = await proxyTo((req, res) => {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () => {
        seen = { headers: req.headers, body }
        res.writeHead(200, {
          'content-type': 'application/json',
          'mcp-session-id': 'sess-1',
          'keep-alive': 'timeout=5',
          'x-backend': 'yes',
        })
        res.end('{"jsonrpc":"2.0","id":1,"result":{}}')
      })
    })
    // The session is opened through the gateway first (session-binding.test.ts: a session the
    // gateway never saw issued is refused).
    const opened = await fetch(`${gh.url}/mcp`, { method: 'POST', body: '{}' })
    expect(opened.headers.get('mcp-session-id')).toBe('sess-1')
    await opened.text()
    const res = await fetch(`${gh.url}/mcp?x=1`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': 'sess-1',
        'mcp-protocol-version': '2025-06-18',
        'last-event-id': '7',
        te: 'trailers',
        'x-forwarded-for': '10.0.0.9',
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    })
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('{"jsonrpc":"2.0","id":1,"result":{}}')
    expect(res.headers.get('mcp-session-id')).toBe('sess-1')
    expect(res.headers.get('x-backend')).toBe('yes')
    expect(res.headers.get('keep-alive')).not.toBe('timeout=5')
    expect(seen?.body).toBe('{"jsonrpc":"2.0","id":1,"method":"ping"}')
    expect(seen?.headers['mcp-session-id']).toBe('sess-1')
    expect(seen?.headers['mcp-protocol-version']).toBe('2025-06-18')
    expect(seen?.headers['last-event-id']).toBe('7')
    expect(seen?.headers.accept).toBe('application/json, text/event-stream')
    expect(seen?.headers.te).toBeUndefined()
    expect(seen?.headers['x-forwarded-for']).toBe('10.0.0.9, 127.0.0.1')
    expect(seen?.headers['x-forwarded-proto']).toBe('http')
    expect(seen?.headers['x-forwarded-host']).toBe(new URL(gh.url).host)
  })

  it('forwards GET and DELETE with the session id', async () => {
    const methods: string[] = []
    const gh = await proxyTo((req, res) => {
      methods.push(`${req.method} ${req.headers['mcp-session-id']}`)
      if (req.method === 'POST') res.writeHead(200, { 'mcp-session-id': 's2' })
      else res.writeHead(req.method === 'DELETE' ? 200 : 405)
      res.end()
    })
    await (await fetch(`${gh.url}/mcp`, { method: 'POST', body: '{}' })).text()
    expect((await fetch(`${gh.url}/mcp`, { headers: { 'mcp-session-id': 's2' } })).status).toBe(405)
    expect(
      (await fetch(`${gh.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': 's2' } }))
        .status,
    ).toBe(200)
    expect(methods).toEqual(['POST undefined', 'GET s2', 'DELETE s2'])
    // The DELETE ended the session: the gateway holds no binding for it any more, so the id is
    // the backend's to answer (a real one says 404 for an ended session), and its non-2xx answer
    // binds nothing.
    expect((await fetch(`${gh.url}/mcp`, { headers: { 'mcp-session-id': 's2' } })).status).toBe(405)
    expect(methods).toEqual(['POST undefined', 'GET s2', 'DELETE s2', 'GET s2'])
  })

  it('delivers an SSE event to the client before the backend writes the next one', async () => {
    let clientGotFirst!: () => void
    const gotFirst = new Promise<void>((r) => (clientGotFirst = r))
    const timeline: string[] = []
    const gh = await proxyTo(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('event: message\ndata: one\n\n')
      timeline.push('backend wrote one')
      // Wait (bounded) for the client to see event one before finishing; a buffering proxy
      // would hold it back until the end, so the client would see it only after "backend ended".
      await Promise.race([gotFirst, new Promise((r) => setTimeout(r, 3000))])
      res.end('event: message\ndata: two\n\n')
      timeline.push('backend ended')
    })
    const res = await fetch(`${gh.url}/mcp`, { method: 'POST', body: '{}' })
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const reader = (res.body as ReadableStream<Uint8Array>).getReader()
    const first = await reader.read()
    timeline.push('client got one')
    clientGotFirst()
    expect(new TextDecoder().decode(first.value)).toContain('data: one')
    while (!(await reader.read()).done) {}
    expect(timeline).toEqual(['backend wrote one', 'client got one', 'backend ended'])
  })

  it('aborts the upstream request when the client disconnects', async () => {
    let upstreamClosed!: () => void
    const closed = new Promise<void>((r) => (upstreamClosed = r))
    const gh = await proxyTo((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(': open\n\n')
      res.on('close', () => upstreamClosed())
    })
    const ac = new AbortController()
    const res = await fetch(`${gh.url}/mcp`, { signal: ac.signal })
    const reader = (res.body as ReadableStream<Uint8Array>).getReader()
    await reader.read()
    ac.abort()
    await expect(closed).resolves.toBeUndefined()
  })

  it('aborts an event stream (its own connection) when the client disconnects', async () => {
    let upstreamClosed!: () => void
    const closed = new Promise<void>((r) => (upstreamClosed = r))
    const gh = await proxyTo((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(`: open for ${req.headers['last-event-id']}\n\n`)
      req.socket.on('close', () => upstreamClosed())
    })
    const ac = new AbortController()
    const res = await fetch(`${gh.url}/mcp`, {
      signal: ac.signal,
      headers: { accept: 'text/event-stream', 'last-event-id': 'ev-7' },
    })
    const reader = (res.body as ReadableStream<Uint8Array>).getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(': open for ev-7\n\n')
    ac.abort()
    await expect(closed).resolves.toBeUndefined()
  })

  it('aborts the upstream request when the client disconnects before the backend answered', async () => {
    let arrived!: () => void
    const arrivedP = new Promise<void>((r) => (arrived = r))
    let upstreamClosed!: () => void
    const closed = new Promise<void>((r) => (upstreamClosed = r))
    const gh = await proxyTo((_req, res) => {
      res.on('close', () => upstreamClosed())
      arrived()
    })
    const ac = new AbortController()
    const pending = fetch(`${gh.url}/mcp`, { method: 'POST', body: '{}', signal: ac.signal })
    await arrivedP
    ac.abort()
    await expect(pending).rejects.toThrow()
    await expect(closed).resolves.toBeUndefined()
  })

  it('answers 502 with a JSON body when the backend refuses the connection', async () => {
    const b = await backend(() => {})
    const port = (b.server.address() as AddressInfo).port
    await new Promise((r) => b.server.close(r))
    const gh = await startTestGatehouse(simpleConfig(port))
    cleanups.push(() => gh.stop())
    const res = await fetch(`${gh.url}/mcp`, { method: 'POST', body: '{}' })
    expect(res.status).toBe(502)
    const body = (await res.json()) as { error: string; error_description: string }
    expect(body.error).toBe('upstream_unavailable')
    expect(body.error_description).toContain('"backend"')
  })

  it('answers 504 with a JSON body when the backend does not answer in time', async () => {
    const gh = await proxyTo(() => {}, { timeouts: { response: '200ms' } })
    const res = await fetch(`${gh.url}/mcp`, { method: 'POST', body: '{}' })
    expect(res.status).toBe(504)
    expect(((await res.json()) as { error: string }).error).toBe('upstream_timeout')
  })

  it('answers 404 with a JSON body when no route matches, and matches whole path elements', async () => {
    const gh = await proxyTo((_req, res) => res.end('ok'))
    for (const path of ['/other', '/mcpx']) {
      const res = await fetch(`${gh.url}${path}`)
      expect(res.status).toBe(404)
      const body = (await res.json()) as { error: string; error_description: string }
      expect(body.error).toBe('not_found')
      expect(body.error_description).toContain(path)
    }
    expect((await fetch(`${gh.url}/mcp/sub`)).status).toBe(200)
  })
})
