/**
 * MCP 2026-07-28 request metadata under attack, end to end (gatehouse with JWT auth and an MCP
 * policy in front of the real dual-era mcp-backend): header casing, repeated headers, huge and
 * non-ASCII `Mcp-Name`, Base64-encoded values (Streamable HTTP §Value Encoding), and 1,000
 * concurrent `subscriptions/listen` streams against `limits.maxListenStreams`.
 */
import { request as httpRequest } from 'node:http'
import { headerValue, type McpBackend, modernBody, startMcpBackend } from '@gatehouse/mock-mcp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GatehouseConfigInput } from '../../src/config/schema.js'
import { authConfig } from '../auth/config.js'
import { startTinyIdp, type TinyIdp } from '../auth/tiny-idp.js'
import { startTestGatehouse, type TestGatehouse } from '../helpers.js'
import { final, listen, messagesOf, rpc } from './modern-client.js'

let idp: TinyIdp
let backend: McpBackend
let gh: TestGatehouse
let bearer: string
let url: string

const MAX_LISTEN = 50

function config(backendPort: number): GatehouseConfigInput {
  const c = authConfig({ idpPort: idp.port, backendPort, issuer: idp.issuer })
  const policy = c.policies?.['mcp-auth']
  const b = c.backends?.['mcp-backend']
  if (!policy || !b) throw new Error('no policy')
  b.limits = { maxRequests: 2, maxListenStreams: MAX_LISTEN }
  policy.traffic.mcpAuthorization = {
    rules: ['mcp.tool.name in ["echo", "query"]', 'mcp.prompt.name == "greet"'],
  }
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

/**
 * A raw POST with headers exactly as given (names' casing kept, an array sent as repeated
 * lines, latin1 bytes allowed), which fetch would normalise or refuse.
 */
function rawPost(
  body: string,
  headers: Record<string, string | string[]>,
): Promise<{ status: number; messages: Array<Record<string, unknown>> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          Authorization: `Bearer ${bearer}`,
          ...headers,
        },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (c) => (text += c))
        res.on('end', () => {
          const type = res.headers['content-type'] ?? null
          const json = type?.includes('json') || type?.includes('event-stream')
          resolve({ status: res.statusCode ?? 0, messages: json ? messagesOf(type, text) : [] })
        })
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

const echo = modernBody('tools/call', { params: { name: 'echo', arguments: { text: 'hi' } } })

describe('2026-07-28 request metadata under attack', () => {
  it('reads header names case-insensitively (odd casing on the wire)', async () => {
    const answer = await rawPost(echo, {
      'mCp-PrOtOcOl-VeRsIoN': '2026-07-28',
      'MCP-METHOD': 'tools/call',
      'mcp-NAME': 'echo',
    })
    expect(answer.status).toBe(200)
    expect(
      final({ status: 200, headers: new Headers(), messages: answer.messages }).result,
    ).toMatchObject({ resultType: 'complete' })
  })

  it('compares header values case-sensitively', async () => {
    const answer = await rawPost(echo, {
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'Tools/Call',
      'Mcp-Name': 'echo',
    })
    expect(answer.status).toBe(400)
  })

  it('refuses a repeated Mcp-Name, Mcp-Method or MCP-Protocol-Version, even with equal values', async () => {
    const base = {
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'echo',
    }
    for (const [name, value] of [
      ['Mcp-Name', ['echo', 'echo']],
      ['Mcp-Method', ['tools/call', 'tools/call']],
      ['MCP-Protocol-Version', ['2026-07-28', '2026-07-28']],
    ] as const) {
      const answer = await rawPost(echo, { ...base, [name]: [...value] })
      expect(answer.status).toBe(400)
      expect(answer.messages[0]).toMatchObject({ error: { code: -32020 } })
    }
  })

  it('refuses a huge Mcp-Name with 400 -32020 (message cut), and one past the header limit with 431', async () => {
    const big = 'x'.repeat(12_000)
    const answer = await rawPost(echo, {
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': big,
    })
    expect(answer.status).toBe(400)
    const error = answer.messages[0]?.error as { code: number; message: string }
    expect(error.code).toBe(-32020)
    expect(error.message.length).toBeLessThan(1000)
    const huge = await rawPost(echo, { 'Mcp-Name': 'x'.repeat(40_000) })
    expect(huge.status).toBe(431)
  })

  it('refuses a raw non-ASCII Mcp-Name (it must be Base64-encoded)', async () => {
    const answer = await rawPost(echo, {
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': Buffer.from('échо', 'utf8').toString('latin1'),
    })
    expect(answer.status).toBe(400)
    expect(answer.messages[0]).toMatchObject({ error: { code: -32020 } })
  })

  it('decodes a Base64 Mcp-Name before judging: a non-ASCII tool name is then denied as unknown', async () => {
    const name = 'échо'
    const answer = await rpc(url, 'tools/call', {
      bearer,
      params: { name, arguments: {} },
      headers: { 'mcp-name': headerValue(name) },
    })
    expect(answer.status).toBe(200)
    expect(final(answer).error).toMatchObject({ code: -32602, message: `Tool ${name} not found` })
    const greet = await rpc(url, 'prompts/get', {
      bearer,
      params: { name: 'greet', arguments: { name: 'x' } },
      headers: { 'mcp-name': `=?base64?${Buffer.from('greet').toString('base64')}?=` },
    })
    expect(greet.status).toBe(200)
  })

  it('refuses a malformed Base64 sentinel', async () => {
    const answer = await rpc(url, 'tools/call', {
      bearer,
      params: { name: 'echo', arguments: { text: 'x' } },
      headers: { 'mcp-name': '=?base64?@@@?=' },
    })
    expect(answer.status).toBe(400)
    expect(final(answer).error?.code).toBe(-32020)
  })

  it('accepts a Base64-encoded Mcp-Param value equal to a non-ASCII argument, refuses a different one', async () => {
    await rpc(url, 'tools/list', { bearer })
    const params = { name: 'query', arguments: { region: 'Zürich', sql: 'select 1' } }
    const ok = await rpc(url, 'tools/call', {
      bearer,
      params,
      headers: { 'mcp-param-region': headerValue('Zürich') },
    })
    expect(ok.status).toBe(200)
    const other = await rpc(url, 'tools/call', {
      bearer,
      params,
      headers: { 'mcp-param-region': headerValue('Zurich') },
    })
    expect(other.status).toBe(400)
    expect(final(other).error?.code).toBe(-32020)
  })

  it(`holds at most ${MAX_LISTEN} listen streams of 1,000 opened at once, refusing the rest with 503 at once`, async () => {
    const streams = await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        listen(url, { bearer, id: `l${i}`, params: { notifications: { toolsListChanged: true } } }),
      ),
    )
    const statuses = streams.map((s) => s.status)
    expect(statuses.filter((s) => s === 200)).toHaveLength(MAX_LISTEN)
    expect(statuses.filter((s) => s === 503)).toHaveLength(1000 - MAX_LISTEN)
    // Ordinary requests are not held up by the streams.
    expect((await rpc(url, 'tools/list', { bearer })).status).toBe(200)
    await Promise.all(streams.map((s) => s.close()))
    // The slots come back once the gateway saw the clients leave: a new stream gets one.
    let again = await listen(url, { bearer, params: { notifications: { toolsListChanged: true } } })
    for (let tries = 0; again.status !== 200 && tries < 500; tries++) {
      await again.close()
      again = await listen(url, { bearer, params: { notifications: { toolsListChanged: true } } })
    }
    expect(again.status).toBe(200)
    await again.close()
  })
})
