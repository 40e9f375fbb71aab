import { describe, expect, it } from 'vitest'
import {
  byPrecedence,
  canonical,
  type PathMatch,
  takesTraffic,
} from '../../../src/config/kubernetes/precedence.js'
import type { Resource } from '../../../src/config/kubernetes/resources.js'
import {
  backend,
  condition,
  findingsOf,
  GROUP,
  GW,
  load,
  policy,
  publicly,
  res,
  withMetadata,
} from './manifests.js'

const P = (value: string): PathMatch => ({ type: 'PathPrefix', value })
const E = (value: string): PathMatch => ({ type: 'Exact', value })
const r = (namespace: string, name: string, created?: number) =>
  ({ namespace, name, ...(created !== undefined ? { created } : {}) }) as Resource

describe('takesTraffic', () => {
  it('is true for an equal match, an Exact path inside a prefix, and a longer prefix inside it', () => {
    expect(takesTraffic(P('/mcp'), P('/mcp'))).toBe(true)
    expect(takesTraffic(P('/mcp/'), P('/mcp'))).toBe(true)
    expect(takesTraffic(E('/mcp'), P('/mcp'))).toBe(true)
    expect(takesTraffic(P('/mcp/tools'), P('/mcp'))).toBe(true)
    expect(takesTraffic(P('/mcp'), P('/'))).toBe(true)
    expect(takesTraffic(E('/mcp'), E('/mcp'))).toBe(true)
  })

  it('is false for a shorter prefix, a sibling path, and a prefix over an Exact match', () => {
    expect(takesTraffic(P('/'), P('/mcp'))).toBe(false)
    expect(takesTraffic(P('/mcpx'), P('/mcp'))).toBe(false)
    expect(takesTraffic(P('/mcp'), E('/mcp'))).toBe(false)
    expect(takesTraffic(E('/other'), P('/mcp'))).toBe(false)
  })
})

describe('byPrecedence', () => {
  it('orders the oldest creationTimestamp first, then namespace/name; no timestamp counts as newest', () => {
    const list = [r('a', 'x'), r('b', 'y', 2), r('z', 'z', 1), r('a', 'w')]
    expect(list.sort(byPrecedence).map((x) => `${x.namespace}/${x.name}`)).toEqual([
      'z/z',
      'b/y',
      'a/w',
      'a/x',
    ])
  })
})

describe('canonical', () => {
  it('is equal for objects that differ only in key order', () => {
    expect(canonical({ a: 1, b: [{ y: 1, x: 2 }] })).toBe(canonical({ b: [{ x: 2, y: 1 }], a: 1 }))
    expect(canonical({ a: 1 })).not.toBe(canonical({ a: 2 }))
  })
})

// Manifests: one listener admitting routes from every namespace; default/mcp under a JWT policy.
const listenerForAll = () =>
  res(`${GW}/v1`, 'Gateway', 'gw', {
    listeners: [
      {
        name: 'http',
        protocol: 'HTTP',
        port: 3000,
        allowedRoutes: { namespaces: { from: 'All' } },
      },
    ],
  })
const mcpRoute = (namespace: string, backendName: string, created?: string) =>
  withMetadata(
    res(
      `${GW}/v1`,
      'HTTPRoute',
      'mcp',
      {
        parentRefs: [{ name: 'gw', namespace: 'default' }],
        rules: [
          {
            matches: [{ path: { type: 'PathPrefix', value: '/mcp' } }],
            backendRefs: [{ group: GROUP, kind: 'GatewayBackend', name: backendName }],
          },
        ],
      },
      namespace,
    ),
    created ? { creationTimestamp: created } : {},
  )
const inNamespace = (doc: Record<string, unknown>, namespace: string) =>
  withMetadata(doc, { namespace })

const OLD = '2020-01-01T00:00:00Z'
const NEW = '2026-01-01T00:00:00Z'

describe('a route of another namespace on a protected path', () => {
  for (const [label, aCreated, defaultCreated] of [
    ['older', OLD, NEW],
    ['newer', NEW, OLD],
  ] as const) {
    it(`is not attached when it is ${label} than the protected route, with a condition saying why`, async () => {
      const s = await load([
        listenerForAll(),
        backend('mcp-backend'),
        backend('idp', 9000),
        backend('a-backend', 8091, 'a'),
        publicly(mcpRoute('a', 'a-backend', aCreated)),
        mcpRoute('default', 'mcp-backend', defaultCreated),
        policy(),
      ])
      expect(Object.keys(s.config.routes)).toEqual(['default-mcp'])
      expect(s.config.routes['default-mcp']?.rules[0]?.backendRefs[0]?.name).toBe('mcp-backend')
      const c = findingsOf(s, 'HTTPRoute', 'mcp')
      expect(c.namespace).toBe('a')
      expect(c.conditions.find((x) => x.type === 'Accepted')).toMatchObject({
        status: 'False',
        reason: 'ProtectedPathConflict',
      })
      expect(c.parents?.[0]?.conditions[0]).toMatchObject({
        status: 'False',
        reason: 'ProtectedPathConflict',
      })
    })
  }

  it('is attached when an equal policy covers it, and then the oldest route comes first', async () => {
    // The same traffic, and the same key-set backend (default/idp, granted to namespace a).
    const own = inNamespace(
      policy({ group: GROUP, kind: 'GatewayBackend', name: 'idp', namespace: 'default' }),
      'a',
    )
    const grant = res(`${GW}/v1beta1`, 'ReferenceGrant', 'policies-to-idp', {
      from: [{ group: GROUP, kind: 'GatewayPolicy', namespace: 'a' }],
      to: [{ group: GROUP, kind: 'GatewayBackend', name: 'idp' }],
    })
    const s = await load([
      listenerForAll(),
      backend('mcp-backend'),
      backend('idp', 9000),
      backend('a-backend', 8091, 'a'),
      grant,
      mcpRoute('default', 'mcp-backend', NEW),
      mcpRoute('a', 'a-backend', OLD),
      policy(),
      own,
    ])
    // Gateway API: the tie goes to the oldest route, whatever the order of the documents.
    expect(Object.keys(s.config.routes)).toEqual(['a-mcp', 'default-mcp'])
    expect(condition(s, 'GatewayPolicy', 'mcp-auth', 'Accepted')?.status).toBe('True')
  })

  it('is not attached when its policy reads the same but trusts a key set of its own namespace (nor is the other)', async () => {
    const own = inNamespace(policy({ group: GROUP, kind: 'GatewayBackend', name: 'idp' }), 'a')
    const s = await load([
      listenerForAll(),
      backend('mcp-backend'),
      backend('idp', 9000),
      backend('a-backend', 8091, 'a'),
      backend('idp', 9000, 'a'),
      mcpRoute('default', 'mcp-backend'),
      mcpRoute('a', 'a-backend'),
      policy(),
      own,
    ])
    // Each takes the other's path under another authentication: fail closed, neither serves,
    // both say why (docs/reliability.md: give tenants listeners of their own).
    expect(Object.keys(s.config.routes)).toEqual([])
    expect(
      s.resources
        .filter((f) => f.kind === 'HTTPRoute')
        .map((f) => f.conditions.find((c) => c.type === 'Accepted')?.reason),
    ).toEqual(['ProtectedPathConflict', 'ProtectedPathConflict'])
  })

  it('without the public annotation or a policy, is not attached either (the conflict is decided first)', async () => {
    const s = await load([
      listenerForAll(),
      backend('mcp-backend'),
      backend('idp', 9000),
      backend('a-backend', 8091, 'a'),
      mcpRoute('a', 'a-backend'),
      mcpRoute('default', 'mcp-backend'),
      policy(),
    ])
    expect(Object.keys(s.config.routes)).toEqual(['default-mcp'])
    expect(
      s.resources.find((f) => f.namespace === 'a' && f.kind === 'HTTPRoute')?.conditions,
    ).toContainEqual(expect.objectContaining({ reason: 'ProtectedPathConflict' }))
  })
})

describe('route precedence in one namespace', () => {
  it('writes routes oldest first, then by name, so that the router keeps the first of equal matches', async () => {
    const named = (name: string, created?: string) =>
      publicly(withMetadata({ ...mcpRoute('default', 'mcp-backend', created) }, { name }))
    const s = await load([
      listenerForAll(),
      backend('mcp-backend'),
      named('c'),
      named('b', NEW),
      named('a'),
      named('d', OLD),
    ])
    expect(Object.keys(s.config.routes)).toEqual(['d', 'b', 'a', 'c'])
  })
})
