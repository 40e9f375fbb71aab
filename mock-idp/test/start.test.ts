/** startMockIdp: when it answers, and which URLs it publishes whatever address a client used. */
import { request } from 'node:http'
import { freePort } from '@gatehouse/support'
import { afterEach, describe, expect, it } from 'vitest'
import { type MockIdp, startMockIdp } from '../src/index.js'

const started: MockIdp[] = []
afterEach(async () => {
  await Promise.all(started.splice(0).map((idp) => idp.stop()))
})

interface Answer {
  status: number
  body: string
  /** Whether the connection was open before the given moment (see `get`). */
  connectedEarly: boolean
}

/**
 * GETs a path on 127.0.0.1, retrying while the port refuses connections; `isEarly()` is read
 * when the connection opens. Rejects if no answer comes within 10 s.
 */
async function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  isEarly: () => boolean = () => false,
): Promise<Answer> {
  for (;;) {
    try {
      return await new Promise<Answer>((resolve, reject) => {
        let connectedEarly = false
        const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
          let body = ''
          res.setEncoding('utf8')
          res.on('data', (c: string) => {
            body += c
          })
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body, connectedEarly }))
        })
        req.on('socket', (socket) =>
          socket.on('connect', () => {
            connectedEarly = isEarly()
          }),
        )
        req.setTimeout(10_000, () => req.destroy(new Error(`no answer to GET ${path} in 10 s`)))
        req.on('error', reject)
        req.end()
      })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNREFUSED') throw err
      await new Promise((r) => setTimeout(r, 1))
    }
  }
}

describe('startMockIdp', () => {
  it('answers a request that arrives while it is still starting (after listen, before its keys)', async () => {
    const port = await freePort()
    let ready = false
    const starting = startMockIdp({ port }).then((idp) => {
      ready = true
      started.push(idp)
      return idp
    })
    const answer = await get(port, '/oauth2/default/v1/keys', {}, () => !ready)
    const idp = await starting
    // The request really raced the start-up: the port accepted it before startMockIdp returned.
    expect(answer.connectedEarly).toBe(true)
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body)).toEqual(await (await fetch(idp.jwksUri)).json())
  })

  it('builds every URL of its discovery document from publicUrl, whatever Host the request names', async () => {
    // As in the compose demo: the gateway reaches the IdP as mock-idp:9000, browsers as localhost.
    const idp = await startMockIdp({ publicUrl: 'http://localhost:9000' })
    started.push(idp)
    const requests: Array<Record<string, string>> = [
      { host: 'mock-idp:9000' },
      { host: `127.0.0.1:${idp.port}` },
      { host: 'mock-idp:9000', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
    ]
    for (const headers of requests) {
      const answer = await get(
        idp.port,
        '/oauth2/default/.well-known/openid-configuration',
        headers,
      )
      expect(answer.status).toBe(200)
      const doc = JSON.parse(answer.body) as Record<string, unknown>
      expect(doc.issuer).toBe('http://localhost:9000/oauth2/default')
      expect(doc.authorization_endpoint).toBe('http://localhost:9000/oauth2/default/v1/authorize')
      expect(doc.token_endpoint).toBe('http://localhost:9000/oauth2/default/v1/token')
      expect(doc.jwks_uri).toBe('http://localhost:9000/oauth2/default/v1/keys')
      const urls = Object.values(doc).filter(
        (v): v is string => typeof v === 'string' && /^https?:/.test(v),
      )
      expect(urls.length).toBeGreaterThan(5)
      expect(urls.filter((u) => !u.startsWith('http://localhost:9000/'))).toEqual([])
    }
  })

  it('builds them from its listening URL when there is no publicUrl, not from the Host header', async () => {
    const idp = await startMockIdp()
    started.push(idp)
    const answer = await get(idp.port, '/oauth2/default/.well-known/openid-configuration', {
      host: `localhost:${idp.port}`,
    })
    const doc = JSON.parse(answer.body) as Record<string, unknown>
    expect(doc.issuer).toBe(`http://127.0.0.1:${idp.port}/oauth2/default`)
    expect(doc.authorization_endpoint).toBe(
      `http://127.0.0.1:${idp.port}/oauth2/default/v1/authorize`,
    )
  })

  it('refuses a publicUrl that is not an origin', async () => {
    await expect(startMockIdp({ publicUrl: 'http://localhost:9000/idp' })).rejects.toThrow(
      'publicUrl: expected an origin such as http://localhost:9000 (no path), got "http://localhost:9000/idp"',
    )
  })
})
