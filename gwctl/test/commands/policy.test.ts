/**
 * gwctl against a gatehouse that enforces real policies with the real IdP (mock-idp): policy
 * status in `config all -o short`, and the authentication/authorization events of a trace.
 */
import { controlClient, type MockIdp, startMockIdp } from '@gatehouse/mock-idp'
import { type Gatehouse, parseConfig, startGatehouse } from '@gatehouse/proxy'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import { runGwctl, spawnGwctl, startBackend } from '../helpers.js'

let idp: MockIdp
let backend: Awaited<ReturnType<typeof startBackend>>
let gatehouse: Gatehouse
let admin: string

const provider = (jwksPath: string) => ({
  issuer: '',
  audiences: ['api://default'],
  jwks: { remote: { backendRef: { name: 'idp' }, jwksPath } },
})

beforeAll(async () => {
  idp = await startMockIdp()
  backend = await startBackend()
  const route = (value: string) => ({
    rules: [
      {
        matches: [{ path: { type: 'PathPrefix', value } }],
        backendRefs: [{ name: 'mcp-backend' }],
      },
    ],
  })
  const good = { ...provider('/oauth2/default/v1/keys'), issuer: idp.issuer }
  const broken = { ...provider('/oauth2/default/v1/nothing-here'), issuer: idp.issuer }
  const config = parseConfig(
    stringify({
      config: { adminAddr: '127.0.0.1:0', logLevel: 'error' },
      gateways: { default: { port: 3000, address: '127.0.0.1' } },
      backends: {
        'mcp-backend': { static: { host: '127.0.0.1', port: backend.port } },
        idp: { static: { host: '127.0.0.1', port: idp.port } },
      },
      routes: { mcp: route('/mcp'), broken: route('/broken') },
      policies: {
        'mcp-auth': {
          targetRefs: [{ name: 'mcp' }],
          traffic: {
            jwtAuthentication: { providers: [good] },
            authorization: { policy: { matchExpressions: ['"AI-Users" in jwt.groups'] } },
          },
        },
        'broken-auth': {
          targetRefs: [{ name: 'broken' }],
          traffic: { jwtAuthentication: { providers: [broken] } },
        },
      },
    }),
    'gwctl-policy.yaml',
  )
  gatehouse = await startGatehouse({ config, ephemeralPorts: true })
  admin = (gatehouse.adminUrl ?? '').replace(/^http:\/\//, '')
})
afterAll(async () => {
  await gatehouse.stop('done')
  await backend.close()
  await idp.stop()
})

describe('gwctl with real policies', () => {
  it('shows each policy with Accepted, Attached, Programmed and the reason', async () => {
    const r = await runGwctl(['--admin', admin, 'proxy', 'config', 'all', '--local', '-o', 'short'])
    expect(r.code).toBe(0)
    const rows = r.stdout.split('\n')
    expect(rows.find((l) => l.startsWith('mcp-auth'))).toMatch(/True\s+True\s+True\s+Programmed/)
    expect(rows.find((l) => l.startsWith('broken-auth'))).toMatch(
      /True\s+True\s+False\s+JwksUnavailable/,
    )
  })

  it('traces the authentication and each authorization rule of a denied request', async () => {
    const { access_token } = await controlClient(idp.controlUrl).token({ sub: 'bob' })
    const gw = spawnGwctl(['--admin', admin, 'proxy', 'trace', '--local', '--raw'])
    await gw.waitForStderr('waiting for the next request')
    const res = await fetch(`${gatehouse.gateways[0]?.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    })
    expect(res.status).toBe(403)
    const r = await gw.done
    expect(r.code).toBe(0)
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> })
    expect(events.find((e) => e.type === 'authentication')?.data).toMatchObject({
      result: 'ok',
      subject: 'bob',
    })
    expect(events.find((e) => e.type === 'authorization')?.data).toMatchObject({
      allowed: false,
      rules: [{ expression: '"AI-Users" in jwt.groups', matched: false }],
    })
    expect(events.find((e) => e.type === 'response')?.data).toMatchObject({ status: 403 })
    expect(r.stdout).not.toContain(access_token)
  })
})
