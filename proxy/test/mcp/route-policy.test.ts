import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { CelCompiler } from '../../src/config/cel.js'
import { checkMcpPolicy } from '../../src/mcp/policy-config.js'
import { compileMcpRoutePolicy } from '../../src/mcp/route-policy.js'
import { answer, forwarded, policyConfig, request, routePolicy } from './route-policy-kit.js'

const callTool = (name: string, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {} },
})

describe('McpRoutePolicy.inspect', () => {
  const authz = routePolicy({ mcpAuthorization: { rules: ['mcp.tool.name == "echo"'] } })

  it('forwards an allowed call with the body exactly as it came', async () => {
    const raw = '{"jsonrpc":"2.0",  "id":1,"method":"tools/call","params":{"name":"echo"}}'
    const f = forwarded(await authz.inspect(request(raw), { sub: 'alice' }))
    expect(f.body?.toString()).toBe(raw)
    expect(f.filterResponse).toBeUndefined()
  })

  it('answers a denied call with a JSON-RPC error worded like an unknown tool', async () => {
    const events: unknown[] = []
    const r = answer(await authz.inspect(request(callTool('fetch', 5), { events }), {}))
    expect(r.status).toBe(200)
    expect(r.code).toBe('GW_ERR_MCP_TARGET_DENIED')
    expect(r.body).toEqual({
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32602, message: 'Tool fetch not found' },
    })
    expect(events).toContainEqual({
      type: 'mcp_authorization',
      data: {
        decisions: [
          expect.objectContaining({
            kind: 'tool',
            name: 'fetch',
            allowed: false,
            rules: expect.any(Array),
          }),
        ],
      },
    })
  })

  it('refuses a whole batch with one denied call, answering every request in it', async () => {
    const r = answer(
      await authz.inspect(
        request([
          callTool('echo', 1),
          callTool('fetch', 2),
          { jsonrpc: '2.0', method: 'notifications/initialized' },
        ]),
        {},
      ),
    )
    expect(r.body).toEqual([
      expect.objectContaining({ id: 1, error: expect.objectContaining({ code: -32000 }) }),
      { jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'Tool fetch not found' } },
    ])
  })

  it('refuses a resource with -32002 and a prompt with -32602', async () => {
    const read = { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'file:///x' } }
    expect(answer(await authz.inspect(request(read), {})).body).toMatchObject({
      error: { code: -32002, message: 'Resource file:///x not found' },
    })
    const get = { jsonrpc: '2.0', id: 1, method: 'prompts/get', params: { name: 'p' } }
    expect(answer(await authz.inspect(request(get), {})).body).toMatchObject({
      error: { code: -32602, message: 'Prompt p not found' },
    })
  })

  it('answers 400 with a parse error for a body that is not JSON', async () => {
    const r = answer(await authz.inspect(request('{nope'), {}))
    expect(r.status).toBe(400)
    expect(r.code).toBe('GW_ERR_MCP_INVALID_MESSAGE')
    expect(r.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } })
  })

  it('answers 400 HeaderMismatch when Mcp-Name names an allowed tool but the body a denied one', async () => {
    const r = answer(
      await authz.inspect(
        request(callTool('fetch', 9), {
          headers: { 'mcp-method': ['tools/call'], 'mcp-name': ['echo'] },
        }),
        {},
      ),
    )
    expect(r.status).toBe(400)
    expect(r.body).toMatchObject({ id: 9, error: { code: -32020 } })
  })

  it('answers 413 for a body above the bound', async () => {
    const big = {
      ...callTool('echo'),
      params: { name: 'echo', arguments: { x: 'y'.repeat(5 * 1024 * 1024) } },
    }
    const r = answer(await authz.inspect(request(big), {}))
    expect([r.status, r.code]).toEqual([413, 'GW_ERR_BODY_TOO_LARGE'])
  })

  it('filters the response of a tools/list and asks the backend for an unencoded body', async () => {
    const f = forwarded(
      await authz.inspect(request({ jsonrpc: '2.0', id: 3, method: 'tools/list' }), {}),
    )
    expect(f.requestHeaders).toEqual({ 'accept-encoding': 'identity' })
    const source = new PassThrough()
    const headers = { 'content-type': 'application/json' }
    const out = f.filterResponse?.(source, headers, 200)
    source.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        result: { tools: [{ name: 'echo' }, { name: 'fetch' }] },
      }),
    )
    let text = ''
    for await (const c of out ?? []) text += String(c)
    expect(JSON.parse(text).result.tools).toEqual([{ name: 'echo' }])
  })

  it('filters list results on a GET stream, and reads no body there', async () => {
    const f = forwarded(
      await authz.inspect(
        { ...request(''), method: 'GET', body: () => Promise.reject(new Error('read')) },
        {},
      ),
    )
    expect(f.body).toBeUndefined()
    expect(f.filterResponse).toBeDefined()
  })

  /** Feeds `payload` as the backend's answer through the list filter of `f`; what leaves. */
  async function throughFilter(
    f: ReturnType<typeof forwarded>,
    headers: Record<string, string>,
    payload: string,
    status = 200,
  ): Promise<{ text: string; error?: Error }> {
    const source = new PassThrough()
    const out = f.filterResponse?.(source, headers, status)
    if (!out) throw new Error('no filter')
    source.end(payload)
    let text = ''
    try {
      for await (const c of out) text += String(c)
    } catch (err) {
      return { text, error: err as Error }
    }
    return { text }
  }

  const listOf = (id: number, field: string, names: string[]) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      result: { [field]: names.map((n) => (field === 'resources' ? { uri: n } : { name: n })) },
    })

  // docs/design/hardening.md: filtering must not depend on ids being unique.
  it('filters every list of a batch whose requests repeat an id, in an event stream', async () => {
    const both = routePolicy({
      mcpAuthorization: { rules: ['mcp.tool.name == "echo" || mcp.prompt.name == "greet"'] },
    })
    const batches = [
      [
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      ],
      [
        { jsonrpc: '2.0', id: 1, method: 'prompts/list' },
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      ],
    ]
    for (const batch of batches) {
      const f = forwarded(await both.inspect(request(batch), {}))
      const sse = [
        `data: ${batch[0]?.method === 'ping' ? '{"jsonrpc":"2.0","id":1,"result":{}}' : listOf(1, 'prompts', ['greet', 'hidden-prompt'])}\n\n`,
        `data: ${listOf(1, 'tools', ['echo', 'hidden-tool'])}\n\n`,
      ].join('')
      const { text } = await throughFilter(f, { 'content-type': 'text/event-stream' }, sse)
      expect(text).toContain('"echo"')
      expect(text).not.toContain('hidden')
    }
  })

  it('filters a batch answered in one event, and a result whose key is escaped', async () => {
    const f = forwarded(
      await authz.inspect(request({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), {}),
    )
    const batch = `[${listOf(1, 'tools', ['echo', 'fetch'])}]`
    const escaped = listOf(1, 'tools', ['echo', 'fetch']).replace('"result"', '"\\u0072esult"')
    for (const payload of [batch, escaped]) {
      const { text } = await throughFilter(
        f,
        { 'content-type': 'text/event-stream' },
        `data: ${payload}\n\n`,
      )
      expect(text).toContain('"echo"')
      expect(text).not.toContain('fetch')
    }
  })

  it('filters a list answered as text/plain, application/vnd.mcp+json or with no content type', async () => {
    const f = forwarded(
      await authz.inspect(request({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), {}),
    )
    for (const headers of <Array<Record<string, string>>>[
      { 'content-type': 'text/plain' },
      { 'content-type': 'application/vnd.mcp+json' },
      {},
    ]) {
      const { text } = await throughFilter(f, headers, listOf(1, 'tools', ['echo', 'fetch']))
      expect(text).toContain('"echo"')
      expect(text).not.toContain('fetch')
    }
  })

  it('cuts off a successful answer to a list request that it cannot read', async () => {
    const f = forwarded(
      await authz.inspect(request({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), {}),
    )
    const garbled = `)]}'\n${listOf(1, 'tools', ['echo', 'fetch'])}`
    for (const headers of [
      { 'content-type': 'application/json' },
      { 'content-type': 'text/html' },
    ]) {
      const { text, error } = await throughFilter(f, headers, garbled)
      expect(text).not.toContain('fetch')
      expect(error?.message).toMatch(/cannot be read/)
    }
    // An error page is no list: it leaves as it came.
    const page = await throughFilter(f, { 'content-type': 'text/plain' }, 'Bad Gateway', 502)
    expect(page).toEqual({ text: 'Bad Gateway' })
  })

  // docs/design/hardening.md: what the OAuth endpoints did not answer goes through the whole policy.
  it('authorizes a POST under /.well-known/ like any other', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp/x',
      '/.well-known/oauth-authorization-server/mcp',
    ]) {
      const r = answer(await authz.inspect({ ...request(callTool('secret-tool')), path }, {}))
      expect(r.body).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32602, message: 'Tool secret-tool not found' },
      })
    }
  })

  it('answers 405 to a method Streamable HTTP does not use, which it would not read', async () => {
    for (const method of ['PUT', 'PATCH']) {
      const r = answer(await authz.inspect({ ...request(callTool('secret-tool')), method }, {}))
      expect(r.status).toBe(405)
      expect(r.headers?.allow).toBe('GET, POST, DELETE')
    }
  })

  it('refuses a GET or DELETE that carries a body it would not read', async () => {
    for (const headers of [
      { 'content-length': ['12'] },
      { 'transfer-encoding': ['chunked'] },
    ] as Array<Record<string, string[]>>) {
      const r = answer(
        await authz.inspect(
          { ...request(callTool('secret-tool'), { headers }), method: 'GET' },
          {},
        ),
      )
      expect(r.status).toBe(400)
    }
    const empty = forwarded(
      await authz.inspect(
        { ...request('', { headers: { 'content-length': ['0'] } }), method: 'DELETE' },
        {},
      ),
    )
    expect(empty.body).toBeUndefined()
  })

  it('inspects without restricting when rules are empty', async () => {
    const open = routePolicy({ mcpAuthorization: { rules: [] } })
    const f = forwarded(await open.inspect(request(callTool('anything')), {}))
    expect(f.filterResponse).toBeUndefined()
  })
})

// docs/design/hardening.md: a completion names a prompt or a resource and is judged like it.
describe('McpRoutePolicy, completion/complete', () => {
  const policy = routePolicy({
    mcpAuthorization: {
      rules: [
        { deny: 'mcp.prompt.name == "secret-prompt"' },
        { deny: 'mcp.resource.uri.startsWith("secret://")' },
      ],
    },
  })
  const complete = (ref: unknown, id = 4) => ({
    jsonrpc: '2.0',
    id,
    method: 'completion/complete',
    params: { ref, argument: { name: 'a', value: 'x' } },
  })

  it('refuses a completion for a denied prompt or resource as it refuses using them', async () => {
    const prompt = answer(
      await policy.inspect(request(complete({ type: 'ref/prompt', name: 'secret-prompt' })), {}),
    )
    expect(prompt.body).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32602, message: 'Prompt secret-prompt not found' },
    })
    const resource = answer(
      await policy.inspect(request(complete({ type: 'ref/resource', uri: 'secret://{id}' })), {}),
    )
    expect(resource.body).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32002, message: 'Resource secret://{id} not found' },
    })
  })

  it('forwards a completion for an allowed prompt or resource', async () => {
    for (const ref of [
      { type: 'ref/prompt', name: 'greet' },
      { type: 'ref/resource', uri: 'file:///{path}' },
    ]) {
      expect(forwarded(await policy.inspect(request(complete(ref)), {})).body).toBeDefined()
    }
  })

  it('refuses a completion whose ref it cannot name with 400 -32602', async () => {
    for (const ref of [
      undefined,
      { type: 'ref/prompt' },
      { type: 'ref/resource', name: 'x' },
      { type: 'ref/tool', name: 'x' },
    ]) {
      const r = answer(await policy.inspect(request(complete(ref)), {}))
      expect(r.status).toBe(400)
      expect(r.body).toMatchObject({ error: { code: -32602 } })
    }
  })
})

describe('McpRoutePolicy rate limits', () => {
  it('answers 429 with Retry-After and RateLimit headers once the bucket is empty', async () => {
    const limited = routePolicy({
      localRateLimit: [
        {
          name: 'calls',
          maxTokens: 1,
          fillInterval: '1m',
          key: 'jwt.sub',
          when: 'mcp.method == "tools/call"',
        },
      ],
    })
    const first = forwarded(await limited.inspect(request(callTool('echo')), { sub: 'alice' }))
    expect(first.responseHeaders).toEqual({
      'ratelimit-policy': '"calls";q=1;w=60',
      ratelimit: '"calls";r=0;t=60',
    })
    const r = answer(await limited.inspect(request(callTool('echo')), { sub: 'alice' }))
    expect(r.status).toBe(429)
    expect(r.headers).toMatchObject({ 'retry-after': '60', ratelimit: '"calls";r=0;t=60' })
    expect(r.body).toMatchObject({ error: 'rate_limited' })
    forwarded(await limited.inspect(request(callTool('echo')), { sub: 'bob' }))
  })
})

describe('checkMcpPolicy', () => {
  it('names the path of a rule and of a limit expression that do not compile', () => {
    const issues = checkMcpPolicy(
      'p',
      policyConfig({
        mcpAuthorization: { rules: ['true', { deny: 'mcp.tool.name ==' }] },
        localRateLimit: [{ maxTokens: 1, fillInterval: '1s', key: 'jwt.sub +' }],
      }),
      new CelCompiler(),
    )
    expect(issues.map((i) => i.path)).toEqual([
      'policies.p.traffic.mcpAuthorization.rules[1]',
      'policies.p.traffic.localRateLimit[0].key',
    ])
    expect(issues[0]?.message).toMatch(/^invalid CEL "mcp.tool.name =="/)
  })

  it('refuses two limits with one name', () => {
    const issues = checkMcpPolicy(
      'p',
      policyConfig({
        localRateLimit: [
          { name: 'x', maxTokens: 1, fillInterval: '1s' },
          { name: 'x', maxTokens: 2, fillInterval: '1s' },
        ],
      }),
      new CelCompiler(),
    )
    expect(issues).toEqual([
      {
        path: 'policies.p.traffic.localRateLimit[1].name',
        message: expect.stringContaining('"x"'),
      },
    ])
  })

  it('is not compiled for a route without MCP-aware policies', () => {
    expect(compileMcpRoutePolicy([{ name: 'p', policy: policyConfig({}) }])).toBeUndefined()
  })
})
