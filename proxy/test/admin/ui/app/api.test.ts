import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, getJson, HttpError, relayed } from '../../../../src/admin/ui/app/api.js'

describe('the page’s calls', () => {
  let server: Server
  let base: string
  const seen: Array<{ method?: string; url?: string; type?: string; body: string }> = []
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, type: req.headers['content-type'], body })
        if (req.url === '/fail') {
          res.writeHead(422, { 'content-type': 'application/json' })
          res.end('{"result":"failure"}')
          return
        }
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(
          req.url === '/ui/relay'
            ? '{"status":401,"headers":[],"body":"","statusText":"","truncated":false,"durationMs":1}'
            : '{"ok":true}',
        )
      })
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => {
    server.close()
  })

  it('reads JSON, and throws the status and body of an answer that is not 2xx', async () => {
    expect(await getJson(`${base}/x`)).toEqual({ ok: true })
    const err = await call(`${base}/fail`, { method: 'POST' }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(HttpError)
    expect(err).toMatchObject({ status: 422, body: '{"result":"failure"}' })
  })

  it('hands a request to the relay as its own content type', async () => {
    const answer = await relayed(`${base}/ui`, { method: 'GET', url: 'http://127.0.0.1:1/mcp' })
    expect(answer.status).toBe(401)
    expect(seen.at(-1)).toMatchObject({
      method: 'POST',
      url: '/ui/relay',
      type: 'application/vnd.gatehouse.relay+json',
      body: '{"headers":{},"method":"GET","url":"http://127.0.0.1:1/mcp"}',
    })
  })
})
