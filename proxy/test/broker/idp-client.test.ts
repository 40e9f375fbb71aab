import { describe, expect, it } from 'vitest'
import type { DiscoveryCache } from '../../src/auth/discovery.js'
import { IdpClient } from '../../src/broker/idp-client.js'
import { upstreamSettings } from '../../src/config/idp-presets.js'

/** A discovery cache that answers with the given document. */
function discovery(doc: Record<string, unknown>): DiscoveryCache {
  return {
    get: async () => ({
      ok: true,
      document: { issuer: 'https://idp.example', ...doc },
      stale: false,
    }),
  } as unknown as DiscoveryCache
}

function client(
  preset: 'okta' | 'google' | 'entra',
  mcp: Parameters<typeof upstreamSettings>[1],
  doc = {},
) {
  return new IdpClient({
    issuer: 'https://idp.example',
    audience: 'api://default',
    discovery: discovery({ authorization_endpoint: 'https://idp.example/authorize', ...doc }),
    upstream: undefined,
    settings: upstreamSettings(
      { issuer: 'https://idp.example', preset, discoveryUrl: 'https://idp.example/d' },
      mcp,
    ),
    client: { clientId: 'gw', tokenEndpointAuthMethod: 'none' },
    callbackUrl: 'https://gw.example/mcp/oauth/callback',
  })
}

async function authorize(c: IdpClient, scope = ''): Promise<URLSearchParams> {
  const r = await c.authorizationUrl('st', 'ch', scope)
  if (!r.ok) throw new Error(r.cause)
  return new URL(r.url).searchParams
}

describe('IdpClient: the authorization request per preset', () => {
  it('okta: the seed’s audience parameter and offline_access with prompt=consent', async () => {
    const p = await authorize(client('okta', {}))
    expect(p.get('audience')).toBe('api://default')
    expect(p.get('scope')).toBe('openid profile email offline_access')
    expect(p.get('prompt')).toBe('consent')
  })

  it('google: no audience, access_type=offline and prompt=consent, no offline_access', async () => {
    const p = await authorize(client('google', {}))
    expect(p.has('audience')).toBe(false)
    expect(p.get('access_type')).toBe('offline')
    expect(p.get('prompt')).toBe('consent')
    expect(p.get('scope')?.split(' ')).not.toContain('offline_access')
  })

  it('drops offline_access when discovery’s scopes_supported lacks it', async () => {
    const p = await authorize(
      client('okta', {}, { scopes_supported: ['openid', 'profile', 'email'] }),
    )
    expect(p.get('scope')).toBe('openid profile email')
    expect(p.has('prompt')).toBe(false)
  })

  it('maps the scopes a client asked the gateway for to the IdP’s (scopeMap); unmapped ones are not sent', async () => {
    const c = client('entra', { upstream: { scopeMap: { 'mcp:tools': 'api://app/mcp.access' } } })
    const p = await authorize(c, 'mcp:tools other')
    expect(p.get('scope')?.split(' ')).toEqual([
      'openid',
      'profile',
      'email',
      'offline_access',
      'api://app/mcp.access',
    ])
  })

  it('sends extra parameters but never lets them replace its own (client_id, redirect_uri, state)', async () => {
    const c = client('entra', {
      upstream: {
        authorizeParameters: { domain_hint: 'example.com', client_id: 'evil', state: 'x' },
      },
    })
    const p = await authorize(c)
    expect(p.get('domain_hint')).toBe('example.com')
    expect(p.get('client_id')).toBe('gw')
    expect(p.get('state')).toBe('st')
  })

  it('names the audience parameter as configured, or sends none', async () => {
    expect(
      (await authorize(client('entra', { upstream: { audienceParameter: 'resource' } }))).get(
        'resource',
      ),
    ).toBe('api://default')
    expect(
      (await authorize(client('okta', { upstream: { audienceParameter: false } }))).has('audience'),
    ).toBe(false)
  })
})
