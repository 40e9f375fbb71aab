import { describe, expect, it } from 'vitest'
import {
  discoveryUrlOf,
  IDP_PRESET_DEFAULTS,
  IDP_PRESETS,
  presetOf,
  statedDiscoveryOf,
  upstreamSettings,
} from '../../src/config/idp-presets.js'
import { JwtAuthenticationSchema, JwtProviderSchema } from '../../src/config/schema.js'

const remote = { remote: { backendRef: { name: 'idp' }, jwksPath: '/oauth2/default/v1/keys' } }

describe('IdP presets', () => {
  it('a provider without preset is an okta one (the seed’s bridged IdP)', () => {
    expect(presetOf({})).toBe(IDP_PRESET_DEFAULTS.okta)
    expect(IDP_PRESET_DEFAULTS.okta).toMatchObject({
      audienceParameter: 'audience',
      trailingSlashIssuer: false,
      discovery: 'backend',
    })
  })

  it('every preset documents a groups rule and is listed', () => {
    for (const name of IDP_PRESETS) expect(IDP_PRESET_DEFAULTS[name].groupsRule).not.toBe('')
  })

  it('discoveryUrlOf: the configured URL, the issuer’s well-known URL, or the backend for okta', () => {
    const issuer = 'https://tenant.auth0.com/'
    expect(discoveryUrlOf({ issuer, preset: 'auth0' })).toBe(
      'https://tenant.auth0.com/.well-known/openid-configuration',
    )
    expect(
      discoveryUrlOf({ issuer, preset: 'entra', discoveryUrl: 'https://login.example/d' }),
    ).toBe('https://login.example/d')
    expect(discoveryUrlOf({ issuer: 'https://o.example/oauth2/default', jwks: remote })).toBe(
      undefined,
    )
  })

  it('upstreamSettings: configured values win over the preset’s', () => {
    const google = upstreamSettings({ issuer: 'https://accounts.google.com', preset: 'google' }, {})
    expect(google).toMatchObject({
      audienceParameter: false,
      authorizeParameters: { access_type: 'offline', prompt: 'consent' },
      ownEndpoints: true,
    })
    expect(google.scopes).not.toContain('offline_access')
    const overridden = upstreamSettings(
      { issuer: 'https://idp.example/', preset: 'generic' },
      {
        upstream: { audienceParameter: 'resource', scopeMap: { 'mcp:tools': 'api://x/y' } },
        broker: { upstreamClient: { scopes: ['openid'] } },
      },
    )
    expect(overridden).toMatchObject({
      audienceParameter: 'resource',
      scopeMap: { 'mcp:tools': 'api://x/y' },
      scopes: ['openid'],
    })
    const okta = upstreamSettings({ issuer: 'https://o.example/oauth2/default', jwks: remote }, {})
    expect(okta).toMatchObject({ audienceParameter: 'audience', ownEndpoints: false })
  })
})

describe('JwtProviderSchema with presets', () => {
  const parse = (p: Record<string, unknown>) => JwtProviderSchema.safeParse(p)

  it('refuses a trailing-slash issuer for okta (the default), naming preset as the way out', () => {
    const r = parse({ issuer: 'https://tenant.auth0.com/', audiences: ['a'], jwks: remote })
    expect(r.success).toBe(false)
    expect(r.error?.issues[0]?.message).toMatch(/trailing slash.*set preset/)
  })

  it('accepts the issuer exactly as the IdP states it with another preset, keys from discovery', () => {
    const r = parse({ issuer: 'https://tenant.auth0.com/', audiences: ['a'], preset: 'auth0' })
    expect(r.success).toBe(true)
  })

  it('needs jwks with the okta preset', () => {
    const r = parse({ issuer: 'https://o.example/oauth2/default', audiences: ['a'] })
    expect(r.error?.issues[0]?.path).toEqual(['jwks'])
  })
})

describe('providers[].endpoints: endpoints stated instead of discovered', () => {
  const issuer = 'https://idp.example.com'
  const endpoints = {
    authorization: 'https://idp.example.com/authorize',
    token: 'https://login.idp.example.com/token',
    jwks: 'https://keys.idp.example.com/jwks',
  }
  const parse = (p: Record<string, unknown>) =>
    JwtProviderSchema.safeParse({ issuer, audiences: ['a'], preset: 'generic', ...p })
  const messages = (p: Record<string, unknown>) =>
    (parse(p).error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`)

  it('are accepted on any host over https, and stand for a discovery document', () => {
    const r = parse({ endpoints: { ...endpoints, scopesSupported: ['openid'] } })
    expect(r.success).toBe(true)
    expect(discoveryUrlOf({ issuer, preset: 'generic', endpoints })).toBeUndefined()
    expect(
      statedDiscoveryOf({ issuer, endpoints: { ...endpoints, scopesSupported: ['openid'] } }),
    ).toEqual({
      issuer,
      authorization_endpoint: endpoints.authorization,
      token_endpoint: endpoints.token,
      jwks_uri: endpoints.jwks,
      scopes_supported: ['openid'],
    })
    expect(upstreamSettings({ issuer, preset: 'generic', endpoints }, {}).ownEndpoints).toBe(true)
  })

  it('accept http on a loopback host only, as discovered endpoints do', () => {
    expect(parse({ endpoints: { jwks: 'http://127.0.0.1:9000/jwks' } }).success).toBe(true)
    expect(
      messages({ endpoints: { ...endpoints, token: 'http://idp.example.com/token' } }),
    ).toEqual([
      'endpoints.token: the endpoint uses http on idp.example.com, which is not a loopback host: tokens and codes would cross the network in the clear; use https',
    ])
  })

  it('refuse credentials and fragments in a URL, and unknown members', () => {
    expect(
      messages({ endpoints: { ...endpoints, jwks: 'https://u:p@idp.example.com/k' } })[0],
    ).toMatch(/^endpoints\.jwks: the endpoint carries credentials/)
    expect(
      messages({ endpoints: { ...endpoints, authorization: `${endpoints.authorization}#x` } })[0],
    ).toMatch(/^endpoints\.authorization: the endpoint has a fragment/)
    expect(parse({ endpoints: { ...endpoints, keys: 'https://x' } }).success).toBe(false)
  })

  it('are refused with the okta preset, with discoveryUrl, and without keys', () => {
    expect(messages({ preset: 'okta', jwks: remote, endpoints })[0]).toMatch(
      /^endpoints: not with the okta preset.*set preset/,
    )
    expect(messages({ discoveryUrl: 'https://idp.example.com/d', endpoints })).toEqual([
      'endpoints: expected either discoveryUrl or endpoints, not both: endpoints replace the discovery document',
    ])
    expect(messages({ endpoints: { token: endpoints.token } })[0]).toMatch(
      /^endpoints\.jwks: required when the provider has no jwks/,
    )
  })

  it('must name the authorization and token endpoints when the policy has an mcp block', () => {
    const r = JwtAuthenticationSchema.safeParse({
      providers: [
        { issuer, audiences: ['a'], preset: 'generic', endpoints: { jwks: endpoints.jwks } },
      ],
      mcp: {
        provider: 'BridgedIdp',
        resourceMetadata: { resource: 'https://mcp.example.com/mcp' },
      },
    })
    expect(r.error?.issues.map((i) => i.path.join('.'))).toEqual([
      'providers.0.endpoints.authorization',
      'providers.0.endpoints.token',
    ])
  })
})
