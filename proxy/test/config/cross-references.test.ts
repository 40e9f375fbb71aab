import { describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import { unauthenticatedRoutes } from '../../src/config/cross-references.js'
import { parseConfig } from '../../src/config/load.js'
import { ConfigError } from '../../src/errors.js'

const rule = { matches: [{ path: { value: '/mcp' } }], backendRefs: [{ name: 'b' }] }
const jwt = {
  providers: [
    {
      issuer: 'https://idp.example/oauth2/default',
      audiences: ['api://default'],
      jwks: { inline: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y' }] } },
    },
  ],
}

/** A configuration with two gateways and the given routes and policies. */
function configText(
  routes: Record<string, Record<string, unknown>>,
  policies: Record<string, unknown> = {},
  gateways: Record<string, Record<string, unknown>> = {},
): string {
  return stringify({
    gateways: {
      a: { port: 3000, ...gateways.a },
      b: { port: 3001, ...gateways.b },
    },
    backends: { b: { static: { host: '127.0.0.1', port: 8090 } } },
    routes: Object.fromEntries(
      Object.entries(routes).map(([name, r]) => [name, { rules: [rule], ...r }]),
    ),
    policies,
  })
}

function issuesOf(text: string) {
  try {
    parseConfig(text, 'test.yaml', {})
  } catch (err) {
    if (err instanceof ConfigError) return err.issues
    throw err
  }
  return []
}

describe('routes that no authentication covers', () => {
  it('refuses a route no policy with jwtAuthentication targets, naming it, with reason Unauthenticated', () => {
    const issues = issuesOf(configText({ open: { parentRefs: [{ name: 'a' }] } }))
    expect(issues).toEqual([
      expect.objectContaining({ path: 'routes.open', reason: 'Unauthenticated' }),
    ])
    expect(issues[0]?.message).toMatch(/allowUnauthenticated: true.*\(line \d+\)$/)
  })

  it('does not count a policy without jwtAuthentication as authentication', () => {
    const policies = {
      tools: { targetRefs: [{ name: 'r' }], traffic: { mcpAuthorization: { rules: [] } } },
    }
    const issues = issuesOf(configText({ r: { parentRefs: [{ name: 'a' }] } }, policies))
    expect(issues.map((i) => i.path)).toEqual(['routes.r'])
  })

  it('accepts a route covered by a policy, a route that says it is public, and every route of a public gateway', () => {
    const policies = {
      auth: { targetRefs: [{ name: 'covered' }], traffic: { jwtAuthentication: jwt } },
    }
    const text = configText(
      {
        covered: { parentRefs: [{ name: 'a' }] },
        public: { parentRefs: [{ name: 'a' }], allowUnauthenticated: true },
        'on-b': { parentRefs: [{ name: 'b' }] },
      },
      policies,
      { b: { allowUnauthenticated: true } },
    )
    expect(issuesOf(text)).toEqual([])
  })

  it('needs every gateway of a route to be public, not one of them', () => {
    const text = configText(
      { both: { parentRefs: [{ name: 'a' }, { name: 'b' }] } },
      {},
      { b: { allowUnauthenticated: true } },
    )
    expect(issuesOf(text).map((i) => i.path)).toEqual(['routes.both'])
  })

  it('lists the uncovered routes of a configuration (what the admin dump reports)', () => {
    const config = parseConfig(
      configText({ r: { parentRefs: [{ name: 'a' }], allowUnauthenticated: true } }),
      't.yaml',
      {},
    )
    expect(unauthenticatedRoutes(config)).toEqual([])
    expect(unauthenticatedRoutes({ ...config, routes: { x: { rules: [] } } } as never)).toEqual([
      'x',
    ])
  })
})
