import { describe, expect, it } from 'vitest'
import {
  discoveryUrlOf,
  IDP_PRESET_DEFAULTS,
  IDP_PRESETS,
  presetOf,
  upstreamSettings,
} from '../../src/config/idp-presets.js'
import { JwtProviderSchema } from '../../src/config/schema.js'

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
