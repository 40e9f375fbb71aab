import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  headerValue,
  LIST_TTL_MS,
  type McpBackend,
  type ModernRequestOptions,
  modernRequest,
  startMcpBackend,
} from '../src/index.js'

let backend: McpBackend

beforeAll(async () => {
  backend = await startMcpBackend()
})
afterAll(async () => {
  await backend.stop()
})

interface RpcAnswer {
  status: number
  headers: Headers
  messages: Array<Record<string, unknown>>
}

/** The JSON-RPC messages of a body, JSON or SSE. */
function messagesOf(contentType: string | null, body: string): Array<Record<string, unknown>> {
  if (!contentType?.includes('text/event-stream')) return body ? [JSON.parse(body)] : []
  return body
    .split(/\r?\n/)
    .filter((l) => l.startsWith('data:') && l.slice(5).trim() !== '')
    .map((l) => JSON.parse(l.slice(5)))
}

async function rpc(method: string, options: ModernRequestOptions = {}): Promise<RpcAnswer> {
  const res = await fetch(backend.url, modernRequest(method, options))
  return {
    status: res.status,
    headers: res.headers,
    messages: messagesOf(res.headers.get('content-type'), await res.text()),
  }
}

/** The final response (the message with an id) of an answer. */
function final(answer: RpcAnswer): {
  result?: Record<string, unknown>
  error?: { code: number; message: string; data?: Record<string, unknown> }
} {
  const last = answer.messages.find((m) => 'id' in m && ('result' in m || 'error' in m))
  if (!last) throw new Error(`no response in ${JSON.stringify(answer.messages)}`)
  return last as ReturnType<typeof final>
}

const ELICIT = { elicitation: { form: {} } }
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }

describe('mcp-backend, 2026-07-28 leg', () => {
  it('answers server/discover without initialize and names 2026-07-28 and the tasks extension', async () => {
    const answer = await rpc('server/discover')
    expect(answer.status).toBe(200)
    expect(answer.headers.get('mcp-session-id')).toBeNull()
    const { result } = final(answer)
    expect(result?.supportedVersions).toContain('2026-07-28')
    expect(result?.resultType).toBe('complete')
    expect(result?.capabilities).toMatchObject({
      tools: {},
      extensions: { 'io.modelcontextprotocol/tasks': {} },
    })
  })

  it('lists tools, resources and prompts with ttlMs and cacheScope "public", each request on its own', async () => {
    for (const [method, key] of [
      ['tools/list', 'tools'],
      ['resources/list', 'resources'],
      ['prompts/list', 'prompts'],
    ] as const) {
      const { result } = final(await rpc(method))
      expect(result, method).toMatchObject({ ttlMs: LIST_TTL_MS, cacheScope: 'public' })
      expect(result?.[key], method).toEqual(expect.arrayContaining([expect.anything()]))
    }
    const { result } = final(await rpc('tools/list'))
    const tools = result?.tools as Array<{ name: string; inputSchema: Record<string, unknown> }>
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['echo', 'fetch', 'progress', 'confirm', 'query', 'report']),
    )
    const query = tools.find((t) => t.name === 'query')
    expect(query?.inputSchema).toMatchObject({
      properties: { region: { 'x-mcp-header': 'Region' } },
    })
  })

  it('calls a tool statelessly: no session is minted, and a stray Mcp-Session-Id does not matter', async () => {
    const answer = await rpc('tools/call', {
      params: { name: 'echo', arguments: { text: 'hi' } },
      headers: { 'mcp-session-id': 'not-a-session' },
    })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('mcp-session-id')).toBeNull()
    expect(final(answer).result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'hi' }],
    })
  })

  it.each([
    ['an Mcp-Name that names another tool', { 'mcp-name': 'fetch' }],
    ['no Mcp-Name on tools/call', { 'mcp-name': null }],
    ['no Mcp-Method', { 'mcp-method': null }],
    ['an Mcp-Method that names another method', { 'mcp-method': 'tools/list' }],
    ['an MCP-Protocol-Version that differs from _meta', { 'mcp-protocol-version': '2025-11-25' }],
  ])('refuses %s with 400 and HeaderMismatch -32020', async (_what, headers) => {
    const answer = await rpc('tools/call', {
      params: { name: 'echo', arguments: { text: 'hi' } },
      headers,
    })
    expect(answer.status).toBe(400)
    expect(final(answer).error?.code).toBe(-32020)
  })

  it('validates Mcp-Param-Region against the x-mcp-header argument, Base64 sentinel included', async () => {
    const call = (region: string, header: string | null) =>
      rpc('tools/call', {
        params: { name: 'query', arguments: { region, sql: 'select 1' } },
        headers: { 'mcp-param-region': header },
      })
    const ok = await call('eu-west1', 'eu-west1')
    expect(ok.status).toBe(200)
    expect(final(ok).result?.content).toEqual([
      { type: 'text', text: 'ran "select 1" in eu-west1' },
    ])
    const encoded = await call('Zürich', headerValue('Zürich'))
    expect(encoded.status).toBe(200)
    for (const header of ['us-east1', null]) {
      const refused = await call('eu-west1', header)
      expect(refused.status, String(header)).toBe(400)
      expect(final(refused).error?.code, String(header)).toBe(-32020)
    }
  })

  it('completes a multi round-trip request: input_required, then a retry with inputResponses', async () => {
    const first = final(
      await rpc('tools/call', {
        params: { name: 'confirm', arguments: { action: 'deploy' } },
        capabilities: ELICIT,
      }),
    )
    expect(first.result?.resultType).toBe('input_required')
    const requests = first.result?.inputRequests as Record<string, { method: string }>
    expect(requests.confirm?.method).toBe('elicitation/create')
    const retry = final(
      await rpc('tools/call', {
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

  it('refuses the elicitation round trip to a client that did not declare elicitation (-32021)', async () => {
    const answer = await rpc('tools/call', {
      params: { name: 'confirm', arguments: { action: 'deploy' } },
    })
    expect(final(answer).error?.code).toBe(-32021)
  })

  it('answers methods 2026-07-28 removed with 404 and -32601', async () => {
    for (const [method, params] of [
      ['resources/subscribe', { uri: 'mock://notes/readme' }],
      ['logging/setLevel', { level: 'info' }],
      ['ping', {}],
    ] as const) {
      const answer = await rpc(method, { params })
      expect(answer.status, method).toBe(404)
      expect(final(answer).error?.code, method).toBe(-32601)
    }
  })

  it('answers an unknown resource with -32602 and data.uri, a known one with its text', async () => {
    const missing = final(await rpc('resources/read', { params: { uri: 'mock://notes/none' } }))
    expect(missing.error).toMatchObject({ code: -32602, data: { uri: 'mock://notes/none' } })
    const found = final(await rpc('resources/read', { params: { uri: 'mock://notes/readme' } }))
    expect(found.result?.contents).toEqual([
      { uri: 'mock://notes/readme', mimeType: 'text/plain', text: 'hello from mcp-backend' },
    ])
  })

  it('refuses a revision it does not serve with 400 and UnsupportedProtocolVersionError', async () => {
    const res = await fetch(backend.url, {
      ...modernRequest('tools/list', { headers: { 'mcp-protocol-version': '2099-01-01' } }),
      body: modernRequest('tools/list').body?.toString().replace('2026-07-28', '2099-01-01'),
    })
    expect(res.status).toBe(400)
    const body = (await res.json()) as { error: { code: number; data: { supported: string[] } } }
    expect(body.error.code).toBe(-32022)
    expect(body.error.data.supported).toContain('2026-07-28')
  })

  it('streams progress notifications on the request own response stream, then the result', async () => {
    const answer = await rpc('tools/call', {
      params: { name: 'progress', arguments: { steps: 3, delayMs: 0 } },
      meta: { progressToken: 'p1' },
    })
    expect(answer.headers.get('content-type')).toContain('text/event-stream')
    const progress = answer.messages.filter((m) => m.method === 'notifications/progress')
    expect(progress.map((m) => (m.params as { progress: number }).progress)).toEqual([1, 2, 3])
    expect(answer.messages.at(-1)).toMatchObject({
      id: 1,
      result: { resultType: 'complete', content: [{ type: 'text', text: 'done after 3 steps' }] },
    })
  })
})

describe('mcp-backend, subscriptions/listen', () => {
  it('acknowledges first, then delivers the list change it was asked for, on a stream that stays open', async () => {
    const aborted = new AbortController()
    const res = await fetch(backend.url, {
      ...modernRequest('subscriptions/listen', {
        id: 'sub-1',
        params: { notifications: { toolsListChanged: true } },
      }),
      signal: aborted.signal,
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/event-stream')
    const reader = (res.body as ReadableStream<Uint8Array>).getReader()
    const decoder = new TextDecoder()
    let buffered = ''
    const next = async (): Promise<Record<string, unknown>> => {
      for (;;) {
        const at = buffered.search(/\r?\n\r?\n/)
        if (at >= 0) {
          const event = buffered.slice(0, at)
          buffered = buffered.slice(at).replace(/^\r?\n\r?\n/, '')
          const data = event
            .split(/\r?\n/)
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5))
            .join('')
          if (data.trim()) return JSON.parse(data)
          continue
        }
        const { done, value } = await reader.read()
        if (done) throw new Error('the listen stream ended')
        buffered += decoder.decode(value, { stream: true })
      }
    }
    const ack = await next()
    expect(ack).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: {
        _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' },
        notifications: { toolsListChanged: true },
      },
    })
    // Other requests are served while the stream is open.
    expect(final(await rpc('tools/list')).result?.resultType).toBe('complete')
    const notified = await fetch(`${backend.origin}/__notify?list=tools`, { method: 'POST' })
    expect(notified.status).toBe(200)
    expect(await next()).toMatchObject({
      method: 'notifications/tools/list_changed',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' } },
    })
    aborted.abort()
    await reader.cancel().catch(() => undefined)
  })

  it('refuses /__notify without a kind', async () => {
    const res = await fetch(`${backend.origin}/__notify`, { method: 'POST' })
    expect(res.status).toBe(400)
  })
})

describe('mcp-backend, the tasks extension', () => {
  it('runs a report as a task: working, input_required, approved by tasks/update, completed', async () => {
    const created = final(
      await rpc('tools/call', {
        params: { name: 'report', arguments: { topic: 'uptime' } },
        capabilities: TASKS,
      }),
    ).result
    expect(created).toMatchObject({ resultType: 'task', status: 'working' })
    const taskId = created?.taskId as string
    const polled = final(await rpc('tasks/get', { params: { taskId }, capabilities: TASKS }))
    expect(polled.result).toMatchObject({
      resultType: 'complete',
      taskId,
      status: 'input_required',
      inputRequests: { approve: { method: 'elicitation/create' } },
    })
    const ack = final(
      await rpc('tasks/update', {
        params: {
          taskId,
          inputResponses: { approve: { action: 'accept', content: { approve: true } } },
        },
        capabilities: TASKS,
      }),
    )
    expect(ack.result?.resultType).toBe('complete')
    expect(
      final(await rpc('tasks/get', { params: { taskId }, capabilities: TASKS })).result,
    ).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'report on uptime: 3 findings' }] },
    })
  })

  it('answers the report at once to a client without the extension, and refuses it tasks/get with -32021', async () => {
    const plain = final(
      await rpc('tools/call', { params: { name: 'report', arguments: { topic: 'x' } } }),
    )
    expect(plain.result).toMatchObject({ resultType: 'complete' })
    const refused = final(await rpc('tasks/get', { params: { taskId: 'whatever' } }))
    expect(refused.error?.code).toBe(-32021)
  })

  it('needs Mcp-Name: <taskId> on tasks/get, cancels with tasks/cancel, and answers an unknown task -32602', async () => {
    const taskId = final(
      await rpc('tools/call', {
        params: { name: 'report', arguments: { topic: 'cancel me' } },
        capabilities: TASKS,
      }),
    ).result?.taskId as string
    const noName = await rpc('tasks/get', {
      params: { taskId },
      capabilities: TASKS,
      headers: { 'mcp-name': null },
    })
    expect(noName.status).toBe(400)
    expect(final(noName).error?.code).toBe(-32020)
    expect(
      final(await rpc('tasks/cancel', { params: { taskId }, capabilities: TASKS })).result,
    ).toBeDefined()
    expect(
      final(await rpc('tasks/get', { params: { taskId }, capabilities: TASKS })).result?.status,
    ).toBe('cancelled')
    const unknown = final(
      await rpc('tasks/get', { params: { taskId: 'no-such-task' }, capabilities: TASKS }),
    )
    expect(unknown.error?.code).toBe(-32602)
  })
})

describe('mcp-backend, both eras on one endpoint', () => {
  it('keeps a 2025-11-25 SDK session working between 2026-07-28 requests', async () => {
    const client = new Client({ name: 'legacy', version: '0.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(backend.url))
    await client.connect(transport)
    expect(transport.sessionId).toBeTruthy()
    expect(final(await rpc('tools/list')).result?.resultType).toBe('complete')
    const result = await client.callTool({ name: 'echo', arguments: { text: 'old' } })
    expect(result.content).toEqual([{ type: 'text', text: 'old' }])
    const legacyTools = (await client.listTools()).tools.map((t) => t.name)
    expect(legacyTools).toEqual(expect.arrayContaining(['echo', 'fetch', 'progress', 'notify']))
    await transport.terminateSession()
    await client.close()
  })

  it('sends a POST without the 2026 envelope or header to the 2025 rules (initialize required)', async () => {
    const res = await fetch(backend.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    })
    expect(res.status).toBe(400)
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32000)
  })
})
