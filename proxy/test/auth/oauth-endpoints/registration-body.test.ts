/**
 * The registration endpoint's body read over real HTTP: a body that trickles past the listener's
 * `requestTimeout` is answered 408 `request_timeout` (not 413), one larger than the limit 413.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { startTestGatehouse } from '../../helpers.js'
import { rawRequest } from '../../reliability/helpers.js'
import { authConfig } from '../config.js'
import { startTinyIdp, type TinyIdp } from '../tiny-idp.js'

const REGISTER = '/.well-known/oauth-authorization-server/mcp/client-registration'
const cleanups: Array<() => unknown> = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.()
})

async function gatehouse(): Promise<{ port: number }> {
  const idp: TinyIdp = await startTinyIdp()
  cleanups.push(() => idp.stop())
  const config = authConfig({ idpPort: idp.port, backendPort: 9, issuer: idp.issuer })
  const gw = config.gateways.default
  if (gw) gw.limits = { headersTimeout: '300ms', requestTimeout: '600ms' }
  const gh = await startTestGatehouse(config)
  cleanups.push(() => gh.stop())
  return { port: Number(new URL(gh.url).port) }
}

const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

describe('client registration body', () => {
  it('answers 408 request_timeout to a body that trickles past requestTimeout', async () => {
    const { port } = await gatehouse()
    const res = await rawRequest(port, [
      `POST ${REGISTER} HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"client_`,
      () => wait(60_000),
    ])
    expect(res.status).toBe(408)
    expect(JSON.parse(res.body).error).toBe('request_timeout')
  })

  it('answers 413 to a body declared larger than the limit, without reading it', async () => {
    const { port } = await gatehouse()
    const res = await rawRequest(port, [
      `POST ${REGISTER} HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 20000\r\n\r\n{`,
      () => wait(60_000),
    ])
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body)).toEqual({
      error: 'invalid_client_metadata',
      error_description: 'the registration request is larger than 16384 bytes',
    })
  })
})
