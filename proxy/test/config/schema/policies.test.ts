/** The schema of `traffic.mcpAuthorization` and `traffic.localRateLimit` (docs/observability.md). */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse, parseAllDocuments, stringify } from 'yaml'
import { parseConfig } from '../../../src/config/load.js'
import { PolicyConfigSchema } from '../../../src/config/schema.js'
import { ConfigError } from '../../../src/errors.js'
import { compileOrThrow } from '../../../src/lifecycle/compile.js'
import { policyYaml, ROUTE } from '../policy-yaml.js'

const config = policyYaml

function errorOf(traffic: string): ConfigError {
  try {
    parseConfig(config(traffic), 'test.yaml', {})
  } catch (err) {
    if (err instanceof ConfigError) return err
    throw err
  }
  throw new Error('expected a ConfigError')
}

describe('MCP-aware policy configuration', () => {
  it('accepts plain, allow, deny and require rules and a keyed limit, with defaults', () => {
    const c = parseConfig(
      config(`      mcpAuthorization:
        rules:
          - 'mcp.tool.name == "echo"'
          - allow: '"admins" in jwt.groups'
          - deny: 'mcp.tool.name == "fetch"'
          - require: 'has(jwt.sub)'
      localRateLimit:
        - maxTokens: 10
          fillInterval: 6s
          key: 'jwt.sub + "/" + mcp.tool.name'
          when: 'mcp.method == "tools/call"'
`),
      'test.yaml',
      {},
    )
    const traffic = c.policies.p?.traffic
    expect(traffic?.mcpAuthorization?.rules).toHaveLength(4)
    expect(traffic?.localRateLimit?.[0]).toMatchObject({ maxTokens: 10, tokensPerFill: 1 })
  })

  it('rejects a rule object with two modes, naming the rule', () => {
    const e = errorOf(`      mcpAuthorization:
        rules:
          - { allow: 'true', deny: 'false' }
`)
    expect(e.message).toContain('policies.p.traffic.mcpAuthorization.rules[0]')
    expect(e.message).toContain('exactly one of allow, deny or require')
  })

  it('rejects tokensPerFill above maxTokens and a fillInterval out of bounds', () => {
    const e = errorOf(`      localRateLimit:
        - { maxTokens: 2, tokensPerFill: 5, fillInterval: 5ms }
`)
    expect(e.message).toContain('policies.p.traffic.localRateLimit[0].tokensPerFill')
    expect(e.message).toContain('policies.p.traffic.localRateLimit[0].fillInterval')
  })

  it('rejects a CEL expression that does not compile at start-up and in --validate', async () => {
    const c = parseConfig(
      config(`      localRateLimit:
        - { maxTokens: 2, fillInterval: 1s, key: 'jwt.sub +' }
      mcpAuthorization:
        rules: [ { deny: 'mcp.tool.name ==' } ]
`),
      'test.yaml',
      {},
    )
    const err = await compileOrThrow(c).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ConfigError)
    expect((err as ConfigError).issues.map((i) => i.path)).toEqual([
      'policies.p.traffic.mcpAuthorization.rules[0]',
      'policies.p.traffic.localRateLimit[0].key',
    ])
  })
})

describe('the MCP-aware policy examples in the docs', () => {
  const docs = ['configuration.md', 'auth.md'].map((f) =>
    readFileSync(new URL(`../../../../docs/${f}`, import.meta.url), 'utf8'),
  )
  const blocks = docs.flatMap((d) =>
    [...d.matchAll(/```yaml\n([\s\S]*?)```/g)]
      .map((m) => m[1] ?? '')
      .filter((b) => /mcpAuthorization|localRateLimit/.test(b)),
  )

  it('are valid configurations that compile', async () => {
    expect(blocks.length).toBeGreaterThanOrEqual(3)
    for (const block of blocks) {
      const doc = parse(block) as Record<string, unknown>
      const policies = (doc.policies as Record<string, { traffic: unknown }> | undefined) ?? {
        p: { traffic: (doc.traffic as unknown) ?? doc },
      }
      const traffic = Object.fromEntries(
        Object.entries(policies).map(([name, p]) => [
          name,
          { targetRefs: [{ name: 'mcp' }], traffic: p.traffic },
        ]),
      )
      const config = parseConfig(`${ROUTE}${stringify({ policies: traffic })}`, 'docs.yaml', {})
      await compileOrThrow(config)
    }
  })
})

describe('the Kubernetes example', () => {
  it('carries an mcp-tools GatewayPolicy whose spec is a valid policy', () => {
    const docs = parseAllDocuments(
      readFileSync(
        new URL('../../../../examples/kubernetes/mcp-auth.yaml', import.meta.url),
        'utf8',
      ),
    ).map((d) => d.toJS() as { kind?: string; metadata?: { name?: string }; spec?: unknown })
    const tools = docs.find((d) => d.kind === 'GatewayPolicy' && d.metadata?.name === 'mcp-tools')
    const result = PolicyConfigSchema.safeParse(tools?.spec)
    expect(result.error?.issues ?? []).toEqual([])
    expect(result.data?.traffic.mcpAuthorization?.rules).toHaveLength(2)
  })
})
