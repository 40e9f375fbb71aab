import { describe, expect, it } from 'vitest'
import { groupOf, isForeignKind } from '../../../src/config/kubernetes/foreign-kinds.js'

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
