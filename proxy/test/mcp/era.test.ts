import { describe, expect, it } from 'vitest'
import { bodyEra, headerEra, removedMethodError } from '../../src/mcp/era.js'
import { isMcpBodyError, type McpBody, parseMcpBody, RPC_ERROR } from '../../src/mcp/json-rpc.js'

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' }

function body(value: unknown, modern = false): McpBody {
  const r = parseMcpBody(Buffer.from(JSON.stringify(value)), { modern })
  if (isMcpBodyError(r)) throw new Error(r.message)
  return r
}

const modernList = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } }
const legacyList = { jsonrpc: '2.0', id: 1, method: 'tools/list' }

describe('headerEra', () => {
  it('is modern for 2026-07-28 and later versions, legacy for earlier, absent or repeated ones', () => {
    expect(headerEra({ 'mcp-protocol-version': '2026-07-28' })).toBe('modern')
    expect(headerEra({ 'mcp-protocol-version': '2027-01-01' })).toBe('modern')
    expect(headerEra({ 'mcp-protocol-version': '2025-11-25' })).toBe('legacy')
    expect(headerEra({})).toBe('legacy')
    expect(headerEra({ 'mcp-protocol-version': '2026-07-28, 2026-07-28' })).toBe('legacy')
    expect(headerEra({ 'mcp-protocol-version': 'latest' })).toBe('legacy')
  })
})

describe('bodyEra', () => {
  it('reads a request without header nor _meta version as legacy (the older rules)', () => {
    expect(bodyEra({}, body(legacyList))).toBe('legacy')
    expect(bodyEra({ 'mcp-protocol-version': ['2025-11-25'] }, body(legacyList))).toBe('legacy')
  })

  it('reads a request whose header and _meta say 2026-07-28 as modern', () => {
    const h = { 'mcp-protocol-version': ['2026-07-28'] }
    expect(bodyEra(h, body(modernList, true))).toBe('modern')
  })

  it('refuses a modern _meta without the header, with HeaderMismatch', () => {
    const err = bodyEra({}, body(modernList))
    expect(err).toMatchObject({ code: RPC_ERROR.headerMismatch, id: 1 })
    expect(isMcpBodyError(err as never) && (err as { message: string }).message).toContain(
      'MCP-Protocol-Version header missing',
    )
  })

  it('refuses a header that contradicts _meta, either way round', () => {
    const legacyHeader = bodyEra({ 'mcp-protocol-version': ['2025-11-25'] }, body(modernList))
    expect(legacyHeader).toMatchObject({ code: -32020 })
    const noMeta = bodyEra({ 'mcp-protocol-version': ['2026-07-28'] }, body(legacyList, true))
    expect(noMeta).toMatchObject({ code: -32020 })
  })

  it('refuses a repeated modern header rather than judging one of its values', () => {
    const h = { 'mcp-protocol-version': ['2026-07-28', '2026-07-28'] }
    expect(bodyEra(h, body(modernList, true))).toMatchObject({ code: -32020 })
  })

  it('refuses a modern batch as an invalid request', () => {
    const h = { 'mcp-protocol-version': ['2026-07-28'] }
    expect(bodyEra(h, body([modernList, { ...modernList, id: 2 }], true))).toMatchObject({
      code: RPC_ERROR.invalidRequest,
    })
  })
})

describe('removedMethodError', () => {
  it('answers -32601 for resources/subscribe in modern traffic, even without a uri', () => {
    const sub = body({ jsonrpc: '2.0', id: 4, method: 'resources/subscribe', params: {} }, true)
    expect(removedMethodError(sub)).toMatchObject({ id: 4, error: { code: -32601 } })
  })

  it('answers nothing for a method the revision keeps, or in legacy traffic', () => {
    expect(removedMethodError(body(modernList, true))).toBeUndefined()
    const legacy = body({ jsonrpc: '2.0', id: 4, method: 'ping' })
    expect(removedMethodError(legacy)).toBeUndefined()
  })
})
