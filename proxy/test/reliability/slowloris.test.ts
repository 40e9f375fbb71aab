/**
 * docs/reliability.md: unauthenticated clients that trickle headers or bodies (slowloris) must not
 * hold the gateway's sockets for ever. The registration endpoint reads a body without a token.
 */
import type { Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GatehouseConfigInput } from '../../src/config/schema.js'
import { authConfig } from '../auth/config.js'
import { startTinyIdp, type TinyIdp } from '../auth/tiny-idp.js'
import { startTestGatehouse, type TestGatehouse } from '../helpers.js'
import { eventually, gatewayConnections, rawRequest } from './helpers.js'

const REGISTRATION = '/.well-known/oauth-authorization-server/mcp/client-registration'

let idp: TinyIdp
let gh: TestGatehouse
let port: number

beforeAll(async () => {
  idp = await startTinyIdp()
  const config = authConfig({ idpPort: idp.port, backendPort: idp.port, issuer: idp.issuer })
  config.config = { adminAddr: '127.0.0.1:0' }
  const gw = config.gateways.default
  if (gw) gw.limits = { headersTimeout: '500ms', requestTimeout: '1s' }
  gh = await startTestGatehouse(config as GatehouseConfigInput)
  port = Number(new URL(gh.url).port)
})
afterAll(async () => {
  await gh?.stop()
  await idp?.stop()
})

/** Writes one byte every 100 ms for as long as the connection lives. */
function trickle(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (socket.destroyed || !socket.writable) {
        clearInterval(timer)
        resolve()
      } else socket.write('a')
    }, 100)
  })
}

describe('slow clients', () => {
  it('cuts a registration body trickled past requestTimeout with 408 and a JSON body', async () => {
    // The trickle would last 1000 s (10,000 bytes, one every 100 ms): only requestTimeout (1 s)
    // answers 408 request_timeout before it ends.
    const res = await rawRequest(port, [
      `POST ${REGISTRATION} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{"redirect_uris":`,
      trickle,
    ])
    expect(res.status).toBe(408)
    expect(JSON.parse(res.body).error).toBe('request_timeout')
  })

  it('closes every connection whose headers trickle, leaving the gateway no socket', async () => {
    const admin = gh.adminUrl as string
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        rawRequest(port, ['GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ', trickle]),
      ),
    )
    expect(answers.map((a) => a.status)).toEqual(Array(100).fill(408))
    await eventually(async () => (await gatewayConnections(admin)) === 0, 'no connection left')
  })
})
