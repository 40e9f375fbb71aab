/**
 * The auth layer's control-plane fetches (proxy/src/auth/fetch.ts) against a real HTTP server:
 * what is sent, the document size bound, the deadline, and the `Cache-Control: max-age` reading
 * (RFC 9111 §5.2.2.1) that sets how long a key set or discovery document is kept.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { describeError, maxAgeMs, requestUpstream } from '../../src/auth/fetch.js'
import { BackendConfigSchema } from '../../src/config/schema.js'
import { createUpstream, type Upstream } from '../../src/http/upstream.js'

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.()
})

interface Seen {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
}

/** A server answering with `handler`, and an upstream (the backend pool) in front of it. */
async function serve(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  timeouts?: Record<string, string>,
): Promise<{ upstream: Upstream; seen: Seen[] }> {
  const seen: Seen[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => {
      body += c.toString()
    })
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body })
      handler(req, res)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  cleanups.push(() => new Promise((r) => server.close(r)))
  cleanups.push(() => server.closeAllConnections())
  const { port } = server.address() as AddressInfo
  const upstream = createUpstream(
    BackendConfigSchema.parse({
      static: { host: '127.0.0.1', port },
      ...(timeouts ? { timeouts } : {}),
    }),
  )
  cleanups.push(() => upstream.close())
  return { upstream, seen }
}

describe('requestUpstream', () => {
  it('sends a GET asking for JSON, and returns status, headers and the whole body', async () => {
    const { upstream, seen } = await serve((_req, res) => {
      res.writeHead(203, { 'x-idp': 'yes', 'content-type': 'application/json' })
      res.end('{"keys":[]}')
    })
    const res = await requestUpstream(upstream, '/oauth2/default/v1/keys')
    expect(res.status).toBe(203)
    expect(res.headers['x-idp']).toBe('yes')
    expect(res.body.toString()).toBe('{"keys":[]}')
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/oauth2/default/v1/keys', body: '' })
    expect(seen[0]?.headers.accept).toBe('application/json')
  })

  it('sends the method, headers and body it is given (a proxied registration)', async () => {
    const { upstream, seen } = await serve((_req, res) => res.end('{}'))
    await requestUpstream(upstream, '/oauth2/v1/clients', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'SSWS t' },
      body: '{"client_name":"x"}',
    })
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/oauth2/v1/clients',
      body: '{"client_name":"x"}',
    })
    expect(seen[0]?.headers['content-type']).toBe('application/json')
    expect(seen[0]?.headers.authorization).toBe('SSWS t')
    expect(seen[0]?.headers.accept).toBe('application/json')
  })

  it('reads a document of exactly 1 MiB, and refuses one byte more', async () => {
    const MIB = 1024 * 1024
    let size = MIB
    const { upstream } = await serve((_req, res) => res.end(Buffer.alloc(size, 0x20)))
    expect((await requestUpstream(upstream, '/doc')).body.length).toBe(MIB)
    size = MIB + 1
    await expect(requestUpstream(upstream, '/doc')).rejects.toThrow(
      `response larger than ${MIB} bytes`,
    )
  })

  it('gives up at its deadline when the IdP does not answer, with a readable cause', async () => {
    const { upstream } = await serve(() => {
      // Never answers.
    })
    const err = await requestUpstream(upstream, '/slow', { timeoutMs: 200 }).catch((e) => e)
    expect(err).toBeInstanceOf(Error)
    expect(describeError(err)).toMatch(/time/i)
  })
})

describe('requestUpstream: its deadline without one of its own', () => {
  it("is the backend's response timeout when that is under 10 s, also for a body that stalls", async () => {
    // The headers come at once, the body never ends: only the request's own deadline stops it.
    const { upstream } = await serve(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.write('{"keys":')
      },
      { response: '300ms' },
    )
    const err = await requestUpstream(upstream, '/stalls').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(Error)
    expect(describeError(err)).toMatch(/time/i)
  })
})

describe('maxAgeMs (Cache-Control, RFC 9111 §5.2.2.1)', () => {
  const cases: Array<[string | string[] | undefined, number | undefined]> = [
    ['max-age=120', 120_000],
    ['public, max-age=60', 60_000],
    ['public,max-age=60,must-revalidate', 60_000],
    ['MAX-AGE = 30', 30_000],
    ['max-age=0', 0],
    [['no-transform', 'max-age=5'], 5000],
    ['s-maxage=10', undefined],
    ['x-max-age=10', undefined],
    ['max-age=', undefined],
    ['max-age=abc', undefined],
    ['no-store', undefined],
    ['', undefined],
    [undefined, undefined],
  ]
  for (const [header, expected] of cases) {
    it(`reads ${JSON.stringify(header)} as ${expected}`, () => {
      expect(maxAgeMs({ 'cache-control': header })).toBe(expected)
    })
  }
})
