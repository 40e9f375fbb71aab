/**
 * TLS origination to a backend (the seed's BackendTLSPolicy): the server certificate is validated
 * against the given CA bundle (or the system CAs), for `tls.hostname`, also sent as SNI. The
 * backend is mock-idp over HTTPS with a generated test CA.
 */
import { request } from 'node:https'
import { type MockIdp, startMockIdp } from '@gatehouse/mock-idp'
import { initializeRequest, startMcpBackend } from '@gatehouse/mock-mcp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GatehouseConfigInput } from '../../src/config/schema.js'
import { authConfig } from '../auth/config.js'
import { startTestGatehouse } from '../helpers.js'

let idp: MockIdp

beforeAll(async () => {
  idp = await startMockIdp({ https: true })
})
afterAll(async () => {
  await idp.stop()
})

function config(tls: Record<string, unknown>): GatehouseConfigInput {
  return {
    gateways: { default: { port: 3000, address: '127.0.0.1' } },
    backends: { idp: { static: { host: '127.0.0.1', port: idp.port }, tls } },
    routes: {
      keys: {
        rules: [
          {
            matches: [{ path: { type: 'PathPrefix', value: '/oauth2' } }],
            backendRefs: [{ name: 'idp' }],
          },
        ],
        allowUnauthenticated: true,
      },
    },
  }
}

describe('TLS origination', () => {
  it('validates the backend certificate against the configured CA bundle', async () => {
    const gh = await startTestGatehouse(
      config({ hostname: 'localhost', caCertificates: [idp.caCertPath] }),
    )
    const res = await fetch(`${gh.url}/oauth2/default/v1/keys`)
    expect(res.status).toBe(200)
    expect(((await res.json()) as { keys: unknown[] }).keys.length).toBeGreaterThan(0)
    await gh.stop('done')
  })

  it('refuses a backend whose certificate the system CAs do not trust: 502, nothing forwarded', async () => {
    const gh = await startTestGatehouse(config({ hostname: 'localhost' }))
    const res = await fetch(`${gh.url}/oauth2/default/v1/keys`)
    expect(res.status).toBe(502)
    expect(((await res.json()) as { error: string }).error).toBeTruthy()
    await gh.stop('done')
  })

  it('refuses a certificate that does not name the validation hostname', async () => {
    const gh = await startTestGatehouse(
      config({ hostname: 'idp.example.com', caCertificates: [idp.caCertPath] }),
    )
    expect((await fetch(`${gh.url}/oauth2/default/v1/keys`)).status).toBe(502)
    await gh.stop('done')
  })

  it('fetches the key set over TLS, as the seed deploys it, and validates tokens with it', async () => {
    const backend = await startMcpBackend()
    const cfg = authConfig({ idpPort: idp.port, backendPort: backend.port, issuer: idp.issuer })
    const idpBackend = cfg.backends?.idp
    if (!idpBackend) throw new Error('no idp backend')
    idpBackend.tls = { hostname: 'localhost', caCertificates: [idp.caCertPath ?? ''] }
    const gh = await startTestGatehouse(cfg)
    // The test trusts the generated CA only for this call (global fetch uses the system CAs).
    const access_token = await new Promise<string>((resolve, reject) => {
      const req = request(
        `${idp.controlUrl}/token`,
        { method: 'POST', ca: idp.caCertPem, headers: { 'content-type': 'application/json' } },
        (r) => {
          let text = ''
          r.on('data', (c) => {
            text += c
          })
          r.on('end', () => resolve((JSON.parse(text) as { access_token: string }).access_token))
        },
      )
      req.on('error', reject)
      req.end(JSON.stringify({ sub: 'alice' }))
    })
    const res = await fetch(`${gh.url}/mcp`, initializeRequest({ bearer: access_token }))
    expect(res.status).toBe(200)
    await gh.stop('done')
    await backend.stop()
  })
})
