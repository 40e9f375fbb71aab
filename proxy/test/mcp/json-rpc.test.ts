import { describe, expect, it } from 'vitest'
import {
  isMcpBodyError,
  MCP_MAX_BATCH,
  type McpBody,
  type McpBodyError,
  parseMcpBody,
  RPC_ERROR,
} from '../../src/mcp/json-rpc.js'

function parse(value: unknown): McpBody | McpBodyError {
  return parseMcpBody(Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)))
}

function ok(value: unknown): McpBody {
  const r = parse(value)
  if (isMcpBodyError(r)) throw new Error(`refused: ${r.message}`)
  return r
}

function refused(value: unknown): McpBodyError {
  const r = parse(value)
  if (!isMcpBodyError(r)) throw new Error('accepted')
  return r
}

describe('parseMcpBody', () => {
  it('reads the tool a tools/call names, with its arguments', () => {
    const body = ok({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hi' } },
    })
    expect(body.batch).toBe(false)
    expect(body.messages).toEqual([
      {
        type: 'request',
        id: 7,
        method: 'tools/call',
        target: { kind: 'tool', name: 'echo', arguments: { text: 'hi' } },
      },
    ])
  })

  it('reads prompts by name and resources by uri', () => {
    const body = ok([
      { jsonrpc: '2.0', id: 'a', method: 'prompts/get', params: { name: 'greet' } },
      { jsonrpc: '2.0', id: 'b', method: 'resources/read', params: { uri: 'file:///x' } },
      { jsonrpc: '2.0', id: 'c', method: 'resources/subscribe', params: { uri: 'file:///y' } },
    ])
    expect(body.batch).toBe(true)
    expect(body.messages.map((m) => m.target)).toEqual([
      { kind: 'prompt', name: 'greet' },
      { kind: 'resource', name: 'file:///x' },
      { kind: 'resource', name: 'file:///y' },
    ])
  })

  it('tells requests, notifications and responses apart', () => {
    const body = ok([
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 9, result: {} },
    ])
    expect(body.messages.map((m) => [m.type, m.method, m.target])).toEqual([
      ['request', 'tools/list', undefined],
      ['notification', 'notifications/initialized', undefined],
      ['response', '', undefined],
    ])
  })

  it('refuses what is not JSON with a parse error', () => {
    const err = refused('{"jsonrpc":')
    expect(err.code).toBe(RPC_ERROR.parseError)
    expect(err.id).toBeNull()
  })

  it('refuses a message that is not JSON-RPC 2.0', () => {
    expect(refused({ id: 1, method: 'tools/list' }).code).toBe(RPC_ERROR.invalidRequest)
    expect(refused({ jsonrpc: '2.0', id: 1 }).code).toBe(RPC_ERROR.invalidRequest)
    expect(refused({ jsonrpc: '2.0', id: { x: 1 }, method: 'ping' }).code).toBe(
      RPC_ERROR.invalidRequest,
    )
    expect(refused({ jsonrpc: '2.0', id: null, method: 'ping' }).code).toBe(
      RPC_ERROR.invalidRequest,
    )
    expect(refused('42').code).toBe(RPC_ERROR.invalidRequest)
  })

  it('refuses a tools/call without a tool name, naming the request', () => {
    const err = refused({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { arguments: {} } })
    expect(err).toMatchObject({ code: RPC_ERROR.invalidParams, id: 3 })
    expect(err.message).toContain('params.name')
    expect(
      refused({ jsonrpc: '2.0', id: 4, method: 'resources/read', params: {} }).message,
    ).toContain('params.uri')
  })

  it('refuses an empty batch, an oversized batch and a batch with one bad message', () => {
    expect(refused([]).code).toBe(RPC_ERROR.invalidRequest)
    const many = Array.from({ length: MCP_MAX_BATCH + 1 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'ping',
    }))
    expect(refused(many).message).toContain(String(MCP_MAX_BATCH))
    expect(
      refused([
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: {} },
      ]).id,
    ).toBe(2)
  })
})
