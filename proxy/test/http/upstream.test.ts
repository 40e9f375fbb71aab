import { createServer, type Server } from 'node:http'
import { Client, Pool } from 'undici'
import { afterEach, describe, expect, it } from 'vitest'
import { BackendConfigSchema } from '../../src/config/schema.js'
import { createUpstream, SlotSafeClient } from '../../src/http/upstream.js'

let server: Server | undefined
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise((r) => server?.close(r))
})

async function origin(): Promise<string> {
  server = createServer((_req, res) => res.end('ok'))
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r))
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`
}

/** Requests undici refuses before sending (it does not send Expect), then one it sends. */
async function refusedThenValid(pool: Pool): Promise<number> {
  for (let i = 0; i < 3; i++) {
    await expect(
      pool.request({ path: '/', method: 'GET', headers: { expect: '100-continue' } }),
    ).rejects.toMatchObject({ code: 'UND_ERR_NOT_SUPPORTED' })
  }
  const res = await pool.request({ path: '/', method: 'GET', signal: AbortSignal.timeout(3000) })
  await res.body.text()
  return res.statusCode
}

describe('SlotSafeClient', () => {
  it('keeps a pool slot free after undici refuses a request before sending it', async () => {
    const pool = new Pool(await origin(), {
      connections: 1,
      factory: (url, opts) => new SlotSafeClient(url, opts),
    })
    expect(await refusedThenValid(pool)).toBe(200)
    await pool.destroy()
  })

  it('is needed: undici’s own client loses the slot (the defect it works around)', async () => {
    const pool = new Pool(await origin(), {
      connections: 1,
      factory: (url, opts) => new Client(url, opts),
    })
    const outcome = refusedThenValid(pool).catch((err: Error) => err.message)
    const hung = new Promise((r) => setTimeout(() => r('still queued after 1 s'), 1000))
    expect(await Promise.race([outcome, hung])).toBe('still queued after 1 s')
    await pool.destroy()
    await outcome
  })
})

describe('createUpstream', () => {
  it("uses undici's own classes, loaded from their modules rather than undici's index", () => {
    const upstream = createUpstream(
      BackendConfigSchema.parse({ static: { host: '127.0.0.1', port: 9 } }),
    )
    expect(upstream.dispatcher).toBeInstanceOf(Pool)
    expect(upstream.openStream().dispatcher).toBeInstanceOf(Client)
    expect(Object.getPrototypeOf(SlotSafeClient)).toBe(Client)
    return upstream.close()
  })
})

describe('createUpstream: event streams', () => {
  it('gives each stream a connection of its own and closes it when the stream is done', async () => {
    const sockets: Array<import('node:net').Socket> = []
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(': open\n\n')
    })
    server.on('connection', (s) => sockets.push(s))
    await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r))
    const port = (server.address() as { port: number }).port
    const upstream = createUpstream(
      BackendConfigSchema.parse({ static: { host: '127.0.0.1', port } }),
    )
    try {
      const streams = [upstream.openStream(), upstream.openStream()]
      const bodies = await Promise.all(
        streams.map(async (s) => {
          const res = await s.dispatcher.request({ path: '/', method: 'GET' })
          const first = await new Promise<Buffer>((r) => res.body.once('data', r))
          res.body.on('error', () => {})
          return first.toString()
        }),
      )
      expect(bodies).toEqual([': open\n\n', ': open\n\n'])
      expect(sockets).toHaveLength(2)
      const closed = new Promise((r) => sockets[0]?.once('close', r))
      streams[0]?.done()
      await closed
      expect(sockets.map((s) => s.destroyed)).toEqual([true, false])
      streams[1]?.done()
      await new Promise((r) => sockets[1]?.once('close', r))
    } finally {
      await upstream.close()
    }
  })
})

describe('createUpstream: subscriptions/listen streams (MCP 2026-07-28)', () => {
  it('opens at most limits.maxListenStreams at once, and gives a slot back when one is done', async () => {
    const upstream = createUpstream(
      BackendConfigSchema.parse({
        static: { host: '127.0.0.1', port: 1 },
        limits: { maxRequests: 1, maxListenStreams: 2 },
      }),
    )
    const a = upstream.openListenStream()
    const b = upstream.openListenStream()
    expect(a).toBeDefined()
    expect(b).toBeDefined()
    expect(upstream.openListenStream()).toBeUndefined()
    // GET streams are apart from the bound.
    const get = upstream.openStream()
    a?.done()
    a?.done()
    const c = upstream.openListenStream()
    expect(c).toBeDefined()
    expect(upstream.openListenStream()).toBeUndefined()
    for (const s of [b, c, get]) s?.done()
    await upstream.close()
  })
})
