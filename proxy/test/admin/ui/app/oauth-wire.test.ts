import { describe, expect, it } from 'vitest'
import {
  asMetadataUrls,
  mcpMessage,
  parseBearerChallenge,
  resourceMetadataUrls,
  s256,
  verdictOf,
} from '../../../../src/admin/ui/app/oauth-wire.js'

const answer = (body: string) => ({
  status: 200,
  statusText: 'OK',
  headers: [],
  body,
  truncated: false,
  durationMs: 1,
})

describe('oauth-wire', () => {
  it('reads a Bearer challenge’s parameters, quoted or not (RFC 6750 §3)', () => {
    expect(
      parseBearerChallenge(
        'Bearer resource_metadata="https://a/x", error=insufficient_scope, scope="a b"',
      ),
    ).toEqual({
      resource_metadata: 'https://a/x',
      error: 'insufficient_scope',
      scope: 'a b',
    })
    expect(parseBearerChallenge('Basic realm="x"')).toBeUndefined()
    expect(parseBearerChallenge(undefined)).toBeUndefined()
  })

  it('lists the metadata URLs in the order MCP 2026-07-28 gives (RFC 8414 §3.1, then OIDC)', () => {
    expect(asMetadataUrls('https://as.example/tenant1')).toEqual([
      'https://as.example/.well-known/oauth-authorization-server/tenant1',
      'https://as.example/.well-known/openid-configuration/tenant1',
      'https://as.example/tenant1/.well-known/openid-configuration',
    ])
    expect(asMetadataUrls('https://as.example')).toEqual([
      'https://as.example/.well-known/oauth-authorization-server',
      'https://as.example/.well-known/openid-configuration',
    ])
    expect(resourceMetadataUrls('http://127.0.0.1:3000/mcp')).toEqual([
      'http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp',
      'http://127.0.0.1:3000/.well-known/oauth-protected-resource',
    ])
  })

  it('computes the S256 challenge of RFC 7636 Appendix B', async () => {
    expect(await s256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    )
  })

  it('reads the JSON-RPC message of a JSON body or of an event stream', () => {
    expect(mcpMessage(answer('{"id":1,"result":{}}'))).toEqual({ id: 1, result: {} })
    expect(mcpMessage(answer('event: message\ndata: {"id":2,"result":{"tools":[]}}\n\n'))).toEqual({
      id: 2,
      result: { tools: [] },
    })
    expect(mcpMessage(answer('nothing'))).toBeUndefined()
  })

  it('fails a step on a failed MUST only', () => {
    const c = (level: 'MUST' | 'SHOULD', ok: boolean | undefined) => ({
      text: '',
      cite: '',
      level,
      ok,
    })
    expect(verdictOf([c('MUST', true), c('SHOULD', false), c('MUST', undefined)])).toBe('holds')
    expect(verdictOf([c('MUST', false)])).toBe('fails')
  })
})
