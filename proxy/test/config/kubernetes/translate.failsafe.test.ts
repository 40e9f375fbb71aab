/**
 * The translation fails closed on operator mistakes (docs/reliability.md, "Fail-open
 * configuration"): a misspelled kind, a policy whose target does not exist, a route without
 * authentication, a Gateway API field gatehouse does not implement — each refused, located.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadConfigSources } from '../../../src/config/sources.js'
import { ConfigError } from '../../../src/errors.js'
import {
  backend,
  GROUP,
  gateway,
  healthy,
  load,
  PUBLIC,
  policy,
  publicly,
  route,
  withMetadata,
  writeDir,
  yamlOf,
} from './manifests.js'

async function errorOf(promise: Promise<unknown>): Promise<ConfigError> {
  try {
    await promise
  } catch (err) {
    if (err instanceof ConfigError) return err
    throw err
  }
  throw new Error('expected a ConfigError')
}

describe('a route that no authentication covers', () => {
  it('is refused when its policy kind is misspelled (GatewayPolicyy), naming the kind and its line', async () => {
    const misspelled = { ...policy(), kind: 'GatewayPolicyy' }
    const err = await errorOf(load([...healthy().slice(0, 4), misspelled]))
    const issue = err.issues.find((i) => i.path === 'GatewayPolicyy default/mcp-auth: kind')
    expect(issue?.message).toContain('is not a kind gatehouse reads')
    expect(issue?.message).toContain(`did you mean GatewayPolicy (${GROUP})?`)
    expect(issue?.message).toMatch(/manifests\.yaml line \d+\)$/)
  })

  it('is refused when its policy targets a route that does not exist', async () => {
    const err = await errorOf(load([...healthy().slice(0, 4), policy(undefined, 'mcpp')]))
    const issue = err.issues.find((i) => i.reason === 'Unauthenticated')
    expect(issue?.path).toBe('HTTPRoute default/mcp: spec')
    expect(issue?.message).toContain('no policy with traffic.jwtAuthentication targets this route')
    expect(issue?.message).toMatch(/line \d+\)$/)
  })

  it('is refused when there is no policy at all', async () => {
    const err = await errorOf(load(healthy().slice(0, 4)))
    expect(err.issues.map((i) => i.reason)).toEqual(['Unauthenticated'])
  })

  it('serves when the route says it is public (annotation), or its Gateway does for all its routes', async () => {
    const onRoute = await load([...healthy().slice(0, 3), publicly(route())])
    expect(onRoute.config.routes.mcp?.allowUnauthenticated).toBe(true)
    const onGateway = await load([publicly(gateway()), ...healthy().slice(1, 4)])
    expect(onGateway.config.gateways.gw?.allowUnauthenticated).toBe(true)
    expect(onGateway.config.routes.mcp).toBeDefined()
  })

  it('refuses an allow-unauthenticated annotation that is not "true"', async () => {
    const r = withMetadata(route(), { annotations: { [PUBLIC]: 'yes' } })
    const err = await errorOf(load([...healthy().slice(0, 3), r]))
    const issue = err.issues.find((i) => i.path.includes('allow-unauthenticated'))
    expect(issue?.path).toBe(`HTTPRoute default/mcp: metadata.annotations.${PUBLIC}`)
    expect(issue?.message).toContain('expected "true"')
  })
})

describe('kinds gatehouse does not read', () => {
  it('refuses an unknown kind, as the API server would', async () => {
    const odd = { apiVersion: 'example.org/v1', kind: 'Frobnicator', metadata: { name: 'f' } }
    const err = await errorOf(load([...healthy(), odd]))
    expect(err.issues[0]?.path).toBe('Frobnicator default/f: kind')
    expect(err.issues[0]?.message).not.toContain('did you mean')
  })

  it('skips CRDs and other well-known kinds in a directory, without substituting ${VAR} in them', async () => {
    const crd = readFileSync(
      join(import.meta.dirname, '../../../../examples/kubernetes/crds/gatewaypolicies.yaml'),
      'utf8',
    ).replace('served: true', 'served: true\n      # ${NOT_SET}')
    const withVar = `${crd}---\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: cm }\ndata: { note: "\${NOT_SET} is not gatehouse's" }\n`
    const dir = writeDir({ 'crds.yaml': withVar, 'manifests.yaml': yamlOf(healthy()) })
    const s = await loadConfigSources([dir], { env: {} })
    expect(s.warnings.map((w) => w.path)).toEqual([
      'CustomResourceDefinition default/gatewaypolicies.gateway.example.dev (apiextensions.k8s.io/v1)',
      'ConfigMap default/cm (v1)',
    ])
    expect(s.warnings[0]?.message).toContain('skipped, neither validated nor ${ENV}-substituted')
    expect(Object.keys(s.config.routes)).toEqual(['mcp'])
  })

  it('still substitutes ${VAR} in the kinds it reads, naming the resource, field and line of an unset one', async () => {
    const b = backend('mcp-backend')
    ;(b.spec as { static: { host: string } }).static.host = '${BACKEND_HOST}'
    const err = await errorOf(load([gateway(), b, backend('idp', 9000), route(), policy()]))
    expect(err.issues[0]?.path).toBe('GatewayBackend default/mcp-backend: spec.static.host')
    expect(err.issues[0]?.message).toMatch(/BACKEND_HOST is not set.*manifests\.yaml line \d+\)$/)
  })

  it('names the resource and the line of a YAML syntax error', async () => {
    const text = `${yamlOf(healthy())}---\napiVersion: ${GROUP}/v1alpha1\nkind: GatewayBackend\nmetadata: { name: dup }\nspec: { static: { host: a, host: b, port: 1 } }\n`
    const dir = writeDir({ 'm.yaml': text })
    const err = await errorOf(loadConfigSources([dir], { env: {} }))
    expect(err.issues[0]?.path).toBe('GatewayBackend default/dup')
    expect(err.issues[0]?.message).toMatch(/^YAML: .*\(line \d+\)$/)
  })
})

describe('Gateway API fields gatehouse does not support', () => {
  it('says so for timeouts, retry, header matches and RequestHeaderModifier, naming resource, field and line', async () => {
    const r = route()
    const rule = (r.spec as { rules: Record<string, unknown>[] }).rules[0] as Record<
      string,
      unknown
    >
    rule.timeouts = { request: '10s' }
    rule.retry = { attempts: 2 }
    rule.matches = [
      { path: { type: 'PathPrefix', value: '/mcp' }, headers: [{ name: 'x', value: 'y' }] },
    ]
    rule.filters = [{ type: 'RequestHeaderModifier', requestHeaderModifier: { set: [] } }]
    const err = await errorOf(load([...healthy().slice(0, 3), r, policy()]))
    const byPath = Object.fromEntries(err.issues.map((i) => [i.path, i.message]))
    expect(byPath['HTTPRoute default/mcp: spec.rules[0].timeouts']).toMatch(
      /^`timeouts` is Gateway API but not supported by gatehouse .*docs\/configuration\.md#.* \(.*manifests\.yaml line \d+\)$/,
    )
    expect(byPath['HTTPRoute default/mcp: spec.rules[0].retry']).toContain(
      '`retry` is Gateway API but not supported by gatehouse',
    )
    expect(byPath['HTTPRoute default/mcp: spec.rules[0].matches[0].headers']).toContain(
      '`matches[].headers` is Gateway API but not supported by gatehouse',
    )
    expect(byPath['HTTPRoute default/mcp: spec.rules[0].filters[0].type']).toContain(
      'spec.traffic.transformations.request',
    )
    expect(err.message).not.toMatch(/check its spelling|Invalid discriminator/)
  })
})
