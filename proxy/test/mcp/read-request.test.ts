import { describe, expect, it } from 'vitest'
import { readMessages } from '../../src/mcp/read-request.js'

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' }

function req(body: unknown, headers: Record<string, string[]> = {}) {
  return { headersDistinct: headers, body: async () => Buffer.from(JSON.stringify(body)) }
}

describe('readMessages', () => {
  it('reads a legacy body as before: no headers needed, era legacy', async () => {
    const r = await readMessages(req({ jsonrpc: '2.0', id: 1, method: 'tools/list' }))
    expect(r).toMatchObject({ era: 'legacy', batch: false })
  })

  it('reads a modern body with its headers, era modern', async () => {
    const r = await readMessages(
      req(
        { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } },
        { 'mcp-protocol-version': ['2026-07-28'], 'mcp-method': ['tools/list'] },
      ),
    )
    expect(r).toMatchObject({ era: 'modern' })
  })

  it('does not read resources/subscribe by 2025 rules in modern traffic: 404/-32601, not 400/-32602', async () => {
    const body = { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { _meta: META } }
    const headers = {
      'mcp-protocol-version': ['2026-07-28'],
      'mcp-method': ['resources/subscribe'],
    }
    const r = await readMessages(req(body, headers))
    expect(r).toMatchObject({ response: { status: 404, body: { error: { code: -32601 } } } })
    // The same body in legacy traffic keeps its 2025 refusal (a subscribe names a uri).
    const legacy = await readMessages(req({ ...body, params: {} }))
    expect(legacy).toMatchObject({ response: { status: 400, body: { error: { code: -32602 } } } })
  })

  it('answers a header mismatch under its own code, GW_ERR_MCP_HEADER_MISMATCH', async () => {
    const r = await readMessages(
      req({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-method': ['tools/call'] }),
    )
    expect(r).toMatchObject({
      response: {
        status: 400,
        code: 'GW_ERR_MCP_HEADER_MISMATCH',
        body: { id: 3, error: { code: -32020 } },
      },
    })
  })
})
