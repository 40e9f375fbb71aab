/**
 * The MCP-aware policy on the request path (docs/auth.md), end to end: a real IdP-shaped key server,
 * the real MCP backend (SDK server, SSE and JSON response modes) and the official SDK client
 * through gatehouse with `mcpAuthorization` and `localRateLimit`.
 */
import { type McpBackend, startMcpBackend, type TimelineEntry } from '@gatehouse/mock-mcp'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GatehouseConfigInput } from '../../src/config/schema.js'
import { authConfig } from '../auth/config.js'
import { startTinyIdp, type TinyIdp } from '../auth/tiny-idp.js'
import { startTestGatehouse, type TestGatehouse } from '../helpers.js'

let idp: TinyIdp
let backend: McpBackend
let jsonBackend: McpBackend
let gh: TestGatehouse
let ghJson: TestGatehouse

function policyConfig(backendPort: number): GatehouseConfigInput {
  const config = authConfig({ idpPort: idp.port, backendPort, issuer: idp.issuer })
  const policy = config.policies?.['mcp-auth']
  if (!policy) throw new Error('no policy')
  policy.traffic.mcpAuthorization = {
    rules: ['mcp.tool.name in ["echo", "progress"]', { allow: '"admins" in jwt.groups' }],
  }
  policy.traffic.localRateLimit = [
    {
      name: 'echo-per-user',
      maxTokens: 3,
      fillInterval: '1h',
      key: 'jwt.sub',
      when: 'mcp.method == "tools/call" && mcp.tool.name == "echo"',
    },
  ]
  return { ...config, config: { adminAddr: '127.0.0.1:0' } }
}

beforeAll(async () => {
  idp = await startTinyIdp()
  backend = await startMcpBackend()
  jsonBackend = await startMcpBackend({ jsonResponse: true })
  gh = await startTestGatehouse(policyConfig(backend.port))
  ghJson = await startTestGatehouse(policyConfig(jsonBackend.port))
})
afterAll(async () => {
  await gh.stop('done')
  await ghJson.stop('done')
  await backend.stop()
  await jsonBackend.stop()
  await idp.stop()
})

async function connect(
  url: string,
  claims: Record<string, unknown> = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport; token: string }> {
  const token = await idp.sign(claims)
  const client = new Client({ name: 'mcp-policy-test', version: '0.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  })
  await client.connect(transport)
  return { client, transport, token }
}

/** A raw `POST /mcp` in the session of `c`, to see statuses and headers the SDK hides. */
function post(
  c: { transport: StreamableHTTPClientTransport; token: string },
  message: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${gh.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${c.token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': String(c.transport.sessionId),
      'mcp-protocol-version': '2025-06-18',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  })
}

function text(result: unknown): string {
  return (result as { content: Array<{ text: string }> }).content.map((c) => c.text).join('')
}

async function timeline(b: McpBackend): Promise<TimelineEntry[]> {
  return (await (await fetch(`${b.origin}/__timeline`)).json()) as TimelineEntry[]
}

describe('per-tool authorization through gatehouse', () => {
  for (const [mode, target] of [
    ['SSE', () => gh],
    ['JSON', () => ghJson],
  ] as const) {
    it(`hides a denied tool from tools/list (${mode} responses) and shows it to whom it is allowed`, async () => {
      const alice = await connect(target().url)
      const names = (await alice.client.listTools()).tools.map((t) => t.name).sort()
      expect(names).toEqual(['echo', 'progress'])
      await alice.client.close()
      const admin = await connect(target().url, { sub: 'root', groups: ['AI-Users', 'admins'] })
      expect((await admin.client.listTools()).tools.map((t) => t.name)).toContain('fetch')
      await admin.client.close()
    })
  }

  it('answers a denied call with a JSON-RPC error and never lets it reach the backend', async () => {
    await fetch(`${backend.origin}/__timeline`, { method: 'DELETE' })
    const { client } = await connect(gh.url)
    const err = await client
      .callTool({ name: 'fetch', arguments: { url: `${backend.origin}/healthz` } })
      .then(() => undefined)
      .catch((e: unknown) => e as { code?: number; message?: string })
    expect(err?.code).toBe(-32602)
    expect(err?.message).toContain('Tool fetch not found')
    expect((await timeline(backend)).some((e) => e.tool === 'fetch')).toBe(false)
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'still ok' } }))).toBe(
      'still ok',
    )
    await client.close()
  })

  it('still streams a progress notification while the backend holds the call', async () => {
    const { client } = await connect(gh.url, { sub: 'streamer' })
    const seen: number[] = []
    await client.callTool(
      { name: 'progress', arguments: { steps: 2, delayMs: 0, holdAfterStep: 1 } },
      undefined,
      {
        onprogress: (p) => {
          seen.push(p.progress)
          if (p.progress === 1) void fetch(`${backend.origin}/__release`, { method: 'POST' })
        },
      },
    )
    expect(seen).toEqual([1, 2])
    await client.close()
  })

  it('refuses a request whose Mcp-Name contradicts the body with 400 HeaderMismatch', async () => {
    const c = await connect(gh.url)
    const res = await post(
      c,
      {
        id: 41,
        method: 'tools/call',
        params: { name: 'fetch', arguments: { url: 'http://127.0.0.1:1/' } },
      },
      { 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
    )
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ id: 41, error: { code: -32020 } })
    await c.client.close()
  })
})

describe('rate limits through gatehouse', () => {
  it('answers 429 with Retry-After and RateLimit headers once a user spent the limit', async () => {
    const bob = await connect(gh.url, { sub: 'bob@example.com' })
    const call = (id: number, headers: Record<string, string> = {}) =>
      post(
        bob,
        { id, method: 'tools/call', params: { name: 'echo', arguments: { text: `call ${id}` } } },
        headers,
      )
    for (let i = 1; i <= 3; i++) {
      const ok = await call(i)
      expect(ok.status).toBe(200)
      expect(ok.headers.get('ratelimit')).toBe(`"echo-per-user";r=${3 - i};t=3600`)
      await ok.text()
    }
    // From a browser page: the 429 must let it read when to retry (CORS exposed headers).
    const limited = await call(4, { origin: 'http://app.example' })
    expect(limited.status).toBe(429)
    expect(limited.headers.get('access-control-expose-headers')?.toLowerCase()).toContain(
      'retry-after',
    )
    expect(limited.headers.get('retry-after')).toBe('3600')
    expect(limited.headers.get('ratelimit-policy')).toBe('"echo-per-user";q=3;w=10800')
    expect(limited.headers.get('ratelimit')).toBe('"echo-per-user";r=0;t=3600')
    expect(await limited.json()).toMatchObject({ error: 'rate_limited' })
    // Another user, and another tool for the same user, are not limited by bob's bucket.
    const other = await connect(gh.url, { sub: 'carol@example.com' })
    expect(text(await other.client.callTool({ name: 'echo', arguments: { text: 'x' } }))).toBe('x')
    await other.client.close()
    expect(
      text(await bob.client.callTool({ name: 'progress', arguments: { steps: 1 } })),
    ).toContain('done')
    await bob.client.close()
  })
})

describe('telemetry of MCP traffic', () => {
  it('counts tool calls by outcome at /metrics and logs subject and tool, never the token', async () => {
    const { client, token } = await connect(gh.url, { sub: 'dave@example.com' })
    await client.callTool({ name: 'echo', arguments: { text: 'm' } })
    await client
      .callTool({ name: 'fetch', arguments: { url: 'http://127.0.0.1:1/' } })
      .catch(() => {})
    await client.close()
    const metrics = await (await fetch(`${gh.adminUrl}/metrics`)).text()
    expect(metrics).toMatch(
      /gatehouse_mcp_tool_calls_total\{route="mcp",tool="echo",outcome="forwarded"\} [1-9]/,
    )
    expect(metrics).toMatch(
      /gatehouse_mcp_tool_calls_total\{route="mcp",tool="fetch",outcome="denied"\} [1-9]/,
    )
    expect(metrics).toMatch(/gatehouse_rate_limited_total\{route="mcp",limit="echo-per-user"\} 1/)
    expect(metrics).toMatch(
      /gatehouse_mcp_list_items_hidden_total\{route="mcp",kind="tool"\} [1-9]/,
    )
    expect(metrics).toMatch(
      /gatehouse_jwks_refreshes_total\{issuer="[^"]+",result="success"\} [1-9]/,
    )
    expect(metrics).toMatch(
      /gatehouse_upstream_duration_seconds_count\{route="mcp",backend="mcp-backend"\} [1-9]/,
    )
    const denied = gh.logs.find(
      (l) =>
        l.module === 'proxy::access' &&
        l.subject === 'dave@example.com' &&
        (l.mcp as { tool?: string } | undefined)?.tool === 'fetch',
    )
    expect(denied).toMatchObject({ outcome: 'mcp_denied', status: 200, route: 'mcp' })
    expect(JSON.stringify(gh.logs)).not.toContain(token)
  })
})
