import { describe, expect, it } from 'vitest'
import { closestKind } from '../../../src/config/kubernetes/kinds.js'

describe('closestKind', () => {
  const known = ['Gateway', 'HTTPRoute', 'GatewayPolicy', 'GatewayBackend']
  it('suggests the kind a misspelling most likely meant', () => {
    expect(closestKind('GatewayPolicyy', known)).toBe('GatewayPolicy')
    expect(closestKind('HttpRoute', known)).toBe('HTTPRoute')
  })
  it('suggests nothing for a kind far from every known one', () => {
    expect(closestKind('Frobnicator', known)).toBeUndefined()
  })
})
