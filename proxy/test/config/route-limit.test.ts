import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseConfig, validateConfig } from '../../src/config/load.js'
import { rawRouteCount, rawRouteLimit, routeCountIssues } from '../../src/config/route-limit.js'
import { loadConfigSources } from '../../src/config/sources.js'
import { ConfigError } from '../../src/errors.js'

/** A standalone configuration of `n` open routes, with `config` lines when given. */
function routes(n: number, config = ''): string {
  const out = [
    `config: { adminAddr: "off"${config} }`,
    'gateways: { default: { port: 3000 } }',
    'backends: { b: { static: { host: 127.0.0.1, port: 9 } } }',
    'routes:',
  ]
  for (let i = 0; i < n; i++) {
    out.push(
      `  r${i}: { allowUnauthenticated: true, rules: [{ matches: [{ path: { type: PathPrefix, value: /t${i} } }], backendRefs: [{ name: b }] }] }`,
    )
  }
  return `${out.join('\n')}\n`
}

function errorOf(load: () => unknown): ConfigError {
  try {
    load()
  } catch (err) {
    if (err instanceof ConfigError) return err
    throw err
  }
  throw new Error('expected a ConfigError')
}

describe('config.maxRoutes', () => {
  it('defaults to 20,000 and accepts a configuration at the limit', () => {
    const c = parseConfig(routes(3, ', maxRoutes: 3'), 'gh.yaml', {})
    expect(Object.keys(c.routes)).toHaveLength(3)
    expect(parseConfig(routes(1), 'gh.yaml', {}).config.maxRoutes).toBe(20_000)
  })

  it('refuses a configuration with more routes than config.maxRoutes, naming the count, the limit and how to raise it', () => {
    const e = errorOf(() => parseConfig(routes(4, ', maxRoutes: 3'), 'gh.yaml', {}))
    expect(e.code).toBe('GW_ERR_CONFIG_INVALID')
    expect(e.issues).toHaveLength(1)
    expect(e.message).toContain('gh.yaml')
    expect(e.message).toContain('routes: 4 routes is more than config.maxRoutes (3)')
    expect(e.message).toContain('raise config.maxRoutes (at most 1000000)')
  })

  it('refuses 50,000 routes under the default limit before the schema reads them', () => {
    // An invalid field in every route: the schema would report 50,000 issues; the limit is first.
    const raw = {
      gateways: { default: { port: 3000 } },
      routes: Object.fromEntries(
        Array.from({ length: 50_000 }, (_, i) => [`r${i}`, { allowUnauthenticated: 1 }]),
      ),
    }
    const e = errorOf(() => validateConfig(raw, (i) => i, 'big.yaml'))
    expect(e.issues.map((i) => i.message)).toEqual([
      expect.stringContaining('50000 routes is more than config.maxRoutes (20000)'),
    ])
  })

  it('counts the routes Kubernetes resources translate to', async () => {
    const route = (i: number) => `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: r${i}, namespace: default, annotations: { gateway.example.dev/allow-unauthenticated: "true" } }
spec:
  parentRefs: [{ name: gw }]
  rules: [{ matches: [{ path: { type: PathPrefix, value: /t${i} } }], backendRefs: [{ name: b, group: gateway.example.dev, kind: GatewayBackend }] }]
`
    const text = `config: { maxRoutes: 2 }
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: gw, namespace: default }
spec: { gatewayClassName: gatehouse, listeners: [{ name: http, port: 3000, protocol: HTTP }] }
---
apiVersion: gateway.example.dev/v1alpha1
kind: GatewayBackend
metadata: { name: b, namespace: default }
spec: { static: { host: 127.0.0.1, port: 9 } }
${[0, 1, 2].map(route).join('')}`
    const file = join(mkdtempSync(join(tmpdir(), 'gh-routes-')), 'k.yaml')
    writeFileSync(file, text)
    const err = await loadConfigSources([file], { env: {} }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(ConfigError)
    expect((err as ConfigError).message).toContain('3 routes is more than config.maxRoutes (2)')
  })

  it('reads the limit a raw configuration asks for, or the default when it is not a valid one', () => {
    expect(rawRouteLimit({ maxRoutes: 7 })).toBe(7)
    expect(rawRouteLimit({ maxRoutes: 'many' })).toBe(20_000)
    expect(rawRouteLimit({ maxRoutes: 0 })).toBe(20_000)
    expect(rawRouteLimit(undefined)).toBe(20_000)
    expect(rawRouteCount({ a: {}, b: {} })).toBe(2)
    expect(rawRouteCount([1, 2])).toBe(0)
    expect(routeCountIssues(5, 5)).toEqual([])
  })
})
