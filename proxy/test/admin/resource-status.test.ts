import { describe, expect, it } from 'vitest'
import { ConditionClock, resourceStatus } from '../../src/admin/resource-status.js'
import type { AuthPolicy, PolicyStatus } from '../../src/auth/types.js'
import { findingsOf, healthy, load, route } from '../config/kubernetes/manifests.js'

/** A compiled policy whose status the test sets. */
function policyWith(status: () => PolicyStatus): AuthPolicy {
  return { name: 'mcp-auth', status } as unknown as AuthPolicy
}

const programmed: PolicyStatus = {
  accepted: true,
  programmed: true,
  reason: 'Programmed',
  message: 'keys available',
}
const jwksDown: PolicyStatus = {
  ...programmed,
  programmed: false,
  reason: 'JwksUnavailable',
  message: 'the key set of http://127.0.0.1:9000/oauth2/default is not available',
}

describe('resourceStatus', () => {
  it('reports a policy whose key set is unavailable as Accepted and Attached but not Programmed (JwksUnavailable)', async () => {
    const s = await load(healthy())
    let now = jwksDown
    const clock = new ConditionClock()
    const view = {
      config: s.config,
      policies: new Map([['mcp-auth', policyWith(() => now)]]),
      listening: new Map([['gw', ['mcp']]]),
      controllerName: 'gateway.example.dev/gatehouse',
    }
    const first = resourceStatus(s.resources, view, clock)
    const policy = first.find((r) => r.kind === 'GatewayPolicy')
    expect(policy?.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Accepted', 'True', 'Accepted'],
      ['ResolvedRefs', 'True', 'ResolvedRefs'],
      ['Attached', 'True', 'Attached'],
      ['Programmed', 'False', 'JwksUnavailable'],
    ])
    expect(policy?.conditions[3]?.observedGeneration).toBe(1)
    const since = policy?.conditions[3]?.lastTransitionTime
    // The same status keeps its transition time; a change gets a new one.
    expect(
      resourceStatus(s.resources, view, clock).find((r) => r.kind === 'GatewayPolicy')
        ?.conditions[3]?.lastTransitionTime,
    ).toBe(since)
    now = programmed
    const later = resourceStatus(s.resources, view, clock).find((r) => r.kind === 'GatewayPolicy')
    expect(later?.conditions[3]).toMatchObject({ status: 'True', reason: 'Programmed' })
  })

  it('carries a translation failure into Attached and Programmed, and a route parent status per parentRef', async () => {
    const s = await load([
      ...healthy().slice(0, 3),
      route({ group: 'gateway.example.dev', kind: 'GatewayBackend', name: 'nope' }),
    ])
    const view = {
      config: s.config,
      policies: new Map(),
      listening: new Map([['gw', []]]),
      controllerName: 'x/gatehouse',
    }
    const r = resourceStatus(s.resources, view, new ConditionClock()).find(
      (x) => x.kind === 'HTTPRoute',
    )
    expect(r?.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`)).toEqual([
      'Accepted=True/Accepted',
      'ResolvedRefs=False/BackendNotFound',
      'Attached=False/BackendNotFound',
      'Programmed=False/BackendNotFound',
    ])
    expect(r?.parents?.[0]).toMatchObject({
      controllerName: 'x/gatehouse',
      parentRef: { name: 'gw' },
    })
    expect(findingsOf(s, 'HTTPRoute', 'mcp').parents).toHaveLength(1)
  })
})
