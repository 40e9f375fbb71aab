/** The trace of an authenticated request shows the verified claims and each rule, never the token. */
import { initializeRequest, type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authConfig } from '../auth/config.js'
import { startTinyIdp, type TinyIdp } from '../auth/tiny-idp.js'
import { startTestGatehouse, type TestGatehouse } from '../helpers.js'

let idp: TinyIdp
let backend: McpBackend
let gh: TestGatehouse

beforeAll(async () => {
  idp = await startTinyIdp()
  backend = await startMcpBackend()
  gh = await startTestGatehouse({
    ...authConfig({ idpPort: idp.port, backendPort: backend.port, issuer: idp.issuer }),
    config: { adminAddr: '127.0.0.1:0' },
  })
})
afterAll(async () => {
  await gh.stop('done')
  await backend.stop()
  await idp.stop()
})

async function traceOf(
  token: string,
): Promise<{ raw: string; events: Array<{ type: string; data: Record<string, unknown> }> }> {
  const abort = new AbortController()
  const res = await fetch(`${gh.adminUrl}/debug/trace`, { signal: abort.signal })
  const reader = res.body?.getReader()
  if (!reader) throw new Error('no stream')
  const sent = fetch(`${gh.url}/mcp`, initializeRequest({ bearer: token }))
  let raw = ''
  while (!raw.includes('request_finished')) {
    const { value, done } = await reader.read()
    if (done) break
    raw += new TextDecoder().decode(value)
  }
  abort.abort()
  await sent
  const events = [...raw.matchAll(/^data: (.*)$/gm)].map(
    (m) => JSON.parse(m[1] ?? '{}') as { type: string; data: Record<string, unknown> },
  )
  return { raw, events }
}

describe('trace of authentication and authorization', () => {
  it('shows issuer, subject and claims, and each rule with its result, without the token', async () => {
    const token = await idp.sign()
    const { raw, events } = await traceOf(token)
    const auth = events.find((e) => e.type === 'authentication')
    expect(auth?.data).toMatchObject({
      result: 'ok',
      issuer: idp.issuer,
      subject: 'alice@example.com',
    })
    expect(auth?.data.claims).toMatchObject({ groups: ['AI-Users'] })
    const authz = events.find((e) => e.type === 'authorization')
    expect(authz?.data).toMatchObject({
      allowed: true,
      rules: [{ expression: '"AI-Users" in jwt.groups', matched: true }],
    })
    expect(raw).not.toContain(token)
    expect(raw).not.toContain(token.split('.')[2])
  })

  it('shows the failed check of a refused token', async () => {
    const { events } = await traceOf(await idp.sign({ aud: 'api://other' }))
    expect(events.find((e) => e.type === 'authentication')?.data).toMatchObject({
      result: 'failed',
      check: 'audience',
    })
  })
})
