/**
 * The client-mode scenarios tell a client which official scenario's behaviour they need
 * (`MCP_CONFORMANCE_SCENARIO`) and its spec version (`MCP_CONFORMANCE_PROTOCOL_VERSION`): both
 * must be ones the official suite (`@modelcontextprotocol/conformance`, pinned in the root
 * devDependencies) defines, so a client written for it picks the right behaviour.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SCENARIOS } from '../../src/client/scenarios.js'

const require = createRequire(import.meta.url)

/** The official client scenarios and their spec versions, read from the installed bundle. */
function officialScenarios(): Map<string, string[]> {
  const pkg = require.resolve('@modelcontextprotocol/conformance/package.json')
  const bundle = readFileSync(join(dirname(pkg), 'dist/index.js'), 'utf8')
  const found = new Map<string, string[]>()
  const named = /name=`(auth\/[^`]+)`,this\.specVersions=\[([^\]]*)\]/g
  for (const m of bundle.matchAll(named))
    found.set(
      m[1] ?? '',
      [...(m[2] ?? '').matchAll(/`([^`]+)`/g)].map((v) => v[1] ?? ''),
    )
  // The token-endpoint-auth family is one class whose name is a template over the method:
  // specVersions=[…],…,this.name=`auth/token-endpoint-auth-${e===`client_secret_basic`?`basic`:…}`.
  const templated =
    /this\.specVersions=\[([^\]]*)\],[^;]{0,200}?this\.name=`(auth\/[a-z0-9-]+)\$\{([^}]*)\}`/g
  for (const m of bundle.matchAll(templated)) {
    const versions = [...(m[1] ?? '').matchAll(/`([^`]+)`/g)].map((v) => v[1] ?? '')
    for (const v of (m[3] ?? '').matchAll(/\?`([a-z]+)`/g)) found.set(`${m[2]}${v[1]}`, versions)
    const last = /:`([a-z]+)`$/.exec(m[3] ?? '')
    if (last) found.set(`${m[2]}${last[1]}`, versions)
  }
  // The metadata-default/var1-3 family is built from a table: name:`auth/${e.name}`.
  for (const m of bundle.matchAll(/name:`(metadata-[a-z0-9-]+)`/g))
    found.set(`auth/${m[1]}`, ['2025-11-25'])
  return found
}

/**
 * The official client scenarios of the 2026-07-28 rules, on the official suite's main branch
 * (0.2.0-alpha.11, src/scenarios/client/auth/: issuer-parameter.ts,
 * authorization-server-migration.ts, offline-access.ts), newer than the pinned 0.1.16.
 */
const OFFICIAL_MAIN_2026 = [
  'auth/iss-supported-missing',
  'auth/iss-wrong-issuer',
  'auth/iss-unexpected',
  'auth/authorization-server-migration',
  'auth/offline-access-scope',
]

describe('SCENARIOS', () => {
  const official = officialScenarios()
  const scenarios2025 = SCENARIOS.filter((s) => s.revision !== '2026-07-28')
  const scenarios2026 = SCENARIOS.filter((s) => s.revision === '2026-07-28')

  it('reads the official suite', () => {
    expect(official.get('auth/scope-step-up')).toEqual(['2025-11-25'])
    expect(official.get('auth/metadata-default')).toEqual(['2025-11-25'])
    for (const method of ['basic', 'post', 'none'])
      expect(official.get(`auth/token-endpoint-auth-${method}`)).toContain('2025-11-25')
    expect(official.get('auth/2025-03-26-oauth-endpoint-fallback')).toEqual(['2025-03-26'])
  })

  it.each(scenarios2025.map((s) => [s.name, s] as const))(
    '%s names an official scenario and the spec version it is defined for',
    (_name, s) => {
      expect([...official.keys()]).toContain(s.clientScenario)
      expect(official.get(s.clientScenario)).toContain(s.protocolVersion)
    },
  )

  it.each(scenarios2026.map((s) => [s.name, s] as const))(
    '%s (2026-07-28) tells the client that revision and names an official scenario of the same behaviour',
    (_name, s) => {
      expect(s.protocolVersion).toBe('2026-07-28')
      expect([...official.keys(), ...OFFICIAL_MAIN_2026]).toContain(s.clientScenario)
    },
  )
})
