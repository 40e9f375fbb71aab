import { describe, expect, it } from 'vitest'
import { brokerUrls } from '../../src/broker/context.js'

describe('brokerUrls', () => {
  it('puts the endpoints under the issuer derived from the resource (RFC 8414 §3)', () => {
    expect(brokerUrls('https://gw.example/mcp')).toEqual({
      issuer: 'https://gw.example/mcp',
      issuerPath: '/mcp',
      metadataPath: '/.well-known/oauth-authorization-server/mcp',
      authorizationEndpoint: 'https://gw.example/mcp/oauth/authorize',
      tokenEndpoint: 'https://gw.example/mcp/oauth/token',
      registrationEndpoint: 'https://gw.example/mcp/oauth/register',
      consentEndpoint: 'https://gw.example/mcp/oauth/consent',
      callbackUrl: 'https://gw.example/mcp/oauth/callback',
    })
  })

  it('has no trailing slash, query or fragment in the issuer', () => {
    expect(brokerUrls('https://gw.example/').issuer).toBe('https://gw.example')
    expect(brokerUrls('https://gw.example/').metadataPath).toBe(
      '/.well-known/oauth-authorization-server',
    )
    expect(brokerUrls('https://gw.example:8443/a/b/?x=1#f').issuer).toBe(
      'https://gw.example:8443/a/b',
    )
  })
})
