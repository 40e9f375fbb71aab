import { describe, expect, it } from 'vitest'
import { checkMirroredHeaders } from '../../src/mcp/headers.js'
import { isMcpBodyError, type McpBody, parseMcpBody, RPC_ERROR } from '../../src/mcp/json-rpc.js'

function body(value: unknown): McpBody {
  const r = parseMcpBody(Buffer.from(JSON.stringify(value)))
  if (isMcpBodyError(r)) throw new Error(r.message)
  return r
}

const call = body({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_weather' } })

describe('checkMirroredHeaders (Mcp-Method / Mcp-Name)', () => {
  it('accepts a request without the headers (clients before 2026-07-28 do not send them)', () => {
    expect(checkMirroredHeaders({}, call)).toBeUndefined()
  })

  it('accepts headers that mirror the body', () => {
    expect(
      checkMirroredHeaders({ 'mcp-method': ['tools/call'], 'mcp-name': ['get_weather'] }, call),
    ).toBeUndefined()
  })

  it('refuses an Mcp-Name that names another tool than the body, with HeaderMismatch', () => {
    const err = checkMirroredHeaders({ 'mcp-method': ['tools/call'], 'mcp-name': ['echo'] }, call)
    expect(err).toMatchObject({ code: RPC_ERROR.headerMismatch, id: 1 })
    expect(err?.message).toBe(
      "Header mismatch: Mcp-Name header value 'echo' does not match body value 'get_weather'",
    )
  })

  it('refuses an Mcp-Method that says another method', () => {
    const err = checkMirroredHeaders({ 'mcp-method': ['tools/list'] }, call)
    expect(err?.code).toBe(RPC_ERROR.headerMismatch)
    expect(err?.message).toContain("'tools/list' does not match body value 'tools/call'")
  })

  it('compares values case-sensitively', () => {
    expect(checkMirroredHeaders({ 'mcp-method': ['Tools/Call'] }, call)).toBeDefined()
  })

  it('refuses a repeated header rather than judging one of its values', () => {
    const err = checkMirroredHeaders({ 'mcp-name': ['get_weather', 'echo'] }, call)
    expect(err?.message).toContain('Mcp-Name is sent 2 times')
  })

  it('refuses Mcp-Name on a method that names nothing', () => {
    const list = body({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
    expect(checkMirroredHeaders({ 'mcp-name': ['x'] }, list)?.message).toContain('tools/list')
  })

  it('decodes a base64 Mcp-Name before comparing (draft §Value Encoding)', () => {
    const read = body({
      jsonrpc: '2.0',
      id: 3,
      method: 'resources/read',
      params: { uri: 'file:///données' },
    })
    const encoded = `=?base64?${Buffer.from('file:///données').toString('base64')}?=`
    expect(checkMirroredHeaders({ 'mcp-name': [encoded] }, read)).toBeUndefined()
  })

  it('requires every message of a batch to agree with Mcp-Method', () => {
    const batch = body([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ])
    expect(checkMirroredHeaders({ 'mcp-method': ['tools/call'] }, batch)?.message).toContain(
      "body value 'tools/list'",
    )
  })
})
