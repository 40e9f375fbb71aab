import { describe, expect, it } from 'vitest'
import { loadConfigSources } from '../../../src/config/sources.js'
import { ConfigError } from '../../../src/errors.js'
import {
  backend,
  condition,
  findingsOf,
  GROUP,
  GW,
  gateway,
  healthy,
  load,
  policy,
  publicly,
  res,
  route,
  writeDir,
  yamlOf,
} from './manifests.js'

async function errorOf(docs: readonly unknown[]): Promise<ConfigError> {
  try {
    await load(docs)
  } catch (err) {
    if (err instanceof ConfigError) return err
    throw err
  }
  throw new Error('expected a ConfigError')
}

describe('translateResources', () => {
  it('translates Gateway, GatewayBackend, HTTPRoute and GatewayPolicy into the standalone shape', async () => {
    const s = await load(healthy())
    expect(s.format).toBe('kubernetes')
    expect(s.config.gateways.gw?.port).toBe(3000)
    expect(s.config.routes.mcp?.parentRefs).toEqual([{ name: 'gw' }])
    expect(s.config.routes.mcp?.rules[0]?.backendRefs).toEqual([{ name: 'mcp-backend' }])
    expect(s.config.policies['mcp-auth']?.targetRefs).toEqual([{ kind: 'HTTPRoute', name: 'mcp' }])
    expect(
      s.config.policies['mcp-auth']?.traffic.jwtAuthentication?.providers[0]?.jwks?.remote
        ?.backendRef,
    ).toEqual({ name: 'idp' })
    expect(condition(s, 'GatewayPolicy', 'mcp-auth', 'Accepted')?.status).toBe('True')
    expect(findingsOf(s, 'HTTPRoute', 'mcp').parents?.[0]?.conditions[0]).toMatchObject({
      type: 'Accepted',
      status: 'True',
    })
  })

  it('reads GatewayBackend and GatewayPolicy in the configured API group only', async () => {
    const dir = writeDir({ 'm.yaml': yamlOf(healthy()) })
    const err = await loadConfigSources([dir], { env: {}, apiGroup: 'gateway.other.dev' }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(ConfigError)
    const issue = (err as ConfigError).issues.find(
      (i) => i.path === 'GatewayPolicy default/mcp-auth: kind',
    )
    expect(issue?.message).toContain(
      `GatewayPolicy of ${GROUP} (${GROUP}/v1alpha1) is not a kind gatehouse reads`,
    )
    expect(issue?.message).toContain('did you mean GatewayPolicy (gateway.other.dev)?')
  })

  it('reads the items of a kind: List', async () => {
    const s = await load([{ apiVersion: 'v1', kind: 'List', items: healthy() }])
    expect(Object.keys(s.config.backends).sort()).toEqual(['idp', 'mcp-backend'])
  })

  it('warns about kinds it does not read and ignores them', async () => {
    const s = await load([
      ...healthy(),
      res('v1', 'Service', 'svc', { ports: [] }),
      res(`${GW}/v1`, 'GRPCRoute', 'grpc', {}),
    ])
    expect(s.warnings.map((w) => w.path)).toEqual([
      'Service default/svc (v1)',
      `GRPCRoute default/grpc (${GW}/v1)`,
    ])
    expect(s.warnings[0]?.message).toContain('skipped')
  })

  it('names the resource, the field path and the line of a schema error', async () => {
    const bad = policy()
    ;(
      bad.spec as { traffic: { jwtAuthentication: { mode: string } } }
    ).traffic.jwtAuthentication.mode = 'Sometimes'
    const e = await errorOf([...healthy().slice(0, 4), bad])
    const issue = e.issues.find((i) => i.path.includes('mode'))
    expect(issue?.path).toBe('GatewayPolicy default/mcp-auth: spec.traffic.jwtAuthentication.mode')
    expect(issue?.message).toMatch(
      /expected one of "Strict", "Optional".*manifests\.yaml line \d+\)$/,
    )
    // The line is the one the field is written on.
    const line = Number(/line (\d+)/.exec(issue?.message ?? '')?.[1])
    expect(line).toBeGreaterThan(40)
  })

  it('names an unknown field inside a spec with its resource', async () => {
    const bad = backend('idp', 9000)
    ;(bad.spec as Record<string, unknown>).weight = 3
    const e = await errorOf([
      ...healthy().filter((r) => (r.metadata as { name: string }).name !== 'idp'),
      bad,
    ])
    expect(e.issues.map((i) => i.path)).toContain('GatewayBackend default/idp: spec.weight')
  })

  it('refuses a known kind in a version it does not read', async () => {
    const e = await errorOf([...healthy(), res(`${GROUP}/v2`, 'GatewayPolicy', 'p2', {})])
    expect(e.issues[0]?.path).toBe('GatewayPolicy default/p2: apiVersion')
  })

  it('refuses a policy that targets something other than an HTTPRoute', async () => {
    const p = policy()
    ;(p.spec as { targetRefs: unknown[] }).targetRefs = [{ group: GW, kind: 'Gateway', name: 'gw' }]
    const e = await errorOf([...healthy().slice(0, 4), p])
    expect(e.issues[0]?.path).toBe('GatewayPolicy default/mcp-auth: spec.targetRefs[0]')
    expect(e.issues[0]?.message).toContain('HTTPRoutes')
  })

  it('loads manifests with no Gateway, reporting NoMatchingParent, and attaches to a standalone gateway of that name', async () => {
    const docs = healthy().slice(1)
    const alone = await load(docs)
    expect(findingsOf(alone, 'HTTPRoute', 'mcp').parents?.[0]?.conditions[0]).toMatchObject({
      status: 'False',
      reason: 'NoMatchingParent',
    })
    expect(Object.keys(alone.config.routes)).toEqual([])
    const withFragment = await load([{ gateways: { gw: { port: 3001 } } }, ...docs])
    expect(withFragment.config.routes.mcp?.parentRefs).toEqual([{ name: 'gw' }])
  })
})

describe('broken references report Gateway API reasons', () => {
  it('BackendNotFound: a route to a GatewayBackend that does not exist', async () => {
    const s = await load([
      ...healthy().slice(0, 3),
      route({ group: GROUP, kind: 'GatewayBackend', name: 'nope' }),
    ])
    expect(condition(s, 'HTTPRoute', 'mcp', 'ResolvedRefs')).toMatchObject({
      status: 'False',
      reason: 'BackendNotFound',
    })
    expect(s.config.routes.mcp).toBeUndefined()
  })

  it('BackendNotFound: a backendRef port the backend does not listen on', async () => {
    const s = await load([
      ...healthy().slice(0, 3),
      route({ group: GROUP, kind: 'GatewayBackend', name: 'mcp-backend', port: 1 }),
    ])
    expect(condition(s, 'HTTPRoute', 'mcp', 'ResolvedRefs')?.message).toContain('not 1')
  })

  it('InvalidKind: a backendRef to a core Service', async () => {
    const s = await load([...healthy().slice(0, 3), route({ name: 'mcp-backend', port: 8090 })])
    expect(condition(s, 'HTTPRoute', 'mcp', 'ResolvedRefs')?.reason).toBe('InvalidKind')
  })

  it('RefNotPermitted: a backend in another namespace without a ReferenceGrant, resolved with one', async () => {
    const ref = { group: GROUP, kind: 'GatewayBackend', name: 'mcp-backend', namespace: 'backends' }
    const docs = [gateway(), backend('mcp-backend', 8090, 'backends'), publicly(route(ref))]
    const denied = await load(docs)
    expect(condition(denied, 'HTTPRoute', 'mcp', 'ResolvedRefs')?.reason).toBe('RefNotPermitted')
    const grant = res(
      `${GW}/v1beta1`,
      'ReferenceGrant',
      'routes-to-backends',
      {
        from: [{ group: GW, kind: 'HTTPRoute', namespace: 'default' }],
        to: [{ group: GROUP, kind: 'GatewayBackend' }],
      },
      'backends',
    )
    const granted = await load([...docs, grant])
    expect(condition(granted, 'HTTPRoute', 'mcp', 'ResolvedRefs')?.status).toBe('True')
    expect(granted.config.routes.mcp?.rules[0]?.backendRefs[0]?.name).toBe('mcp-backend')
  })

  it('NoMatchingParent: a parentRef naming a listener the Gateway does not have', async () => {
    const s = await load([
      ...healthy().slice(0, 3),
      route(undefined, { name: 'gw', sectionName: 'https' }),
    ])
    expect(findingsOf(s, 'HTTPRoute', 'mcp').parents?.[0]?.conditions[0]?.reason).toBe(
      'NoMatchingParent',
    )
  })

  it('NotAllowedByListeners: a route in another namespace than a listener admitting Same', async () => {
    const r = route(undefined, { name: 'gw', namespace: 'default' })
    ;(r.metadata as Record<string, unknown>).namespace = 'apps'
    const b = backend('mcp-backend', 8090, 'apps')
    const s = await load([gateway(), b, r])
    expect(findingsOf(s, 'HTTPRoute', 'mcp').parents?.[0]?.conditions[0]?.reason).toBe(
      'NotAllowedByListeners',
    )
  })

  it('TargetNotFound: a policy whose route does not exist', async () => {
    // The route says it is public: without that, the route left without a policy is refused
    // (translate.failsafe.test.ts).
    const s = await load([...healthy().slice(0, 3), publicly(route()), policy(undefined, 'other')])
    expect(condition(s, 'GatewayPolicy', 'mcp-auth', 'Accepted')?.reason).toBe('TargetNotFound')
    expect(s.config.policies['mcp-auth']).toBeUndefined()
  })

  it('BackendNotFound on a policy withholds its route, so that it never serves unprotected', async () => {
    const s = await load([
      ...healthy().slice(0, 4),
      policy({ group: GROUP, kind: 'GatewayBackend', name: 'gone' }),
    ])
    expect(condition(s, 'GatewayPolicy', 'mcp-auth', 'ResolvedRefs')?.reason).toBe(
      'BackendNotFound',
    )
    expect(condition(s, 'HTTPRoute', 'mcp', 'Programmed')).toMatchObject({
      status: 'False',
      reason: 'Invalid',
    })
    expect(s.config.routes.mcp).toBeUndefined()
  })

  it('Conflicted: a second BackendTLSPolicy on the same backend', async () => {
    const tls = (name: string) =>
      res(`${GW}/v1`, 'BackendTLSPolicy', name, {
        targetRefs: [{ group: GROUP, kind: 'GatewayBackend', name: 'idp' }],
        validation: { hostname: 'idp.example.com', wellKnownCACertificates: 'System' },
      })
    const s = await load([...healthy(), tls('first'), tls('second')])
    expect(condition(s, 'BackendTLSPolicy', 'first', 'Accepted')?.status).toBe('True')
    expect(condition(s, 'BackendTLSPolicy', 'second', 'Accepted')?.reason).toBe('Conflicted')
    expect(s.config.backends.idp?.tls?.hostname).toBe('idp.example.com')
  })
})
