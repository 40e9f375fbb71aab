import { describe, expect, it } from 'vitest'
import { unsupportedFields } from '../../../src/config/kubernetes/unsupported.js'

describe('unsupportedFields', () => {
  it('finds the Gateway API fields gatehouse does not implement and strips them from the rule', () => {
    const { found, rule } = unsupportedFields({
      matches: [{ path: { value: '/mcp' }, method: 'POST' }],
      filters: [
        { type: 'CORS', cors: {} },
        { type: 'URLRewrite', urlRewrite: {} },
      ],
      backendRefs: [{ name: 'b', filters: [] }],
      timeouts: { request: '1s' },
      sessionPersistence: {},
    })
    expect(found.map((f) => f.field.join('.'))).toEqual([
      'timeouts',
      'sessionPersistence',
      'matches.0.method',
      'filters.1.type',
      'backendRefs.0.filters',
    ])
    expect(found[0]?.message).toMatch(
      /^`timeouts` is Gateway API but not supported by gatehouse \(backend timeouts are set on the GatewayBackend/,
    )
    expect(rule).toEqual({
      matches: [{ path: { value: '/mcp' } }],
      filters: [{ type: 'CORS', cors: {} }],
      backendRefs: [{ name: 'b', filters: [] }],
    })
  })

  it('finds nothing in a rule gatehouse supports, and leaves it as written', () => {
    const written = { matches: [{ path: { value: '/mcp' } }], backendRefs: [{ name: 'b' }] }
    expect(unsupportedFields(written)).toEqual({ found: [], rule: written })
  })
})
