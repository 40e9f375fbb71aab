import { describe, expect, it } from 'vitest'
import {
  idpText,
  reportSignInFailure,
  type SignInFailure,
} from '../../src/broker/sign-in-failure.js'
import { ERRORS } from '../../src/errors.js'

const ISSUER = 'https://idp.example.com/idp'
const TOKENISH = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl'

describe('reportSignInFailure', () => {
  it('invalid_scope: the log names the IdP error, its text and where to look; the person is told it is a configuration problem', () => {
    const r = reportSignInFailure(
      {
        kind: 'authorization',
        error: 'invalid_scope',
        description: 'offline_access is not allowed',
      },
      ISSUER,
    )
    expect(r).toMatchObject({
      code: 'GW_ERR_IDP_SIGN_IN_FAILED',
      error: 'invalid_scope',
      log: {
        issuer: ISSUER,
        idpError: 'invalid_scope',
        idpDescription: 'offline_access is not allowed',
      },
    })
    expect(r.message).toMatch(/offline_access is not allowed.*broker\.upstreamClient\.scopes/)
    expect(r.description).toMatch(/invalid_scope.*configuration problem.*operator/)
    expect(r.description).not.toContain('offline_access is not allowed')
  })

  it("never puts the IdP's description, a token or a body in what the client is sent", () => {
    const failures: SignInFailure[] = [
      { kind: 'authorization', error: 'access_denied', description: TOKENISH },
      { kind: 'authorization', error: `x${TOKENISH}`, description: undefined },
      { kind: 'exchange-refused', error: 'invalid_client', description: TOKENISH },
      { kind: 'exchange-unavailable', cause: `HTTP 500 ${TOKENISH}` },
      { kind: 'discovery', cause: `the document names issuer ${TOKENISH}` },
      { kind: 'issuer', received: TOKENISH, expected: ISSUER },
    ]
    for (const f of failures) {
      const r = reportSignInFailure(f, ISSUER)
      expect(r.description).not.toContain(TOKENISH)
      expect(r.description).toMatch(/(operator|administrator)/)
      expect(Object.keys(ERRORS)).toContain(r.code)
    }
  })

  it('an error code outside RFC 6749 §4.1.2.1 becomes server_error and is not named to the person', () => {
    const r = reportSignInFailure(
      { kind: 'authorization', error: 'weird_thing', description: undefined },
      ISSUER,
    )
    expect(r.error).toBe('server_error')
    expect(r.description).not.toContain('weird_thing')
    expect(r.log.idpError).toBe('weird_thing')
  })

  it('each cause has its own code: discovery, the token endpoint down, the rest', () => {
    const code = (f: SignInFailure) => reportSignInFailure(f, ISSUER).code
    expect(code({ kind: 'discovery', cause: 'HTTP 404' })).toBe('GW_ERR_DISCOVERY_UNAVAILABLE')
    expect(code({ kind: 'exchange-unavailable', cause: 'ECONNREFUSED' })).toBe(
      'GW_ERR_IDP_UNAVAILABLE',
    )
    expect(code({ kind: 'issuer', received: undefined, expected: ISSUER })).toBe(
      'GW_ERR_IDP_SIGN_IN_FAILED',
    )
    const issuer = reportSignInFailure(
      { kind: 'issuer', received: 'https://evil.example', expected: ISSUER },
      ISSUER,
    )
    expect(issuer.description).toContain('RFC 9207')
    expect(issuer.message).toContain('https://evil.example')
  })
})

describe('idpText', () => {
  it('drops control characters (no forged log lines) and cuts at 200 characters', () => {
    expect(idpText('bad\r\nforged: line')).toBe('bad forged: line')
    expect(idpText('x'.repeat(300))).toBe(`${'x'.repeat(200)}…`)
    expect(idpText(undefined)).toBeUndefined()
  })
})
