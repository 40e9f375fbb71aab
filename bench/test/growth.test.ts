import { describe, expect, it } from 'vitest'
import {
  type GrowthRow,
  growthConfig,
  growthTable,
  growthYaml,
  requestPaths,
  routePath,
  textPlot,
} from '../growth.js'

const JWT = { issuer: 'https://idp.example', audience: 'api://x', jwk: { kty: 'EC' } }

type Config = {
  routes: Record<string, { rules: { matches: { path: { type: string; value: string } }[] }[] }>
  policies?: Record<string, { targetRefs: { name: string }[]; traffic: Record<string, unknown> }>
}
const config = (...a: Parameters<typeof growthConfig>) => growthConfig(...a) as unknown as Config
const types = (c: Config) => Object.values(c.routes).map((r) => r.rules[0]?.matches[0]?.path.type)

describe('growthConfig', () => {
  it('configures size routes of the scenario match type, open for the route scenarios', () => {
    expect(types(config('prefix', 3, 1, 2, JWT))).toEqual([
      'PathPrefix',
      'PathPrefix',
      'PathPrefix',
    ])
    expect(types(config('exact', 2, 1, 2, JWT))).toEqual(['Exact', 'Exact'])
    expect(types(config('mixed', 4, 1, 2, JWT))).toEqual([
      'PathPrefix',
      'Exact',
      'PathPrefix',
      'Exact',
    ])
    expect(config('prefix', 3, 1, 2, JWT).policies).toBeUndefined()
    expect(config('prefix', 3, 1, 2, JWT).routes.r2).toMatchObject({ allowUnauthenticated: true })
  })

  it('puts a policy of its own on every route of the policies scenario', () => {
    const c = config('policies', 3, 1, 2, JWT)
    expect(Object.values(c.policies ?? {}).map((p) => p.targetRefs[0]?.name)).toEqual([
      'r0',
      'r1',
      'r2',
    ])
    expect(c.routes.r0).not.toHaveProperty('allowUnauthenticated')
  })

  it('gives the rules scenario one route and one policy of size distinct CEL rules', () => {
    const c = config('rules', 5, 1, 2, JWT)
    expect(Object.keys(c.routes)).toEqual(['r0'])
    const authorization = c.policies?.p?.traffic.authorization as
      | { policy: { matchExpressions: string[] } }
      | undefined
    const rules = authorization?.policy.matchExpressions
    expect(rules).toHaveLength(5)
    expect(new Set(rules).size).toBe(5)
  })

  it('keys the users scenario rate limit on the token subject', () => {
    const c = config('users', 1000, 1, 2, JWT)
    expect(Object.keys(c.routes)).toEqual(['r0'])
    expect(JSON.stringify(c.policies?.p?.traffic.localRateLimit)).toContain('jwt.sub')
  })
})

describe('growthYaml', () => {
  it('writes the key set shared by 1,000 policies out each time, with no YAML alias', () => {
    const yaml = growthYaml(growthConfig('policies', 1000, 1, 2, JWT))
    expect(yaml).not.toMatch(/[&*]a\d/)
    expect(yaml.match(/kty: EC/g)).toHaveLength(1000)
  })
})

describe('requestPaths', () => {
  it('spreads at most max paths over the routes, first and last included', () => {
    expect(requestPaths('prefix', 10_000, 3)).toEqual([
      routePath(0),
      routePath(5000),
      routePath(9999),
    ])
    expect(requestPaths('exact', 2)).toEqual([routePath(0), routePath(1)])
  })

  it('has the one route of the rules and users scenarios', () => {
    expect(requestPaths('users', 100_000)).toEqual([routePath(0)])
  })
})

const rows: GrowthRow[] = [
  { scenario: 'prefix', size: 1, cpuUs: 100, p99: 10, rps: 5000, rss: 100 * 1024 * 1024 },
  { scenario: 'prefix', size: 1001, cpuUs: 110, p99: 20, rps: 4500, rss: 110 * 1024 * 1024 },
  { scenario: 'users', size: 1, cpuUs: 50, p99: 5, rps: 6000, rss: 90 * 1024 * 1024 },
]

describe('growthTable', () => {
  it('compares each size with its scenario smallest, and states KiB per added unit', () => {
    const [, , first, grown, other] = growthTable(rows)
    expect(first).toContain('| 1 | 100.0 | 1.00 | 10 | 1.00 |')
    // 10 MiB over 1,000 more routes: 10.24 KiB a route
    expect(grown).toBe(
      '| routes, PathPrefix | 1001 | 110.0 | 1.10 | 20 | 2.00 | 4500 | 110 | 10.2 |',
    )
    expect(other).toContain('| 50.0 | 1.00 |')
  })
})

describe('textPlot', () => {
  it('draws bars proportional to CPU per request, the largest width long, per scenario', () => {
    const lines = textPlot(rows, 10)
    expect(lines).toEqual([
      'routes, PathPrefix (CPU µs per request)',
      `     1 |${'#'.repeat(9)} 100.0`,
      `  1001 |${'#'.repeat(10)} 110.0`,
      'distinct users (tokens), MCP policy with a per-user rate limit (CPU µs per request)',
      `     1 |${'#'.repeat(5)} 50.0`,
    ])
  })
})
