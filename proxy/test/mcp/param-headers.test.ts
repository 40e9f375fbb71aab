import { describe, expect, it } from 'vitest'
import {
  annotationsOf,
  checkParamHeaders,
  MAX_KNOWN_TOOLS,
  ToolParamHeaders,
} from '../../src/mcp/param-headers.js'

const sqlTool = {
  name: 'execute_sql',
  inputSchema: {
    type: 'object',
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      limit: { type: 'integer', 'x-mcp-header': 'Limit' },
      opts: { type: 'object', properties: { dry: { type: 'boolean', 'x-mcp-header': 'Dry' } } },
      rows: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Row' } },
      bad: { type: 'string', 'x-mcp-header': 'bad name' },
      query: { type: 'string' },
    },
  },
}

const specs = annotationsOf(sqlTool.inputSchema)
const call = (args: Record<string, unknown>) => ({
  kind: 'tool' as const,
  name: 'execute_sql',
  arguments: args,
})

describe('annotationsOf', () => {
  it('reads x-mcp-header along properties chains only, skipping names that are not tokens', () => {
    expect(specs.map((s) => [s.header, s.path.join('.')])).toEqual([
      ['mcp-param-region', 'region'],
      ['mcp-param-limit', 'limit'],
      ['mcp-param-dry', 'opts.dry'],
    ])
  })
})

describe('checkParamHeaders', () => {
  it('accepts headers that mirror the arguments, integers compared numerically', () => {
    const headers = {
      'mcp-param-region': ['us-west1'],
      'mcp-param-limit': ['42.0'],
      'mcp-param-dry': ['true'],
    }
    expect(
      checkParamHeaders(
        headers,
        call({ region: 'us-west1', limit: 42, opts: { dry: true } }),
        specs,
      ),
    ).toBeUndefined()
  })

  it('refuses a header whose value differs from the body', () => {
    expect(
      checkParamHeaders({ 'mcp-param-region': ['eu-west1'] }, call({ region: 'us-west1' }), specs),
    ).toContain('Mcp-Param-Region header value does not match')
  })

  it('refuses a missing header for an argument that has a value', () => {
    expect(checkParamHeaders({}, call({ region: 'us-west1' }), specs)).toContain(
      'Mcp-Param-Region header missing',
    )
  })

  it('refuses a header for an argument the body does not carry, and accepts null without header', () => {
    expect(checkParamHeaders({ 'mcp-param-limit': ['1'] }, call({}), specs)).toContain(
      'has no value',
    )
    expect(checkParamHeaders({}, call({ region: null }), specs)).toBeUndefined()
  })

  it('decodes a Base64 value before comparing, and refuses a repeated one', () => {
    const enc = `=?base64?${Buffer.from('Hello, 世界').toString('base64')}?=`
    expect(
      checkParamHeaders({ 'mcp-param-region': [enc] }, call({ region: 'Hello, 世界' }), specs),
    ).toBeUndefined()
    expect(
      checkParamHeaders({ 'mcp-param-region': ['a', 'a'] }, call({ region: 'a' }), specs),
    ).toContain('sent 2 times')
  })

  it('judges nothing for a tool whose definition was not seen (the backend validates)', () => {
    expect(checkParamHeaders({ 'mcp-param-x': ['1'] }, call({}), undefined)).toBeUndefined()
  })
})

describe('ToolParamHeaders', () => {
  it('remembers the annotations of listed tools, at most MAX_KNOWN_TOOLS', () => {
    const known = new ToolParamHeaders()
    known.learn(sqlTool)
    expect(known.lookup('execute_sql')).toHaveLength(3)
    expect(known.lookup('other')).toBeUndefined()
    for (let i = 0; i < MAX_KNOWN_TOOLS; i++) known.learn({ name: `t${i}` })
    expect(known.lookup('execute_sql')).toBeUndefined()
    expect(known.lookup(`t${MAX_KNOWN_TOOLS - 1}`)).toEqual([])
  })
})
