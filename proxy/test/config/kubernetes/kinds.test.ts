import { describe, expect, it } from 'vitest'
import { closestKind, groupOf, isForeignKind } from '../../../src/config/kubernetes/kinds.js'

describe('isForeignKind', () => {
  it('knows the CRD, core and apps kinds that sit beside manifests, by group', () => {
    expect(isForeignKind('apiextensions.k8s.io/v1', 'CustomResourceDefinition')).toBe(true)
    expect(isForeignKind('v1', 'Namespace')).toBe(true)
    expect(isForeignKind('v1', 'Secret')).toBe(true)
    expect(isForeignKind('apps/v1', 'Deployment')).toBe(true)
    expect(isForeignKind('gateway.networking.k8s.io/v1', 'GatewayClass')).toBe(true)
  })

  it('is false for a kind in another group, an unknown kind, and what is not a string', () => {
    expect(isForeignKind('apps/v1', 'Service')).toBe(false)
    expect(isForeignKind('gateway.example.dev/v1alpha1', 'GatewayPolicyy')).toBe(false)
    expect(isForeignKind(undefined, 'Namespace')).toBe(false)
  })
})

describe('groupOf', () => {
  it('is the part before the version, or the core group', () => {
    expect(groupOf('apps/v1')).toBe('apps')
    expect(groupOf('v1')).toBe('')
  })
})

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
