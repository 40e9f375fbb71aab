/**
 * The client-mode scenarios' backend serves both protocol eras on one endpoint: 2026-07-28
 * requests answered statelessly, everything else by mcp-backend (the SDK's 2025-11-25 server).
 */
import { initializeBody } from '@gatehouse/mock-mcp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type DualEraBackend, startDualEraBackend } from '../../src/client/modern-backend.js'

let backend: DualEraBackend
let url: string

beforeAll(async () => {
  backend = await startDualEraBackend()
  url = `http://127.0.0.1:${backend.port}/mcp`
})
afterAll(async () => {
  await backend.stop()
})

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
}

function post(body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

describe('startDualEraBackend', () => {
  it('answers a 2026-07-28 tools/list without a session, with resultType and cache fields', async () => {
    const res = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    )
    expect(res.status).toBe(200)
    const json = (await res.json()) as { result: Record<string, unknown> }
    expect(json.result.resultType).toBe('complete')
    expect(json.result.cacheScope).toBe('private')
    expect((json.result.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(['echo'])
  })

  it('echoes on a 2026-07-28 tools/call', async () => {
    const res = await post({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hi' }, _meta: META },
    })
    const json = (await res.json()) as { result: { content: Array<{ text: string }> } }
    expect(json.result.content[0]?.text).toBe('hi')
  })

  it('answers a 2026-07-28 method it does not have with 404 and -32601', async () => {
    const res = await post({
      jsonrpc: '2.0',
      id: 3,
      method: 'prompts/list',
      params: { _meta: META },
    })
    expect(res.status).toBe(404)
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32601)
  })

  it('hands a 2025-11-25 initialize to mcp-backend, which opens a session', async () => {
    const res = await post(initializeBody())
    expect(res.status).toBe(200)
    expect(res.headers.get('mcp-session-id')).toBeTruthy()
    await res.body?.cancel()
  })
})
