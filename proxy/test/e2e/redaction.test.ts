/**
 * docs/design/hardening.md: no credential reaches `/debug/trace`, the logs or `/config_dump`, whatever
 * shape a client sends it in (no scheme, a tab or a comma after the scheme, an API key header),
 * and static secrets written as CEL literals in transformations are not dumped.
 */
import { initializeRequest, type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GatehouseConfigInput } from '../../src/config/schema.js'
import { authConfig } from '../auth/config.js'
import { startTinyIdp, type TinyIdp } from '../auth/tiny-idp.js'
import { startTestGatehouse, type TestGatehouse } from '../helpers.js'

const STATIC_SECRET = 'sk-live-0123456789abcdef'
const API_KEY = 'k-live-api-key-4242'
const OPAQUE = 'opaque-token-0123456789abcdef'
/** A deployment's own session header: not named like a credential, declared in config.redactHeaders. */
const SESSION = 'session-secret-value-7f3a'

let idp: TinyIdp
let backend: McpBackend
let gh: TestGatehouse

beforeAll(async () => {
  idp = await startTinyIdp()
  backend = await startMcpBackend()
  const config = authConfig({ idpPort: idp.port, backendPort: backend.port, issuer: idp.issuer })
  const policy = config.policies?.['mcp-auth']
  if (!policy) throw new Error('authConfig has no mcp-auth policy')
  policy.traffic.transformations = {
    request: {
      set: [
        { name: 'x-upstream-authorization', value: `"Bearer ${STATIC_SECRET}"` },
        { name: 'x-user', value: `jwt.sub + "-${STATIC_SECRET}"` },
      ],
    },
  }
  gh = await startTestGatehouse(
    {
      ...config,
      config: { adminAddr: '127.0.0.1:0', redactHeaders: ['X-Session'] },
    } as GatehouseConfigInput,
    { logFilter: 'trace' },
  )
})
afterAll(async () => {
  await gh.stop('done')
  await backend.stop()
  await idp.stop()
})

/** The raw `/debug/trace` stream of one request to /mcp sent with `headers`. */
async function rawTrace(headers: Record<string, string>): Promise<string> {
  const abort = new AbortController()
  const res = await fetch(`${gh.adminUrl}/debug/trace`, { signal: abort.signal })
  const reader = res.body?.getReader()
  if (!reader) throw new Error('no stream')
  const init = initializeRequest()
  const sent = fetch(`${gh.url}/mcp`, {
    ...init,
    headers: { ...(init.headers as Record<string, string>), ...headers },
  })
  let raw = ''
  while (!raw.includes('request_finished')) {
    const { value, done } = await reader.read()
    if (done) break
    raw += new TextDecoder().decode(value)
  }
  abort.abort()
  await sent
  return raw
}

describe('redaction of credentials in /debug/trace and the logs', () => {
  it.each([
    ['a JWT without a scheme', (jwt: string) => ({ authorization: jwt })],
    ['a JWT after Bearer and a tab', (jwt: string) => ({ authorization: `Bearer\t${jwt}` })],
    ['a JWT after Bearer and a comma', (jwt: string) => ({ authorization: `Bearer,${jwt}` })],
    ['an opaque token after Bearer and a comma', () => ({ authorization: `Bearer,${OPAQUE}` })],
    ['a valid bearer token', (jwt: string) => ({ authorization: `Bearer ${jwt}` })],
    ['an X-Api-Key header', () => ({ 'x-api-key': API_KEY })],
    ['a Proxy-Authorization header', () => ({ 'proxy-authorization': `Basic ${OPAQUE}` })],
  ])('keeps %s out of the trace', async (_name, headersOf) => {
    const jwt = await idp.sign()
    const headers = headersOf(jwt)
    const raw = await rawTrace(headers)
    expect(raw).toContain('request_started')
    for (const secret of [jwt, jwt.split('.')[1] as string, jwt.split('.')[2] as string, OPAQUE])
      expect(raw).not.toContain(secret)
    expect(raw).not.toContain(API_KEY)
    expect(raw).toMatch(/"(authorization|x-api-key|proxy-authorization)":"(\w+ )?\[redacted\]"/)
  })

  it('logs none of them, even at trace level', () => {
    const text = JSON.stringify(gh.logs)
    expect(gh.logs.length).toBeGreaterThan(0)
    expect(text).not.toContain(API_KEY)
    expect(text).not.toContain(OPAQUE)
    expect(text).not.toContain(SESSION)
    expect(text).not.toMatch(/eyJ[\w-]+\.[\w-]+\./)
  })
})

describe('credential headers the operator declares (config.redactHeaders)', () => {
  it('keeps a declared X-Session header out of the trace, whatever its case', async () => {
    for (const name of ['X-Session', 'x-session']) {
      const raw = await rawTrace({ [name]: SESSION, 'x-tenant': 'acme-tenant' })
      expect(raw).toContain('request_started')
      expect(raw).not.toContain(SESSION)
      expect(raw).toContain('"x-session":"[redacted]"')
      // Only what was declared: an ordinary header is still shown.
      expect(raw).toContain('"x-tenant":"acme-tenant"')
    }
    // Nor the logs, the access lines of these requests included (trace level).
    expect(gh.logs.some((l) => l.module === 'proxy::access' && l.path === '/mcp')).toBe(true)
    expect(JSON.stringify(gh.logs)).not.toContain(SESSION)
  })
})

describe('redaction in /config_dump', () => {
  it('shows transformation expressions without the static secrets written as literals', async () => {
    const text = await (await fetch(`${gh.adminUrl}/config_dump`)).text()
    expect(text).toContain('x-upstream-authorization')
    expect(text).toContain('jwt.sub + \\"[redacted]\\"')
    expect(text).not.toContain(STATIC_SECRET)
  })
})
