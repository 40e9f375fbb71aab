/**
 * The SSRF guards of the outbound fetch of a client-chosen URL, each attacked with a real local
 * server that misbehaves the way a hostile metadata-document host would.
 */
import { once } from 'node:events'
import { createServer, type RequestListener, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import {
  type FetchGuards,
  GuardedFetchError,
  guardedGet,
  isPublicAddress,
} from '../../src/broker/guarded-fetch.js'

const servers: Server[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections()
    await new Promise((r) => s.close(r))
  }
})

async function serve(handler: RequestListener): Promise<{ url: string; hits: () => number }> {
  let hits = 0
  const server = createServer((req, res) => {
    hits++
    handler(req, res)
  })
  servers.push(server)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
  }
}

/** Guards for local test servers: http and loopback allowed, the rest as configured by default. */
const LOCAL: FetchGuards = {
  allowHttp: true,
  allowPrivateAddresses: true,
  maxBytes: 16_384,
  timeoutMs: 5000,
  maxRedirects: 3,
}

async function refusal(url: string, guards: FetchGuards): Promise<string> {
  const err = await guardedGet(url, guards).catch((e: unknown) => e)
  expect(err).toBeInstanceOf(GuardedFetchError)
  return (err as Error).message
}

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    '224.0.0.1',
    '255.255.255.255',
    'not-an-ip',
  ])('counts %s as not public', (address) => {
    expect(isPublicAddress(address)).toBe(false)
  })

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111'])(
    'counts %s as public',
    (address) => {
      expect(isPublicAddress(address)).toBe(true)
    },
  )
})

describe('guardedGet', () => {
  it('fetches a document within the guards', async () => {
    const s = await serve((_req, res) => res.end('{"ok":true}'))
    const res = await guardedGet(`${s.url}/doc`, LOCAL)
    expect(JSON.parse(res.body.toString())).toEqual({ ok: true })
  })

  it('refuses a loopback address, by literal and by name, without connecting', async () => {
    const s = await serve((_req, res) => res.end('{}'))
    const guards = { ...LOCAL, allowPrivateAddresses: false }
    expect(await refusal(`${s.url}/doc`, guards)).toMatch(/127\.0\.0\.1 is not a public address/)
    const byName = s.url.replace('127.0.0.1', 'localhost')
    expect(await refusal(`${byName}/doc`, guards)).toMatch(
      /localhost resolves to (127\.0\.0\.1|::1), which is not a public address/,
    )
    expect(await refusal('http://[::ffff:127.0.0.1]:1/doc', guards)).toMatch(/not a public address/)
    expect(s.hits()).toBe(0)
  })

  it('connects to the address it checked (one resolution: no DNS rebinding between check and connect)', async () => {
    const s = await serve((_req, res) => res.end('{"from":"checked address"}'))
    const port = new URL(s.url).port
    let resolutions = 0
    // A name no DNS knows: the fetch can only reach the server through the checked answer.
    const resolve: FetchGuards['resolve'] = (_host, cb) => {
      resolutions++
      cb(null, [{ address: '127.0.0.1', family: 4 }])
    }
    const ok = await guardedGet(`http://rebind.invalid:${port}/doc`, { ...LOCAL, resolve })
    expect(JSON.parse(ok.body.toString())).toEqual({ from: 'checked address' })
    expect(resolutions).toBe(1)
    // The same answer with private addresses refused: refused, and nothing is connected.
    const hits = s.hits()
    expect(
      await refusal(`http://rebind.invalid:${port}/doc`, {
        ...LOCAL,
        allowPrivateAddresses: false,
        resolve,
      }),
    ).toMatch(/rebind\.invalid resolves to 127\.0\.0\.1, which is not a public address/)
    expect(s.hits()).toBe(hits)
  })

  it('refuses a name with any non-public address among its answers', async () => {
    const resolve: FetchGuards['resolve'] = (_host, cb) =>
      cb(null, [
        { address: '93.184.215.14', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ])
    expect(
      await refusal('http://mixed.invalid/doc', {
        ...LOCAL,
        allowPrivateAddresses: false,
        resolve,
      }),
    ).toMatch(/10\.0\.0\.7, which is not a public address/)
  })

  it('refuses http unless allowed, and userinfo', async () => {
    expect(await refusal('http://example.com/doc', { ...LOCAL, allowHttp: false })).toMatch(
      /is not https/,
    )
    expect(await refusal('ftp://example.com/doc', LOCAL)).toMatch(/is not https or http/)
    expect(await refusal('https://u:p@example.com/doc', LOCAL)).toMatch(/userinfo/)
  })

  it('checks every redirect hop like the first (a redirect to file: or userinfo is refused)', async () => {
    const s = await serve((req, res) => {
      const to = req.url === '/file' ? 'file:///etc/passwd' : 'http://u:p@127.0.0.1/doc'
      res.writeHead(302, { location: to }).end()
    })
    expect(await refusal(`${s.url}/file`, LOCAL)).toMatch(
      /file:\/\/\/etc\/passwd is not https or http/,
    )
    expect(await refusal(`${s.url}/userinfo`, LOCAL)).toMatch(/contains userinfo/)
  })

  it('detects a redirect loop at once', async () => {
    const s = await serve((req, res) => {
      res.writeHead(302, { location: req.url === '/a' ? '/b' : '/a' }).end()
    })
    expect(await refusal(`${s.url}/a`, { ...LOCAL, maxRedirects: 10 })).toMatch(
      /redirects in a loop/,
    )
    expect(s.hits()).toBe(2)
  })

  it('stops after maxRedirects', async () => {
    const s = await serve((req, res) => {
      const n = Number(req.url?.slice(1))
      res.writeHead(302, { location: `/${n + 1}` }).end()
    })
    expect(await refusal(`${s.url}/0`, LOCAL)).toMatch(/redirects more than 3 times/)
    expect(s.hits()).toBe(4)
  })

  it('refuses a 10 MB document announced by Content-Length without reading it', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) })
      res.write('x'.repeat(1024))
    })
    expect(await refusal(`${s.url}/doc`, LOCAL)).toMatch(/larger than 16384 bytes/)
  })

  it('cuts a 10 MB chunked document once it passes the cap', async () => {
    let written = 0
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      const chunk = Buffer.alloc(64 * 1024, 0x20)
      const pump = () => {
        while (written < 10 * 1024 * 1024) {
          written += chunk.length
          if (!res.write(chunk)) return void res.once('drain', pump)
        }
        res.end()
      }
      res.on('close', () => res.removeAllListeners('drain'))
      pump()
    })
    expect(await refusal(`${s.url}/doc`, LOCAL)).toMatch(/larger than 16384 bytes/)
    expect(written).toBeLessThan(10 * 1024 * 1024)
  })

  it('gives up on a server that never answers', async () => {
    const s = await serve(() => {})
    expect(await refusal(`${s.url}/doc`, { ...LOCAL, timeoutMs: 200 })).toMatch(
      /did not answer in time/,
    )
  })

  it('gives up on a body trickled one byte at a time (the deadline covers the whole fetch)', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      const timer = setInterval(() => res.write(' '), 20)
      res.on('close', () => clearInterval(timer))
    })
    expect(await refusal(`${s.url}/doc`, { ...LOCAL, timeoutMs: 300 })).toMatch(
      /did not answer in time/,
    )
  })

  it('refuses an answer that is not 200', async () => {
    const s = await serve((_req, res) => res.writeHead(404).end('{}'))
    expect(await refusal(`${s.url}/doc`, LOCAL)).toMatch(/answered HTTP 404/)
  })
})
