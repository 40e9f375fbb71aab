/**
 * The schema of `jwtAuthentication.opaqueTokens` (docs/idp/opaque-tokens.md): one endpoint,
 * audiences required with introspection and refused with userinfo, defaults and bounds, the
 * backend cross-reference, and the compile check that a userinfo policy has rules.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse as parseYaml, stringify } from 'yaml'
import { parseConfig } from '../../../src/config/load.js'
import { ConfigError } from '../../../src/errors.js'
import { compileOrThrow } from '../../../src/lifecycle/compile.js'
import { authConfig } from '../../auth/config.js'
import { ROUTE } from '../policy-yaml.js'

const BASE = { idpPort: 9000, backendPort: 9001, issuer: 'http://127.0.0.1:9000/oauth2/default' }
const PATH = 'policies.mcp-auth.traffic.jwtAuthentication'

const INTROSPECTION = {
  backendRef: { name: 'idp' },
  path: '/oauth2/default/v1/introspect',
  clientId: 'gatehouse',
  clientSecret: 'secret',
}

/** The reference configuration with `jwtAuthentication` replaced. */
function withJwt(jwt: Record<string, unknown>, rules: string[] | null = ['jwt.sub != ""']) {
  const config = authConfig({ ...BASE, noMcp: true, rules })
  const policy = config.policies?.['mcp-auth']
  if (!policy) throw new Error('authConfig changed shape')
  policy.traffic.jwtAuthentication = jwt as never
  return JSON.stringify(config)
}

function parse(jwt: Record<string, unknown>, rules?: string[] | null) {
  return parseConfig(withJwt(jwt, rules), 'test.yaml', {})
}

function messages(jwt: Record<string, unknown>): string[] {
  try {
    parse(jwt)
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => `${i.path}: ${i.message}`)
    throw err
  }
  throw new Error('expected a ConfigError')
}

const opaque = (o: Record<string, unknown>) => ({
  opaqueTokens: { issuer: BASE.issuer, audiences: ['api://default'], ...o },
})

describe('jwtAuthentication.opaqueTokens', () => {
  it('stands without JWT providers and fills its defaults', () => {
    const parsed = parse(opaque({ introspection: INTROSPECTION }))
    const jwt = parsed.policies['mcp-auth']?.traffic.jwtAuthentication
    expect(jwt?.providers).toEqual([])
    expect(jwt?.opaqueTokens?.introspection?.authMethod).toBe('client_secret_basic')
    expect(jwt?.opaqueTokens?.cacheDuration.ms).toBe(60_000)
    expect(jwt?.opaqueTokens?.cacheSize).toBe(10_000)
    expect(jwt?.opaqueTokens?.timeout.ms).toBe(5000)
    expect(jwt?.opaqueTokens?.clockSkew.ms).toBe(60_000)
  })

  it('still requires a provider when there is no opaqueTokens block', () => {
    expect(messages({ mode: 'Strict' })).toEqual([
      expect.stringMatching(/providers: expected at least one provider \(or opaqueTokens/),
    ])
  })

  it('requires a provider next to an mcp block, whose issuer the metadata names', () => {
    const mcp = { resourceMetadata: { resource: 'http://gateway.example:3000/mcp' } }
    expect(messages({ ...opaque({ introspection: INTROSPECTION }), mcp })).toEqual([
      expect.stringMatching(/providers: the mcp block needs a provider/),
    ])
  })

  it('takes exactly one of introspection or userinfo', () => {
    const userinfo = { backendRef: { name: 'idp' }, path: '/v1/userinfo' }
    expect(messages(opaque({}))).toEqual([
      expect.stringMatching(/opaqueTokens: expected exactly one of introspection/),
    ])
    expect(messages(opaque({ introspection: INTROSPECTION, userinfo })).join('\n')).toMatch(
      /expected exactly one of introspection/,
    )
  })

  it('requires audiences with introspection, and refuses them with userinfo', () => {
    expect(
      messages({ opaqueTokens: { issuer: BASE.issuer, introspection: INTROSPECTION } }),
    ).toEqual([
      expect.stringMatching(`${PATH}.opaqueTokens.audiences: required with introspection`),
    ])
    expect(
      messages(opaque({ userinfo: { backendRef: { name: 'idp' }, path: '/v1/userinfo' } })),
    ).toEqual([expect.stringMatching(/opaqueTokens\.audiences: not allowed with userinfo/)])
  })

  it('bounds the cache duration, the cache size and the timeout', () => {
    const out = messages(
      opaque({ introspection: INTROSPECTION, cacheDuration: '2h', cacheSize: 0, timeout: '1m' }),
    ).join('\n')
    expect(out).toMatch(/cacheDuration: expected a duration from 0s to 1h/)
    expect(out).toMatch(/cacheSize/)
    expect(out).toMatch(/timeout: expected a duration from 100ms to 30s/)
  })

  it('rejects an unknown field and a path without a leading slash', () => {
    const out = messages(
      opaque({ introspection: { ...INTROSPECTION, path: 'introspect', secret: 'x' } }),
    ).join('\n')
    expect(out).toMatch(/secret/)
    expect(out).toMatch(/introspection\.path: expected a path starting with "\/"/)
  })

  it('names an undeclared backend', () => {
    const out = messages(
      opaque({ introspection: { ...INTROSPECTION, backendRef: { name: 'nope' } } }),
    )
    expect(out).toEqual([
      expect.stringMatching(
        `${PATH}.opaqueTokens.introspection.backendRef.name: no backend named "nope"`,
      ),
    ])
  })

  it('refuses at compile time a userinfo policy without authorization rules', async () => {
    const userinfo = { backendRef: { name: 'idp' }, path: '/v1/userinfo' }
    const jwt = { opaqueTokens: { issuer: BASE.issuer, userinfo } }
    const err = await compileOrThrow(parse(jwt, null)).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ConfigError)
    expect((err as ConfigError).issues).toEqual([
      expect.objectContaining({
        path: `${PATH}.opaqueTokens.userinfo`,
        message: expect.stringMatching(/needs authorization rules/),
      }),
    ])
    await expect(compileOrThrow(parse(jwt, ['jwt.hd == "example.com"']))).resolves.toBeDefined()
  })
})

describe('the configurations in docs/idp/opaque-tokens.md', () => {
  const doc = readFileSync(
    new URL('../../../../docs/idp/opaque-tokens.md', import.meta.url),
    'utf8',
  )
  const blocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? '')

  it('are valid and compile, on a route named mcp', async () => {
    expect(blocks).toHaveLength(2)
    for (const block of blocks) {
      const { backends, policies } = parseYaml(block) as Record<string, Record<string, unknown>>
      const route = parseYaml(ROUTE) as Record<string, Record<string, unknown>>
      const text = stringify({ ...route, backends: { ...route.backends, ...backends }, policies })
      const config = parseConfig(text, 'docs.yaml', { INTROSPECTION_SECRET: 'from-the-env' })
      await expect(compileOrThrow(config)).resolves.toBeDefined()
    }
  })
})
