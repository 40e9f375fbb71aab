/** Challenge (proxy/src/auth/challenge.ts): the 401/400/403 refusals and their WWW-Authenticate. */
import { describe, expect, it } from 'vitest'
import { Challenge } from '../../src/auth/challenge.js'

const PRM = 'https://gw.example.com/.well-known/oauth-protected-resource/mcp'

describe('Challenge', () => {
  it('points a request without a token at the resource metadata, with no error (RFC 6750 §3.1)', () => {
    const r = new Challenge(PRM).unauthorized('a bearer token is required', false)
    expect(r.status).toBe(401)
    expect(r.headers?.['www-authenticate']).toBe(`Bearer resource_metadata="${PRM}"`)
    expect(r.body).toEqual({
      error: 'unauthorized',
      error_description: 'a bearer token is required',
    })
  })

  it('adds invalid_token and the description for a token that failed', () => {
    const r = new Challenge(PRM).unauthorized('the token has expired', true)
    expect(r.headers?.['www-authenticate']).toBe(
      `Bearer resource_metadata="${PRM}", error="invalid_token", error_description="the token has expired"`,
    )
  })

  it('uses a realm when the policy serves no resource metadata, so the challenge is never bare', () => {
    expect(new Challenge(undefined).header({})['www-authenticate']).toBe('Bearer realm="gatehouse"')
  })

  it('names scopes_supported on 401 when configured (MCP 2025-11-25; RFC 6750 §3), on both kinds', () => {
    const c = new Challenge(PRM, [], ['openid', 'profile'])
    expect(c.unauthorized('a bearer token is required', false).headers?.['www-authenticate']).toBe(
      `Bearer resource_metadata="${PRM}", scope="openid profile"`,
    )
    expect(c.unauthorized('expired', true).headers?.['www-authenticate']).toBe(
      `Bearer resource_metadata="${PRM}", error="invalid_token", error_description="expired", scope="openid profile"`,
    )
    // The 403 names only mcp.requiredScopes, never scopes_supported (no step-up loop).
    expect(c.forbidden('no').headers?.['www-authenticate']).toBe(
      `Bearer resource_metadata="${PRM}", error="insufficient_scope"`,
    )
  })

  it('names required scopes on 403 only when configured (no step-up loop otherwise)', () => {
    expect(new Challenge(PRM).forbidden('no').headers?.['www-authenticate']).toBe(
      `Bearer resource_metadata="${PRM}", error="insufficient_scope"`,
    )
    const scoped = new Challenge(PRM, ['mcp:tools', 'openid']).forbidden('no')
    expect(scoped.status).toBe(403)
    expect(scoped.headers?.['www-authenticate']).toContain('scope="mcp:tools openid"')
  })

  it('answers a malformed request 400 invalid_request in the header and the body (RFC 6750 §3.1)', () => {
    const r = new Challenge(PRM).badRequest('send one Authorization header')
    expect(r.status).toBe(400)
    expect(r.headers?.['www-authenticate']).toBe(
      `Bearer resource_metadata="${PRM}", error="invalid_request", error_description="send one Authorization header"`,
    )
    expect(r.body).toEqual({
      error: 'invalid_request',
      error_description: 'send one Authorization header',
    })
  })

  it('drops quotes and backslashes from auth-param values (RFC 9110 §11.2)', () => {
    const r = new Challenge(PRM).badRequest('say "hi" \\ bye')
    expect(r.status).toBe(400)
    expect(r.headers?.['www-authenticate']).toContain('error_description="say hi  bye"')
  })

  it('percent-encodes what RFC 6750 §3 does not allow in a value, so the header is always valid', () => {
    const r = new Challenge(PRM).unauthorized('extension "中" \u001b[31m\r\nX-Forged: 1', true)
    const header = r.headers?.['www-authenticate'] ?? ''
    expect(header).toContain('error_description="extension %E4%B8%AD %1B[31m%0D%0AX-Forged: 1"')
    expect(header).toMatch(/^[\x20-\x7e]+$/)
    // The body keeps the description as it was.
    expect(r.body).toMatchObject({ error_description: 'extension "中" \u001b[31m\r\nX-Forged: 1' })
  })
})
