/**
 * The MCP stage on MCP 2026-07-28 traffic (era.ts): no session, headers required and validated,
 * removed methods, resources denied as missing ones are in that revision, filtered lists private.
 */
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { answer, forwarded, request, routePolicy } from './route-policy-kit.js'

const VERSION = '2026-07-28'
const META = { 'io.modelcontextprotocol/protocolVersion': VERSION }

/** A modern request and the headers a conforming client sends with it. */
function modern(method: string, params: Record<string, unknown> = {}, id = 1) {
  const name = (params.name ?? params.uri ?? params.taskId) as string | undefined
  return {
    body: { jsonrpc: '2.0', id, method, params: { ...params, _meta: META } },
    headers: {
      'mcp-protocol-version': [VERSION],
      'mcp-method': [method],
      ...(name !== undefined ? { 'mcp-name': [name] } : {}),
    } as Record<string, string[]>,
  }
}

const authz = routePolicy({
  mcpAuthorization: {
    rules: ['mcp.tool.name == "echo" || mcp.resource.uri == "file:///ok"'],
    maxListTtl: '1m',
  },
})

async function filtered(method: string, result: Record<string, unknown>, era: 'modern' | 'legacy') {
  const m = modern(method)
  const r =
    era === 'modern' ? request(m.body, { headers: m.headers }) : request({ ...m.body, params: {} })
  const f = forwarded(await authz.inspect(r, {}))
  const source = new PassThrough()
  const out = f.filterResponse?.(source, { 'content-type': 'application/json' }, 200)
  source.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result }))
  let text = ''
  for await (const c of out ?? []) text += String(c)
  return JSON.parse(text).result
}

describe('McpRoutePolicy.inspect, MCP 2026-07-28 traffic', () => {
  it('forwards an allowed call that carries no session and mirrors its headers', async () => {
    const m = modern('tools/call', { name: 'echo', arguments: {} })
    const f = forwarded(await authz.inspect(request(m.body, { headers: m.headers }), { sub: 'a' }))
    expect(f.body).toBeDefined()
    expect(f.listen).toBeUndefined()
  })

  it('refuses a modern request without Mcp-Method with 400 HeaderMismatch (-32020)', async () => {
    const m = modern('tools/list')
    const r = answer(
      await authz.inspect(request(m.body, { headers: { 'mcp-protocol-version': [VERSION] } }), {}),
    )
    expect(r.status).toBe(400)
    expect(r.code).toBe('GW_ERR_MCP_HEADER_MISMATCH')
    expect(r.body).toMatchObject({ id: 1, error: { code: -32020 } })
  })

  it('refuses a modern tools/call, resources/read or prompts/get without Mcp-Name', async () => {
    for (const [method, params] of [
      ['tools/call', { name: 'echo' }],
      ['resources/read', { uri: 'file:///ok' }],
      ['prompts/get', { name: 'p' }],
    ] as const) {
      const m = modern(method, params)
      const { 'mcp-name': _, ...headers } = m.headers
      const r = answer(await authz.inspect(request(m.body, { headers }), {}))
      expect(r.status).toBe(400)
      expect(r.body).toMatchObject({ error: { code: -32020 } })
    }
  })

  it('accepts a legacy request without those headers, as before', async () => {
    const legacy = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } }
    expect(forwarded(await authz.inspect(request(legacy), {})).body).toBeDefined()
  })

  it('answers 404 with -32601 for resources/subscribe in modern traffic, even without a uri', async () => {
    const m = modern('resources/subscribe')
    const r = answer(await authz.inspect(request(m.body, { headers: m.headers }), {}))
    expect(r.status).toBe(404)
    expect(r.code).toBe('GW_ERR_MCP_METHOD_REMOVED')
    expect(r.body).toMatchObject({ id: 1, error: { code: -32601 } })
  })

  it('refuses a denied resource with -32602 and data.uri, as a missing one in 2026-07-28', async () => {
    const m = modern('resources/read', { uri: 'file:///secret' })
    const r = answer(await authz.inspect(request(m.body, { headers: m.headers }), {}))
    expect(r.body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'Resource not found', data: { uri: 'file:///secret' } },
    })
  })

  it('accepts Mcp-Name: <taskId> on tasks/get, update and cancel, and refuses another id', async () => {
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const m = modern(method, { taskId: 'task-7' })
      expect(
        forwarded(await authz.inspect(request(m.body, { headers: m.headers }), {})).body,
      ).toBeDefined()
      const wrong = { ...m.headers, 'mcp-name': ['task-8'] }
      expect(answer(await authz.inspect(request(m.body, { headers: wrong }), {})).status).toBe(400)
    }
  })

  it('marks a subscriptions/listen to forward outside the request budget', async () => {
    const m = modern('subscriptions/listen', { notifications: { toolsListChanged: true } })
    expect(forwarded(await authz.inspect(request(m.body, { headers: m.headers }), {})).listen).toBe(
      true,
    )
  })

  it('refuses a subscriptions/listen naming a resource the caller may not read', async () => {
    const m = modern('subscriptions/listen', {
      notifications: { resourceSubscriptions: ['file:///ok', 'file:///secret'] },
    })
    const r = answer(await authz.inspect(request(m.body, { headers: m.headers }), {}))
    expect(r.body).toMatchObject({ error: { code: -32602, data: { uri: 'file:///secret' } } })
  })

  it('marks a filtered modern list cacheScope "private" and caps its ttlMs', async () => {
    const result = await filtered(
      'tools/list',
      { tools: [{ name: 'echo' }, { name: 'fetch' }], cacheScope: 'public', ttlMs: 3_600_000 },
      'modern',
    )
    expect(result).toEqual({ tools: [{ name: 'echo' }], cacheScope: 'private', ttlMs: 60_000 })
  })

  it('leaves a legacy list answer without caching hints', async () => {
    const result = await filtered('tools/list', { tools: [{ name: 'echo' }] }, 'legacy')
    expect(result).toEqual({ tools: [{ name: 'echo' }] })
  })

  it('validates Mcp-Param-* of a tool it listed against the arguments', async () => {
    await filtered(
      'tools/list',
      {
        tools: [
          {
            name: 'echo',
            inputSchema: { properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
          },
        ],
      },
      'modern',
    )
    const m = modern('tools/call', { name: 'echo', arguments: { region: 'us-west1' } })
    const ok = { ...m.headers, 'mcp-param-region': ['us-west1'] }
    expect(forwarded(await authz.inspect(request(m.body, { headers: ok }), {})).body).toBeDefined()
    const lying = { ...m.headers, 'mcp-param-region': ['eu-west1'] }
    const r = answer(await authz.inspect(request(m.body, { headers: lying }), {}))
    expect(r.status).toBe(400)
    expect(r.body).toMatchObject({ error: { code: -32020 } })
    const missing = answer(await authz.inspect(request(m.body, { headers: m.headers }), {}))
    expect(missing.body).toMatchObject({ error: { code: -32020 } })
  })
})
