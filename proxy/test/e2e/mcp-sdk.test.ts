/**
 * MCP traffic through the proxy with the official SDK client and server (no auth policy here:
 * the data plane alone). Streaming is judged by order of events, never by timing.
 */
import { type McpBackend, startMcpBackend, type TimelineEntry } from '@gatehouse/mock-mcp'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { simpleConfig, startTestGatehouse, type TestGatehouse } from '../helpers.js'

let backend: McpBackend
let gh: TestGatehouse

beforeAll(async () => {
  backend = await startMcpBackend()
  gh = await startTestGatehouse(simpleConfig(backend.port))
})
afterAll(async () => {
  await gh.stop('test done')
  await backend.stop()
})

async function connect(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'sdk-through-gatehouse', version: '0.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`${gh.url}/mcp`))
  await client.connect(transport)
  return { client, transport }
}

function text(result: unknown): string {
  return (result as { content: Array<{ text: string }> }).content.map((c) => c.text).join('')
}

describe('MCP through gatehouse (official SDK client and server)', () => {
  it('initializes and calls tools', async () => {
    const { client, transport } = await connect()
    expect(client.getServerVersion()?.name).toBe('mcp-backend')
    expect(transport.sessionId).toBeTruthy()
    expect(
      text(await client.callTool({ name: 'echo', arguments: { text: 'via gatehouse' } })),
    ).toBe('via gatehouse')
    const fetched = await client.callTool({
      name: 'fetch',
      arguments: { url: `${backend.origin}/healthz` },
    })
    expect(text(fetched)).toContain('"status":"ok"')
    await client.close()
  })

  it('streams a progress notification to the client while the backend still holds the call', async () => {
    await fetch(`${backend.origin}/__timeline`, { method: 'DELETE' })
    const { client } = await connect()
    const progress: number[] = []
    // The backend stops after step 1 until released, and the client releases it only when
    // step 1 arrived: if the proxy buffered the SSE response, this call could never finish.
    const result = await client.callTool(
      { name: 'progress', arguments: { steps: 3, delayMs: 0, holdAfterStep: 1 } },
      undefined,
      {
        onprogress: (p) => {
          progress.push(p.progress)
          if (p.progress === 1) void fetch(`${backend.origin}/__release`, { method: 'POST' })
        },
        timeout: 20_000,
      },
    )
    expect(text(result)).toBe('done after 3 steps')
    expect(progress).toEqual([1, 2, 3])
    const timeline = (await (await fetch(`${backend.origin}/__timeline`)).json()) as TimelineEntry[]
    expect(timeline.map((e) => e.event)).toContain('released')
    await client.close()
  })

  it('carries the session id both ways and ends the session with DELETE', async () => {
    await fetch(`${backend.origin}/__requests`, { method: 'DELETE' })
    const { client, transport } = await connect()
    const sessionId = transport.sessionId
    await client.listTools()
    await transport.terminateSession()
    expect(transport.sessionId).toBeUndefined()
    const seen = (await (await fetch(`${backend.origin}/__requests`)).json()) as Array<{
      method: string
      sessionId: string | null
      headers: Record<string, string>
    }>
    const withSession = seen.filter((r) => r.sessionId === sessionId)
    expect(withSession.map((r) => r.method)).toContain('DELETE')
    expect(withSession.every((r) => r.headers['mcp-protocol-version'] !== undefined)).toBe(true)
    const gone = await fetch(`${gh.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': String(sessionId),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }),
    })
    expect(gone.status).toBe(404)
    await client.close()
  })
})
