/**
 * The schema of `jwtAuthentication.mcp` (config/schema/mcp-auth.ts), parsed on its own: the RFC 9728
 * metadata source, the upstream authorization request, DNS rebinding protection and the broker's
 * cross-field rules. The whole-configuration cases are in broker.test.ts and policies.test.ts.
 */
import { describe, expect, it } from 'vitest'
import {
  McpAuthSchema,
  McpUpstreamSchema,
  OriginValidationSchema,
  ResourceMetadataSchema,
  RouteOriginValidationSchema,
} from '../../../src/config/schema/mcp-auth.js'

const RESOURCE = { resource: 'https://gateway.example.com/mcp' }

/** `path: message` of each issue, or [] when the value parses. */
function problems(
  schema: { safeParse(v: unknown): { success: boolean; error?: unknown } },
  v: unknown,
) {
  const result = schema.safeParse(v)
  if (result.success) return []
  const { issues } = result.error as { issues: Array<{ path: PropertyKey[]; message: string }> }
  return issues.map((i) => `${i.path.map(String).join('.')}: ${i.message}`)
}

describe('mcp.resourceMetadata', () => {
  it('needs the resource as a URL and knows only the RFC 9728 fields it serves', () => {
    expect(
      problems(ResourceMetadataSchema, { ...RESOURCE, scopesSupported: ['mcp:tools'] }),
    ).toEqual([])
    expect(problems(ResourceMetadataSchema, { resource: 'gateway/mcp' })[0]).toMatch(/^resource: /)
    expect(problems(ResourceMetadataSchema, { ...RESOURCE, scopes: ['x'] })[0]).toMatch(/scopes/)
  })
})

describe('mcp.originValidation', () => {
  it('takes serialized origins, "null" and "*", and says what an origin is when given a URL', () => {
    expect(
      problems(OriginValidationSchema, {
        allowedOrigins: ['https://app.example.com', 'http://localhost:6274', 'null', '*'],
      }),
    ).toEqual([])
    const [problem] = problems(OriginValidationSchema, {
      allowedOrigins: ['https://app.example.com/'],
    })
    expect(problem).toBe(
      'allowedOrigins.0: expected an origin: scheme://host[:port] in lowercase, without path or trailing slash (e.g. "https://app.example.com"), "null" or "*"',
    )
  })

  it('takes Host values as the header carries them, and refuses a scheme or an upper-case name', () => {
    expect(
      problems(OriginValidationSchema, {
        allowedHosts: [
          'gateway.example.com',
          'gateway.example.com:8443',
          '*.example.com',
          '[::1]:3000',
        ],
      }),
    ).toEqual([])
    for (const host of ['https://gateway.example.com', 'Gateway.example.com', 'gateway/mcp']) {
      expect(problems(OriginValidationSchema, { allowedHosts: [host] })[0]).toMatch(
        /^allowedHosts\.0: expected a host as the Host header carries it/,
      )
    }
    expect(problems(OriginValidationSchema, { allowedHosts: [] })).toHaveLength(1)
  })

  it('is enforced by default as a route-level setting, and can only be turned off by name', () => {
    expect(RouteOriginValidationSchema.parse({}).mode).toBe('Enforce')
    expect(RouteOriginValidationSchema.parse({ mode: 'Disabled' }).mode).toBe('Disabled')
    expect(problems(RouteOriginValidationSchema, { mode: 'Off' })[0]).toMatch(/^mode: /)
  })
})

describe('mcp.upstream', () => {
  it('takes an audience parameter name or false, extra parameters and a scope map', () => {
    expect(
      problems(McpUpstreamSchema, {
        audienceParameter: false,
        authorizeParameters: { access_type: 'offline' },
        scopeMap: { 'mcp:tools': 'api://app/mcp.access' },
      }),
    ).toEqual([])
    expect(problems(McpUpstreamSchema, { audienceParameter: '' })[0]).toMatch(
      /^audienceParameter: /,
    )
    expect(problems(McpUpstreamSchema, { audienceParameter: true })[0]).toMatch(
      /^audienceParameter: /,
    )
  })
})

describe('mcp', () => {
  it("defaults issuerMode to the seed's Provider", () => {
    expect(McpAuthSchema.parse({ resourceMetadata: RESOURCE }).issuerMode).toBe('Provider')
  })

  it('refuses broker mode without BridgedIdp, and without a client id at the IdP, naming each field', () => {
    expect(problems(McpAuthSchema, { resourceMetadata: RESOURCE, broker: {} })).toEqual([
      'broker: broker mode needs provider: BridgedIdp (the gateway brokers that IdP)',
      "broker.upstreamClient.clientId: required when mcp.clientId is not set: the gateway's pre-registered client id at the IdP",
    ])
    expect(
      problems(McpAuthSchema, {
        resourceMetadata: RESOURCE,
        provider: 'BridgedIdp',
        clientId: 'gh_1',
        broker: {},
      }),
    ).toEqual([])
  })

  it('asks for the client secret a client_secret method needs, and a shared secret with Redis', () => {
    const found = problems(McpAuthSchema, {
      resourceMetadata: RESOURCE,
      provider: 'BridgedIdp',
      clientId: 'gh_1',
      broker: {
        upstreamClient: { tokenEndpointAuthMethod: 'client_secret_basic' },
        store: { redis: { url: 'redis://127.0.0.1:6379' } },
      },
    })
    expect(found).toEqual([
      'broker.upstreamClient.clientSecret: required with tokenEndpointAuthMethod client_secret_basic; write it as ${VAR}',
      'broker.secret: required with store.redis: every replica must sign state and cookies with the same key (e.g. `openssl rand -base64 32`, passed as ${VAR})',
    ])
  })
})
