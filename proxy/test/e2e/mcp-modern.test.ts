/**
 * MCP 2026-07-28 end to end: a client of that revision (no session, no initialize: the request
 * metadata headers and `_meta` on every request) through an MCP-aware route with JWT auth, to the
 * real dual-era mcp-backend (2026-07-28 on the official v2 server SDK), next to the 2025-11-25
 * clients the other e2e tests drive on the same kind of route.
 */
import { type McpBackend, modernRequest, startMcpBackend } from '@gatehouse/mock-mcp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GatehouseConfigInput } from '../../src/config/schema.js'
import { authConfig } from '../auth/config.js'
import { startTinyIdp, type TinyIdp } from '../auth/tiny-idp.js'
import { startTestGatehouse, type TestGatehouse } from '../helpers.js'
import { final, listen, rpc } from './modern-client.js'

let idp: TinyIdp
let backend: McpBackend
let gh: TestGatehouse
let bearer: string
let url: string

const ALLOWED = ['echo', 'confirm', 'query', 'report', 'progress']
const ELICIT = { elicitation: { form: {} } }
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }

function config(backendPort: number): GatehouseConfigInput {
  const c = authConfig({ idpPort: idp.port, backendPort, issuer: idp.issuer })
  const policy = c.policies?.['mcp-auth']
  const b = c.backends?.['mcp-backend']
  if (!policy || !b) throw new Error('no policy')
  // The done-when of the 2026-07-28 work: a budget of 2 requests in flight to the backend.
  b.limits = { maxRequests: 2 }
  policy.traffic.mcpAuthorization = {
    rules: [`mcp.tool.name in ${JSON.stringify(ALLOWED)}`, 'mcp.prompt.name == "greet"'],
    maxListTtl: '30s',
  }
  policy.traffic.localRateLimit = [
    {
      name: 'report-per-user',
      maxTokens: 3,
      fillInterval: '1h',
      key: 'jwt.sub',
      when: 'mcp.method == "tools/call" && mcp.tool.name == "report"',
    },
  ]
  return c
}

beforeAll(async () => {
  idp = await startTinyIdp()
  backend = await startMcpBackend()
  gh = await startTestGatehouse(config(backend.port))
  bearer = await idp.sign({ sub: 'alice', groups: ['AI-Users'] })
  url = `${gh.url}/mcp`
})
afterAll(async () => {
  await gh?.stop('done')
  await backend?.stop()
  await idp?.stop()
})

describe('a 2026-07-28 client through an MCP-aware route with JWT auth', () => {
  it('lists tools without a session: filtered, cacheScope "private", ttlMs capped', async () => {
    const answer = await rpc(url, 'tools/list', { bearer })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('mcp-session-id')).toBeNull()
    const result = final(answer).result ?? {}
    const names = (result.tools as Array<{ name: string }>).map((t) => t.name).sort()
    expect(names).toEqual([...ALLOWED].sort())
    // The backend says public and 60 s: the gateway made the list this user's.
    expect(result.cacheScope).toBe('private')
    expect(result.ttlMs).toBe(30_000)
    expect(result.resultType).toBe('complete')
  })

  it('is refused a denied tool as the server refuses an unknown one, and the backend never sees it', async () => {
    const answer = await rpc(url, 'tools/call', {
      bearer,
      id: 7,
      params: { name: 'fetch', arguments: { url: 'http://127.0.0.1:9/' } },
    })
    expect(answer.status).toBe(200)
    expect(final(answer)).toMatchObject({ id: 7, error: { code: -32602 } })
  })

  it('is refused a denied resource with -32602 and data.uri (2026-07-28), not -32002', async () => {
    const answer = await rpc(url, 'resources/read', {
      bearer,
      params: { uri: 'mock://notes/readme' },
    })
    expect(final(answer).error).toEqual({
      code: -32602,
      message: 'Resource not found',
      data: { uri: 'mock://notes/readme' },
    })
  })

  it('gets 400 with -32020 for a header that contradicts the body', async () => {
    const answer = await rpc(url, 'tools/call', {
      bearer,
      params: { name: 'fetch', arguments: { url: 'http://127.0.0.1:9/' } },
      headers: { 'mcp-name': 'echo' },
    })
    expect(answer.status).toBe(400)
    expect(final(answer).error?.code).toBe(-32020)
  })

  it('gets 400 with -32020 for a missing Mcp-Method, and for a tools/call without Mcp-Name, from the gateway', async () => {
    await fetch(`${backend.origin}/__requests`, { method: 'DELETE' })
    const noMethod = await rpc(url, 'tools/list', { bearer, headers: { 'mcp-method': null } })
    expect(noMethod.status).toBe(400)
    expect(final(noMethod).error?.code).toBe(-32020)
    const noName = await rpc(url, 'tools/call', {
      bearer,
      params: { name: 'echo', arguments: { text: 'x' } },
      headers: { 'mcp-name': null },
    })
    expect(noName.status).toBe(400)
    expect(final(noName).error?.code).toBe(-32020)
    // The gateway refused them (Intermediaries MUST return an error status): the backend saw none.
    expect(await (await fetch(`${backend.origin}/__requests`)).json()).toEqual([])
  })

  it('gets 404 with -32601 for a method 2026-07-28 removed, uri or not', async () => {
    for (const params of [{}, { uri: 'mock://notes/readme' }]) {
      const answer = await rpc(url, 'resources/subscribe', { bearer, params })
      expect(answer.status).toBe(404)
      expect(final(answer).error?.code).toBe(-32601)
    }
  })

  it('passes server/discover through untouched', async () => {
    const answer = await rpc(url, 'server/discover', { bearer })
    expect(answer.status).toBe(200)
    expect(final(answer).result?.supportedVersions).toContain('2026-07-28')
  })

  it('completes an MRTR round trip: input_required, then the retry with inputResponses', async () => {
    const first = final(
      await rpc(url, 'tools/call', {
        bearer,
        capabilities: ELICIT,
        params: { name: 'confirm', arguments: { action: 'deploy' } },
      }),
    )
    expect(first.result?.resultType).toBe('input_required')
    expect(first.result?.inputRequests).toMatchObject({
      confirm: { method: 'elicitation/create' },
    })
    const retry = final(
      await rpc(url, 'tools/call', {
        bearer,
        id: 2,
        capabilities: ELICIT,
        params: {
          name: 'confirm',
          arguments: { action: 'deploy' },
          inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
        },
      }),
    )
    expect(retry.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'confirmed deploy' }],
    })
  })

  it('judges Mcp-Param-* against the arguments of a tool it listed', async () => {
    await rpc(url, 'tools/list', { bearer })
    const params = { name: 'query', arguments: { region: 'us-west1', sql: 'select 1' } }
    const ok = await rpc(url, 'tools/call', {
      bearer,
      params,
      headers: { 'mcp-param-region': 'us-west1' },
    })
    expect(ok.status).toBe(200)
    expect(final(ok).result?.resultType).toBe('complete')
    await fetch(`${backend.origin}/__requests`, { method: 'DELETE' })
    const lying = await rpc(url, 'tools/call', {
      bearer,
      params,
      headers: { 'mcp-param-region': 'eu-west1' },
    })
    expect(lying.status).toBe(400)
    expect(final(lying).error?.code).toBe(-32020)
    expect(await (await fetch(`${backend.origin}/__requests`)).json()).toEqual([])
  })

  it('runs a task: tasks/get with Mcp-Name: <taskId> is accepted', async () => {
    const created = final(
      await rpc(url, 'tools/call', {
        bearer,
        capabilities: TASKS,
        params: { name: 'report', arguments: { topic: 'uptime' } },
      }),
    ).result
    expect(created).toMatchObject({ resultType: 'task' })
    const taskId = created?.taskId as string
    const polled = await rpc(url, 'tasks/get', { bearer, capabilities: TASKS, params: { taskId } })
    expect(polled.status).toBe(200)
    expect(final(polled).result).toMatchObject({ taskId, status: 'input_required' })
    const cancelled = await rpc(url, 'tasks/cancel', {
      bearer,
      capabilities: TASKS,
      params: { taskId },
    })
    expect(cancelled.status).toBe(200)
  })

  it('applies rate limits per user without a session', async () => {
    const other = await idp.sign({ sub: 'bob', groups: ['AI-Users'] })
    const call = () =>
      rpc(url, 'tools/call', {
        bearer: other,
        params: { name: 'report', arguments: { topic: 't' } },
      })
    for (let i = 0; i < 3; i++) expect((await call()).status).toBe(200)
    const spent = await call()
    expect(spent.status).toBe(429)
  })

  it('keeps a subscriptions/listen stream open while 100 other requests to a backend with maxRequests 2 succeed', async () => {
    // Three streams: more than the whole budget, which they are not counted against.
    const streams = await Promise.all(
      ['s1', 's2', 's3'].map((id) =>
        listen(url, { bearer, id, params: { notifications: { toolsListChanged: true } } }),
      ),
    )
    for (const s of streams) {
      expect(s.status).toBe(200)
      expect(await s.next()).toMatchObject({ method: 'notifications/subscriptions/acknowledged' })
    }
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        rpc(url, 'tools/call', {
          bearer,
          id: i,
          params: { name: 'echo', arguments: { text: `n${i}` } },
        }),
      ),
    )
    expect(answers.map((a) => a.status)).toEqual(Array(100).fill(200))
    const notified = await fetch(`${backend.origin}/__notify?list=tools`, { method: 'POST' })
    expect(notified.status).toBe(200)
    for (const s of streams) {
      expect(await s.next()).toMatchObject({ method: 'notifications/tools/list_changed' })
      await s.close()
    }
  })

  it('refuses a listen naming a resource the user may not read', async () => {
    const answer = await rpc(url, 'subscriptions/listen', {
      bearer,
      params: { notifications: { resourceSubscriptions: ['mock://notes/readme'] } },
    })
    expect(answer.status).toBe(200)
    expect(final(answer).error).toMatchObject({
      code: -32602,
      data: { uri: 'mock://notes/readme' },
    })
  })

  it('does not bind or forward an Mcp-Session-Id on a 2026-07-28 request', async () => {
    await fetch(`${backend.origin}/__requests`, { method: 'DELETE' })
    const init = modernRequest('tools/list', {
      bearer,
      headers: { 'mcp-session-id': 'someone-elses-session' },
    })
    const res = await fetch(url, init)
    expect(res.status).toBe(200)
    const seen = (await (await fetch(`${backend.origin}/__requests`)).json()) as Array<{
      sessionId?: string | null
    }>
    expect(seen.length).toBeGreaterThan(0)
    expect(seen.every((r) => !r.sessionId)).toBe(true)
  })
})
