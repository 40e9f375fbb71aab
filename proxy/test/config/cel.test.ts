/**
 * CEL in the configuration (proxy/src/config/cel.ts; docs/design/layering.md): every expression is
 * type-checked against the variables the proxy binds, refused with its path before start, and
 * compiled once — the runtime snapshot reuses what validation compiled.
 */
import { Environment } from '@marcbachmann/cel-js'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { newCelCompiler } from '../../src/config/cel.js'
import { parseConfig } from '../../src/config/load.js'
import { ConfigError } from '../../src/errors.js'
import { buildSnapshot, compile, compileOrThrow } from '../../src/lifecycle/compile.js'
import { createLogging } from '../../src/telemetry/logging.js'
import { TaskRegistry } from '../../src/telemetry/tasks.js'
import { policyYaml } from './policy-yaml.js'

const config = (traffic: string) => parseConfig(policyYaml(traffic), 'test.yaml', {})

async function issuesOf(traffic: string): Promise<Array<{ path: string; message: string }>> {
  const err = await compileOrThrow(config(traffic)).catch((e: unknown) => e)
  if (!(err instanceof ConfigError)) throw new Error('expected a ConfigError')
  return err.issues.map(({ path, message }) => ({ path, message }))
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('CEL type checking', () => {
  it('refuses an unknown variable, an unknown mcp field and a wrong overload, naming each path', async () => {
    const issues = await issuesOf(`      authorization:
        policy: { matchExpressions: [ 'jwtt.sub == "alice"' ] }
      transformations:
        request: { set: [ { name: X-User, value: 'jwt.sub' }, { name: X-Tool, value: 'mcp.tool.name' } ] }
      mcpAuthorization:
        rules:
          - 'mcp.tol.name == "echo"'
          - deny: 'mcp.method.startsWith(1)'
      localRateLimit:
        - { maxTokens: 2, fillInterval: 1s, key: 'jwtt.sub', when: 'mcp.method' }
`)
    const base = 'policies.p.traffic'
    expect(issues).toEqual([
      {
        path: `${base}.authorization.policy.matchExpressions[0]`,
        message: 'invalid CEL "jwtt.sub == "alice"": Unknown variable: jwtt',
      },
      {
        // Header values see the claims only: `mcp` is not bound there.
        path: `${base}.transformations.request.set[1].value`,
        message: expect.stringContaining('Unknown variable: mcp'),
      },
      {
        path: `${base}.mcpAuthorization.rules[0]`,
        message: expect.stringContaining('No such key: tol'),
      },
      {
        path: `${base}.mcpAuthorization.rules[1]`,
        message: expect.stringContaining("found no matching overload for 'string.startsWith(int)'"),
      },
      {
        path: `${base}.localRateLimit[0].key`,
        message: expect.stringContaining('Unknown variable: jwtt'),
      },
      {
        path: `${base}.localRateLimit[0].when`,
        message: expect.stringContaining(
          'a rule must be a boolean, and this expression is of type string',
        ),
      },
    ])
  })

  it('accepts what the proxy binds: jwt claims of any type, and each field of mcp', async () => {
    const c = config(`      authorization:
        policy: { matchExpressions: [ '"AI-Users" in jwt.groups && jwt.tier >= 2' ] }
      mcpAuthorization:
        rules:
          - 'has(mcp.tool) && mcp.tool.name == "echo" && mcp.tool.arguments.n > 1'
          - allow: 'mcp.prompt.name.startsWith("p") || mcp.resource.uri.startsWith("file:")'
          - require: 'mcp.method != "" && mcp.resource.name == mcp.resource.uri'
      localRateLimit:
        - { maxTokens: 2, fillInterval: 1s, key: 'jwt.sub + "/" + mcp.tool.name', when: 'mcp.method == "tools/call"' }
`)
    await expect(compile(c)).resolves.toMatchObject({ ok: true })
  })
})

describe('CEL compiled once per compilation', () => {
  it('hands the runtime snapshot the programs validation compiled', async () => {
    const expressions = [
      'jwt.sub == "once-1"',
      'jwt.sub + "-once-2"',
      'mcp.tool.name == "once-3"',
      'jwt.sub + "/once-4"',
      'mcp.method == "once-5"',
    ]
    const c = config(`      authorization:
        policy: { matchExpressions: [ '${expressions[0]}' ] }
      transformations:
        request: { set: [ { name: X-User, value: '${expressions[1]}' } ] }
      mcpAuthorization:
        rules: [ '${expressions[2]}' ]
      localRateLimit:
        - { maxTokens: 2, fillInterval: 1s, key: '${expressions[3]}', when: '${expressions[4]}' }
`)
    const parse = vi.spyOn(Environment.prototype, 'parse')
    const compiled = await compileOrThrow(c)
    const parsed = () => parse.mock.calls.map(([e]) => e).sort()
    expect(parsed()).toEqual([...expressions].sort())
    const snapshot = await buildSnapshot(compiled, {
      logging: createLogging({ filter: 'off' }),
      tasks: new TaskRegistry(),
    })
    for (const u of snapshot.upstreams.values()) u.close()
    expect(parsed()).toEqual([...expressions].sort())
    expect(compiled.cel?.compile(expressions[2] as string, 'mcp', 'bool').expression).toBe(
      expressions[2],
    )
    expect(parsed()).toHaveLength(expressions.length)
  })

  it('shares no program between two compilations and leaves nothing behind in the process', async () => {
    const expression = 'jwt.sub == "per-compile"'
    const c = config(`      authorization:
        policy: { matchExpressions: [ '${expression}' ] }
`)
    const parse = vi.spyOn(Environment.prototype, 'parse')
    const first = await compileOrThrow(c)
    const second = await compileOrThrow(c)
    // Each compilation parsed the expression itself: nothing was cached between them.
    expect(parse.mock.calls.map(([e]) => e)).toEqual([expression, expression])
    const program = (compiled: typeof first) => compiled.cel?.compile(expression, 'claims', 'bool')
    expect(program(first)).toBeDefined()
    expect(program(first)).not.toBe(program(second))
    expect(parse).toHaveBeenCalledTimes(2)
  })
})

describe('CEL "in" on claims of undeclared type', () => {
  const run = (
    expression: string,
    variables: Record<string, unknown>,
    scope: 'claims' | 'mcp' = 'claims',
  ) => newCelCompiler().compile(expression, scope, 'bool').run(variables)

  it('does not pass "Everyone" in jwt.groups for a token whose groups is the object {"Everyone": true}', () => {
    for (const expression of ['"Everyone" in jwt.groups', '"Everyone" in jwt["groups"]']) {
      expect(run(expression, { jwt: { groups: ['Everyone'] } })).toBe(true)
      expect(run(expression, { jwt: { groups: ['Other'] } })).toBe(false)
      expect(() => run(expression, { jwt: { groups: { Everyone: true } } })).toThrow(
        'jwt.groups is an object',
      )
    }
  })

  it('refuses an object operand at any depth of a claim and of a tool argument', () => {
    expect(() =>
      run('"admin" in jwt.realm_access.roles', { jwt: { realm_access: { roles: { admin: 1 } } } }),
    ).toThrow('jwt.realm_access.roles is an object')
    expect(() =>
      run(
        '"x" in mcp.tool.arguments.tags',
        { jwt: {}, mcp: { tool: { name: 't', arguments: { tags: { x: 1 } } } } },
        'mcp',
      ),
    ).toThrow('mcp.tool.arguments.tags is an object')
  })

  it('keeps key tests where the type is declared a map: jwt and mcp.tool.arguments', () => {
    expect(run('"sub" in jwt', { jwt: { sub: 'alice' } })).toBe(true)
    expect(
      run(
        '"path" in mcp.tool.arguments',
        { jwt: {}, mcp: { tool: { name: 't', arguments: { path: '/' } } } },
        'mcp',
      ),
    ).toBe(true)
  })

  it('tests the keys of an object claim with exists, the documented form', () => {
    const rule = 'jwt.resource_access.exists(k, k == "my-client")'
    expect(run(rule, { jwt: { resource_access: { 'my-client': { roles: [] } } } })).toBe(true)
    expect(run(rule, { jwt: { resource_access: { other: {} } } })).toBe(false)
  })
})
