import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  initializeRequest,
  type McpBackend,
  type RecordedRequest,
  startMcpBackend,
  type TimelineEntry,
} from '../src/index.js'

let backend: McpBackend

beforeAll(async () => {
  backend = await startMcpBackend()
})
afterAll(async () => {
  await backend.stop()
})

async function connect(
  url = backend.url,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'test', version: '0.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(url))
  await client.connect(transport)
  return { client, transport }
}

function text(result: unknown): string {
  const content = (result as { content: Array<{ type: string; text: string }> }).content
  return content.map((c) => c.text).join('')
}

describe('mcp-backend', () => {
  it('initializes a session with the official SDK client and lists its tools', async () => {
    const { client, transport } = await connect()
    expect(client.getServerVersion()?.name).toBe('mcp-backend')
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/)
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(['echo', 'fetch', 'notify', 'progress'])
    await client.close()
  })

  it('echo returns its input', async () => {
    const { client } = await connect()
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'hi there' } }))).toBe(
      'hi there',
    )
    await client.close()
  })

  it('fetch reads a loopback URL and refuses other hosts by default', async () => {
    const site = createServer((_req, res) => res.end('hello from loopback'))
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r))
    const { port } = site.address() as AddressInfo
    const { client } = await connect()
    const ok = await client.callTool({
      name: 'fetch',
      arguments: { url: `http://127.0.0.1:${port}/` },
    })
    expect(ok.isError).toBe(false)
    expect(text(ok)).toContain('hello from loopback')
    const refused = await client.callTool({
      name: 'fetch',
      arguments: { url: 'http://example.com/' },
    })
    expect(refused.isError).toBe(true)
    expect(text(refused)).toContain('only loopback hosts are allowed')
    await client.close()
    await new Promise((r) => site.close(r))
  })

  it('streams a progress notification while the tool is still running', async () => {
    await fetch(`${backend.origin}/__timeline`, { method: 'DELETE' })
    const { client } = await connect()
    const progress: number[] = []
    // The tool holds after step 1 until released; releasing only once step 1 has arrived proves
    // the notification was delivered while the call was still open (a buffering hop would hang).
    const call = client.callTool(
      { name: 'progress', arguments: { steps: 2, delayMs: 0, holdAfterStep: 1 } },
      undefined,
      {
        onprogress: (p) => {
          progress.push(p.progress)
          if (p.progress === 1) void fetch(`${backend.origin}/__release`, { method: 'POST' })
        },
      },
    )
    expect(text(await call)).toBe('done after 2 steps')
    expect(progress).toEqual([1, 2])
    const timeline = (await (await fetch(`${backend.origin}/__timeline`)).json()) as TimelineEntry[]
    expect(timeline.map((e) => e.event)).toEqual([
      'tool_started',
      'progress_sent',
      'held',
      'released',
      'progress_sent',
      'tool_finished',
    ])
    await client.close()
  })

  it('records requests without keeping the authorization value, and ends a session on DELETE', async () => {
    await fetch(`${backend.origin}/__requests`, { method: 'DELETE' })
    const { client, transport } = await connect()
    const sessionId = transport.sessionId
    await transport.terminateSession()
    const after = await fetch(backend.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': String(sessionId),
        authorization: 'Bearer secret-token-value',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    })
    expect(after.status).toBe(404)
    const recorded = (await (
      await fetch(`${backend.origin}/__requests`)
    ).json()) as RecordedRequest[]
    expect(recorded.some((r) => r.method === 'DELETE' && r.sessionId === sessionId)).toBe(true)
    const last = recorded.at(-1)
    expect(last?.hasAuthorization).toBe(true)
    expect(JSON.stringify(recorded)).not.toContain('secret-token-value')
    await client.close()
  })

  it('rejects a non-initialize POST without a session and unknown paths', async () => {
    const res = await fetch(backend.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(res.status).toBe(400)
    const nothing = await fetch(`${backend.origin}/nothing`)
    expect(nothing.status).toBe(404)
    expect(((await nothing.json()) as { error: string }).error).toBe('not_found')
  })

  it('answers with JSON instead of SSE when started with jsonResponse', async () => {
    const json = await startMcpBackend({ jsonResponse: true })
    const res = await fetch(json.url, initializeRequest())
    expect(res.headers.get('content-type')).toContain('application/json')
    expect(
      ((await res.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name,
    ).toBe('mcp-backend')
    await json.stop()
  })

  it('replays the events after Last-Event-ID on a GET stream (resumable), and not without an event store', async () => {
    const session = async (url: string) => {
      const init = await fetch(url, {
        ...initializeRequest(),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 't', version: '0' },
          },
        }),
      })
      await init.text()
      return {
        'mcp-session-id': String(init.headers.get('mcp-session-id')),
        'mcp-protocol-version': '2025-11-25',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      }
    }
    /** Opens the GET stream, runs `during`, and returns the message events read until `count`. */
    const listen = async (
      url: string,
      headers: Record<string, string>,
      count: number,
      during: () => Promise<void>,
      lastEventId?: string,
    ) => {
      const abort = new AbortController()
      const res = await fetch(url, {
        headers: {
          ...headers,
          accept: 'text/event-stream',
          ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
        },
        signal: abort.signal,
      })
      expect(res.status).toBe(200)
      await during()
      const reader = (res.body as ReadableStream<Uint8Array>).getReader()
      let text = ''
      const events: Array<{ id: string | undefined; n: number }> = []
      while (events.length < count) {
        const { value, done } = await reader.read()
        if (done) break
        text += new TextDecoder().decode(value)
        const blocks = text.split('\n\n')
        text = blocks.pop() ?? ''
        for (const block of blocks) {
          const data = /^data: (.*)$/m.exec(block)?.[1]
          if (!data?.includes('notifications/message')) continue
          const n = (JSON.parse(data) as { params: { data: { n: number } } }).params.data.n
          events.push({ id: /^id: (.*)$/m.exec(block)?.[1], n })
        }
      }
      abort.abort()
      return events
    }
    const call = (url: string, headers: Record<string, string>) => async () => {
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'notify', arguments: { count: 3 } },
        }),
      })
      expect(await res.text()).toContain('sent 3 messages')
    }
    const headers = await session(backend.url)
    const first = await listen(backend.url, headers, 3, call(backend.url, headers))
    expect(first.map((e) => e.n)).toEqual([1, 2, 3])
    expect(first.every((e) => e.id)).toBe(true)
    const replayed = await listen(backend.url, headers, 2, async () => {}, first[0]?.id)
    expect(replayed).toEqual(first.slice(1))

    const plain = await startMcpBackend({ resumable: false })
    const plainHeaders = await session(plain.url)
    const unnumbered = await listen(plain.url, plainHeaders, 3, call(plain.url, plainHeaders))
    expect(unnumbered.map((e) => e.id)).toEqual([undefined, undefined, undefined])
    await plain.stop()
  })
})
