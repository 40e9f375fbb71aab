import { describe, expect, it } from 'vitest'
import {
  compileMcpAuthorization,
  MAX_CACHED_NAME,
  mcpCelValue,
} from '../../src/mcp/authorization.js'
import type { McpTarget } from '../../src/mcp/json-rpc.js'

const alice = { sub: 'alice', groups: ['AI-Users'] }
const admin = { sub: 'root', groups: ['AI-Users', 'admins'] }
const tool = (name: string, args?: Record<string, unknown>): McpTarget =>
  args ? { kind: 'tool', name, arguments: args } : { kind: 'tool', name }
const prompt = (name: string): McpTarget => ({ kind: 'prompt', name })
const resource = (uri: string): McpTarget => ({ kind: 'resource', name: uri })

describe('compileMcpAuthorization', () => {
  it('allows everything without rules', () => {
    const authz = compileMcpAuthorization([])
    expect(authz.allows(alice, 'tools/call', tool('anything'))).toBe(true)
  })

  it('is an allow list once there is an allow rule: an unnamed tool is refused', () => {
    const authz = compileMcpAuthorization([
      'mcp.tool.name == "echo"',
      { allow: '"admins" in jwt.groups && mcp.tool.name == "fetch"' },
    ])
    expect(authz.allows(alice, 'tools/call', tool('echo'))).toBe(true)
    expect(authz.allows(alice, 'tools/call', tool('fetch'))).toBe(false)
    expect(authz.allows(admin, 'tools/call', tool('fetch'))).toBe(true)
    expect(authz.allows(alice, 'tools/call', tool('progress'))).toBe(false)
    // agentgateway: with an allow list, prompts and resources no rule allows are refused too.
    expect(authz.allows(alice, 'prompts/get', prompt('greet'))).toBe(false)
  })

  it('is a deny list with deny rules only, each applying to the kind of target it names', () => {
    const authz = compileMcpAuthorization([{ deny: 'mcp.tool.name == "fetch"' }])
    expect(authz.allows(alice, 'tools/call', tool('fetch'))).toBe(false)
    expect(authz.allows(alice, 'tools/call', tool('echo'))).toBe(true)
    // mcp.tool does not exist on a prompt: the tool rule does not apply to prompts.
    expect(authz.allows(alice, 'prompts/get', prompt('greet'))).toBe(true)
  })

  it('denies when a deny rule cannot be evaluated on a target it applies to', () => {
    const authz = compileMcpAuthorization([
      { deny: 'jwt.department != "ops" && mcp.tool.name.startsWith("admin_")' },
    ])
    expect(authz.allows(alice, 'tools/call', tool('admin_reboot'))).toBe(false)
    expect(authz.allows({ ...alice, department: 'ops' }, 'tools/call', tool('admin_reboot'))).toBe(
      true,
    )
  })

  it('requires every require rule that applies, and lets deny win over allow', () => {
    const authz = compileMcpAuthorization([
      { require: '"AI-Users" in jwt.groups' },
      { allow: 'true' },
      { deny: 'mcp.resource.uri.startsWith("secret://")' },
    ])
    expect(authz.allows(alice, 'resources/read', resource('file:///a'))).toBe(true)
    expect(authz.allows(alice, 'resources/read', resource('secret://k'))).toBe(false)
    expect(authz.allows({ sub: 'bob', groups: [] }, 'tools/call', tool('echo'))).toBe(false)
    // A missing claim: the require rule cannot hold.
    expect(authz.allows({ sub: 'carol' }, 'tools/call', tool('echo'))).toBe(false)
  })

  it('sees the tool arguments and the method', () => {
    const authz = compileMcpAuthorization([
      'mcp.method == "tools/call" && mcp.tool.name == "fetch" && mcp.tool.arguments.url.startsWith("http://127.0.0.1")',
    ])
    expect(
      authz.allows(alice, 'tools/call', tool('fetch', { url: 'http://127.0.0.1:8080/x' })),
    ).toBe(true)
    expect(authz.allows(alice, 'tools/call', tool('fetch', { url: 'http://evil.example' }))).toBe(
      false,
    )
    // Without arguments (a listed tool) the rule cannot hold.
    expect(authz.allows(alice, 'tools/call', tool('fetch'))).toBe(false)
  })

  it('exposes the resource URI as mcp.resource.uri and, like agentgateway, mcp.resource.name', () => {
    expect(mcpCelValue('resources/read', resource('file:///x'))).toEqual({
      method: 'resources/read',
      resource: { uri: 'file:///x', name: 'file:///x' },
    })
    const authz = compileMcpAuthorization(['mcp.resource.name == "file:///x"'])
    expect(authz.allows(alice, 'resources/read', resource('file:///x'))).toBe(true)
  })

  it('explains a decision rule by rule, marking rules that do not apply', () => {
    const authz = compileMcpAuthorization([
      'mcp.tool.name == "echo"',
      { deny: 'mcp.prompt.name == "x"' },
    ])
    const { allowed, rules } = authz.explain(alice, 'tools/call', tool('fetch'))
    expect(allowed).toBe(false)
    expect(rules).toEqual([
      { mode: 'allow', expression: 'mcp.tool.name == "echo"', applies: true, matched: false },
      { mode: 'deny', expression: 'mcp.prompt.name == "x"', applies: false, matched: false },
    ])
  })

  it('decides the same on a cached second call with the same claims object', () => {
    const authz = compileMcpAuthorization(['jwt.sub == "alice" && mcp.tool.name == "echo"'])
    for (let i = 0; i < 3; i++) {
      expect(authz.allows(alice, 'tools/call', tool('echo'))).toBe(true)
      expect(authz.allows(alice, 'tools/call', tool('fetch'))).toBe(false)
      expect(authz.allows(admin, 'tools/call', tool('echo'))).toBe(false)
    }
  })

  it('names the rule that does not compile', () => {
    expect(() => compileMcpAuthorization(['true', { deny: 'mcp.tool.name ==' }])).toThrow(
      /^rules\[1\]: invalid CEL/,
    )
  })
})

describe('the rules of docs/auth.md', () => {
  const authz = compileMcpAuthorization([
    'mcp.tool.name in ["echo", "progress"]',
    { allow: '"admins" in jwt.groups' },
    {
      deny: 'mcp.tool.name == "fetch" && has(mcp.tool.arguments) && !mcp.tool.arguments.url.startsWith("http://127.0.0.1")',
    },
  ])

  it('let admins list fetch and fetch from loopback only, and keep everyone else to echo', () => {
    expect(authz.allows(admin, 'tools/call', tool('fetch'))).toBe(true)
    expect(authz.allows(admin, 'tools/call', tool('fetch', { url: 'http://127.0.0.1:1/x' }))).toBe(
      true,
    )
    expect(authz.allows(admin, 'tools/call', tool('fetch', { url: 'https://example.com' }))).toBe(
      false,
    )
    expect(authz.allows(alice, 'tools/call', tool('echo'))).toBe(true)
    expect(authz.allows(alice, 'tools/call', tool('fetch'))).toBe(false)
  })
})

// A client may send names of megabytes; 1024 of them in the decision cache would hold gigabytes.
describe('compileMcpAuthorization decision cache', () => {
  it('keeps decisions on short names only', () => {
    const authz = compileMcpAuthorization(['jwt.admin == true'])
    // The cache is keyed by the claims object: changing it in place shows what was cached.
    const claims: Record<string, unknown> = { admin: false }
    const short = { kind: 'tool' as const, name: 'echo' }
    const long = { kind: 'tool' as const, name: 'x'.repeat(MAX_CACHED_NAME + 1) }
    expect(authz.allows(claims, 'tools/call', short)).toBe(false)
    expect(authz.allows(claims, 'tools/call', long)).toBe(false)
    claims.admin = true
    expect(authz.allows(claims, 'tools/call', short)).toBe(false)
    expect(authz.allows(claims, 'tools/call', long)).toBe(true)
  })
})
