import { describe, expect, it } from 'vitest'
import { relayOrigins, relayRefusal } from '../../../src/admin/ui/relay.js'
import { fakeContext } from '../context.js'

describe('relay targets', () => {
  it('are the gateways, a gateway bound to every interface on loopback, and the configured issuers', () => {
    const ctx = fakeContext()
    const origins = relayOrigins({
      config: ctx.config,
      gateways: () => [
        { name: 'a', address: '127.0.0.1', port: 3000, url: 'http://127.0.0.1:3000', routes: [] },
        { name: 'b', address: '0.0.0.0', port: 4000, url: 'http://0.0.0.0:4000', routes: [] },
      ],
    })
    expect([...origins].sort()).toEqual([
      'http://0.0.0.0:4000',
      'http://127.0.0.1:3000',
      'http://127.0.0.1:4000',
      'https://idp.example',
    ])
    expect(relayRefusal('http://127.0.0.1:3000/mcp', origins)).toBeUndefined()
    expect(relayRefusal('http://127.0.0.1:3001/mcp', origins)).toContain(
      'not http://127.0.0.1:3001',
    )
    expect(relayRefusal('https://idp.example.evil.com/', origins)).toContain(
      'not https://idp.example.evil.com',
    )
  })
})
