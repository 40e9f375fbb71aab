import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OriginPools } from '../../src/auth/origin-pools.js'

const servers: Server[] = []
const seen: string[] = []

async function listen(name: string): Promise<string> {
  const server = createServer((req, res) => {
    seen.push(`${name} ${req.method} ${req.url}`)
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name }))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  servers.push(server)
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

let a: string
let b: string
beforeAll(async () => {
  a = await listen('a')
  b = await listen('b')
})
afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r))
})

describe('OriginPools', () => {
  it('sends each request to the origin and path of its URL, one pool per origin', async () => {
    const pools = new OriginPools()
    const ra = await pools.request(`${a}/keys?x=1`)
    const rb = await pools.request(`${b}/token`, { method: 'POST', body: 'k=v' })
    expect(JSON.parse(ra.body.toString())).toEqual({ name: 'a' })
    expect(JSON.parse(rb.body.toString())).toEqual({ name: 'b' })
    expect(seen).toEqual(['a GET /keys?x=1', 'b POST /token'])
    expect(pools.pool(new URL(`${a}/other`))).toBe(pools.pool(new URL(a)))
    expect(pools.pool(new URL(a))).not.toBe(pools.pool(new URL(b)))
    await pools.close()
  })

  it('gives an https origin a TLS pool named after the host', async () => {
    const pools = new OriginPools()
    expect(pools.pool(new URL('https://accounts.example:8443/x')).origin).toBe(
      'https://accounts.example:8443',
    )
    await pools.close()
  })
})
