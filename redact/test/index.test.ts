import { describe, expect, it } from 'vitest'
import {
  isSecretHeader,
  REDACTED,
  redactAuthorization,
  redactExpression,
  redactHeaders,
  redactText,
  redactUrl,
  redactValue,
} from '../src/index.js'

const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl'

describe('redactAuthorization', () => {
  it('keeps only a registered scheme followed by a space', () => {
    expect(redactAuthorization(`Bearer ${JWT}`)).toBe('Bearer [redacted]')
    expect(redactAuthorization('basic dXNlcjpwYXNz')).toBe('basic [redacted]')
    expect(redactAuthorization('DPoP abc')).toBe('DPoP [redacted]')
  })

  it('redacts the whole value of a token sent without a scheme', () => {
    expect(redactAuthorization(JWT)).toBe(REDACTED)
    expect(redactAuthorization('opaque-api-token-123')).toBe(REDACTED)
  })

  it('redacts the whole value when the scheme is not followed by a space (tab, comma)', () => {
    expect(redactAuthorization(`Bearer\t${JWT}`)).toBe(REDACTED)
    expect(redactAuthorization(`Bearer,${JWT}`)).toBe(REDACTED)
    expect(redactAuthorization('Bearer,opaque-token-without-dots')).toBe(REDACTED)
    expect(redactAuthorization('Token opaque')).toBe(REDACTED)
  })
})

describe('redactHeaders', () => {
  it('redacts authorization (every shape), cookies and credential headers, and keeps the rest', () => {
    expect(
      redactHeaders({
        authorization: `Bearer\t${JWT}`,
        'proxy-authorization': 'Basic dXNlcjpwYXNz',
        cookie: 'sid=1',
        'set-cookie': ['a=1', 'b=2'],
        'X-Api-Key': 'k-live-123',
        'x-auth-token': 'abc',
        'x-amz-security-token': 'abc',
        'ocp-apim-subscription-key': 'abc',
        'x-client-secret': 'abc',
        'www-authenticate': 'Bearer resource_metadata="https://gw.example/.well-known/x"',
        'mcp-session-id': 'session-1',
        accept: 'application/json',
        'x-forwarded-for': undefined,
      }),
    ).toEqual({
      authorization: REDACTED,
      'proxy-authorization': 'Basic [redacted]',
      cookie: REDACTED,
      'set-cookie': [REDACTED, REDACTED],
      'X-Api-Key': REDACTED,
      'x-auth-token': REDACTED,
      'x-amz-security-token': REDACTED,
      'ocp-apim-subscription-key': REDACTED,
      'x-client-secret': REDACTED,
      'www-authenticate': 'Bearer resource_metadata="https://gw.example/.well-known/x"',
      'mcp-session-id': 'session-1',
      accept: 'application/json',
    })
  })

  it('reads a Headers instance and redacts a JWT in any other header', () => {
    const h = new Headers({ authorization: JWT, 'x-forwarded-user': `u ${JWT}` })
    expect(redactHeaders(h)).toEqual({
      authorization: REDACTED,
      'x-forwarded-user': 'u [redacted]',
    })
  })

  it('names credential headers by shape', () => {
    for (const name of [
      'X-API-KEY',
      'api_key',
      'x-goog-api-key',
      'x-hub-signature',
      'x-csrf-token',
    ])
      expect(isSecretHeader(name), name).toBe(true)
    for (const name of ['accept', 'host', 'origin', 'mcp-protocol-version', 'www-authenticate'])
      expect(isSecretHeader(name), name).toBe(false)
  })
})

describe('redactText', () => {
  it('replaces a JWT anywhere in a string', () => {
    expect(redactText(`got ${JWT} from the client`)).toBe('got [redacted] from the client')
    expect(redactText(`x${JWT}y`)).not.toContain('c2lnbmF0dXJl')
  })

  it('replaces bearer credentials however they are separated', () => {
    expect(redactText('Authorization: Bearer,opaque-token-0123456789')).toBe(
      'Authorization: Bearer [redacted]',
    )
    expect(redactText('Bearer\topaque-token-0123456789 sent')).toBe('Bearer [redacted] sent')
    expect(redactText('Bearer abc.def')).toBe('Bearer [redacted]')
  })

  it('leaves challenges and prose alone', () => {
    const challenge = 'Bearer resource_metadata="https://gw/.well-known/x", error="invalid_token"'
    expect(redactText(challenge)).toBe(challenge)
    expect(redactText('a bearer token is required')).toBe('a bearer token is required')
  })

  it('redacts secret members of query strings, form bodies and JSON text', () => {
    expect(redactUrl('https://gw/cb?code=abc123&state=s1')).toBe(
      'https://gw/cb?code=[redacted]&state=s1',
    )
    expect(redactUrl('http://gw/mcp?access_token=opaque')).toBe(
      'http://gw/mcp?access_token=[redacted]',
    )
    expect(
      redactText('grant_type=refresh_token&refresh_token=r1&client_id=c&client_secret=s'),
    ).toBe('grant_type=refresh_token&refresh_token=[redacted]&client_id=c&client_secret=[redacted]')
    expect(redactText('{"access_token":"opaque","token_type":"Bearer","expires_in":300')).toBe(
      '{"access_token":"[redacted]","token_type":"Bearer","expires_in":300',
    )
  })

  it('redacts a PEM private key', () => {
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----'
    expect(redactText(`key: ${pem}\n`)).toBe('key: [redacted]\n')
  })
})

describe('headers an operator declares as credentials', () => {
  const options = { secretHeaders: new Set(['x-session']) }

  it('redacts a declared header whole in any case, in header objects and nested values', () => {
    expect(isSecretHeader('X-Session', options)).toBe(true)
    expect(redactHeaders({ 'X-Session': 'secret-value', 'x-tenant': 'acme' }, options)).toEqual({
      'X-Session': REDACTED,
      'x-tenant': 'acme',
    })
    expect(
      JSON.stringify(redactValue({ data: { headers: { 'x-session': 'secret-value' } } }, options)),
    ).not.toContain('secret-value')
  })

  it('shows the same header when nobody declared it (its name is not credential-like)', () => {
    expect(isSecretHeader('x-session')).toBe(false)
    expect(redactHeaders({ 'x-session': 'secret-value' })).toEqual({ 'x-session': 'secret-value' })
  })
})

describe('redactValue', () => {
  it('redacts credential fields, header objects, PEM private keys, bearer strings and JWTs', () => {
    const out = redactValue({
      headers: { Authorization: 'Basic abc', cookie: 'sid=1', accept: 'application/json' },
      requestHeaders: { 'x-api-key': 'k' },
      client_secret: 'cs',
      apiToken: 'at',
      tls: { key: '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----' },
      note: 'Bearer abc.def',
      token: 7,
      nested: [{ refresh_token: 'r' }],
      jwt: JWT,
      kid: 'keep-me',
      code: 'GW_ERR_UPSTREAM',
    })
    expect(out).toEqual({
      headers: { Authorization: 'Basic [redacted]', cookie: REDACTED, accept: 'application/json' },
      requestHeaders: { 'x-api-key': REDACTED },
      client_secret: REDACTED,
      apiToken: REDACTED,
      tls: { key: REDACTED },
      note: 'Bearer [redacted]',
      token: REDACTED,
      nested: [{ refresh_token: REDACTED }],
      jwt: REDACTED,
      kid: 'keep-me',
      code: 'GW_ERR_UPSTREAM',
    })
  })

  it('redacts the private members of a JWK, given as an object or as a JSON string', () => {
    const jwk = { kty: 'RSA', n: 'public-modulus', e: 'AQAB', d: 'private', p: 'p', q: 'q' }
    expect(redactValue({ keys: [jwk] })).toEqual({
      keys: [{ kty: 'RSA', n: 'public-modulus', e: 'AQAB', d: REDACTED, p: REDACTED, q: REDACTED }],
    })
    const inline = redactValue({ inline: JSON.stringify({ keys: [jwk] }) }) as { inline: string }
    expect(inline.inline).toContain('public-modulus')
    expect(inline.inline).not.toContain('"private"')
  })

  it('leaves fields named like JWK members alone outside a JWK', () => {
    expect(redactValue({ d: 1, k: 'v', p: 'x' })).toEqual({ d: 1, k: 'v', p: 'x' })
  })

  it('turns an Error into its redacted message', () => {
    expect(redactValue(new Error(`bad token ${JWT}`))).toMatchObject({
      type: 'Error',
      message: 'bad token [redacted]',
    })
  })
})

describe('redactExpression', () => {
  it('redacts string literals of a CEL expression and keeps the rest', () => {
    expect(redactExpression('"Bearer sk-live-123"')).toBe('"[redacted]"')
    expect(redactExpression("'k-' + jwt.sub")).toBe('"[redacted]" + jwt.sub')
    expect(redactExpression('r"raw-secret"')).toBe('"[redacted]"')
    expect(redactExpression('"""multi\nline"""')).toBe('"[redacted]"')
    expect(redactExpression('jwt.sub')).toBe('jwt.sub')
    expect(redactExpression('jwt.email + ""')).toBe('jwt.email + ""')
  })
})

/** A compact JWS whose header JSON is written with `header` (whitespace included). */
function jws(header: string): string {
  const b64 = (s: string) => Buffer.from(s).toString('base64url')
  return `${b64(header)}.${b64('{"sub":"alice"}')}.c2lnbmF0dXJl`
}

// docs/design/hardening.md: a header with JSON whitespace starts `eyAi`, `ewog`, `ewkg`… and was missed.
describe('redaction of JWTs whose header JSON has whitespace', () => {
  const spaced = [
    jws('{ "alg": "RS256" }'),
    jws('{\n  "alg": "RS256"\n}'),
    jws('{\t"alg":"RS256"}'),
    jws('{\r\n"alg":"none"}'),
    jws('{  "typ":"JWT"}'),
  ]

  it('starts differently from eyJ', () => {
    expect(spaced.map((t) => t.slice(0, 4))).toEqual(['eyAi', 'ewog', 'ewki', 'ew0K', 'eyAg'])
  })

  it('replaces them in free text, paths, tool names and non-credential headers', () => {
    for (const token of spaced) {
      expect(redactText(`got ${token} from the client`)).toBe('got [redacted] from the client')
      expect(redactUrl(`/mcp/${token}/x?y=1`)).toBe('/mcp/[redacted]/x?y=1')
      expect(redactValue({ tool: token, params: { name: `call-${token}` } })).toEqual({
        tool: REDACTED,
        params: { name: `call-${REDACTED}` },
      })
      expect(redactHeaders({ 'mcp-name': token, 'x-request-id': `id ${token}` })).toEqual({
        'mcp-name': REDACTED,
        'x-request-id': `id ${REDACTED}`,
      })
    }
  })

  it('keeps words that only start like a header (key.example.com, they.were.here)', () => {
    for (const text of ['key.example.com', 'they.were.here', 'survey.eyed.out', 'eyes.ahead.now']) {
      expect(redactText(text)).toBe(text)
    }
  })

  it('replaces a JWE (five parts) and an unsecured JWT with an empty signature', () => {
    const header = Buffer.from('{"alg":"none"}').toString('base64url')
    expect(redactText(`a ${header}.eyJzdWIiOiJhIn0. b`)).toBe('a [redacted] b')
    expect(redactText(`${JWT}.ZW5j.aXY`)).toBe(REDACTED)
  })
})

describe('the cost of redaction', () => {
  // docs/design/hardening.md: `/eyJ[\w-]*(?:\.[\w-]*){2,4}/` backtracked quadratically; a 4 MiB tool name
  // of `eyJ` repeated froze the process for minutes. These finish at once now.
  it('redacts 4 MiB of "eyJ" repeated, dotted or not, keeping a bounded excerpt', () => {
    for (const huge of [
      'eyJ'.repeat(1_400_000),
      'eyJ.'.repeat(1_000_000),
      `${'eyJ'.repeat(1_400_000)}.a.b`,
    ]) {
      const out = redactText(huge)
      expect(out.length).toBeLessThan(70_000)
      expect(out).toMatch(/\[truncated: \d+ more characters\]$/)
    }
    // Below the cut, where the regex took seconds: 60 KB of `eyJ`, with and without dots.
    expect(redactText(`${'eyJ'.repeat(20_000)}.a.b`)).toBe(REDACTED)
    expect(redactText(`/mcp/${'eyJ'.repeat(20_000)}`)).toBe(`/mcp/${'eyJ'.repeat(20_000)}`)
  })

  it('truncates a long string without leaving the start of a credential it cut', () => {
    const text = `${'x '.repeat(32_760)}${JWT}${'y'.repeat(100_000)}`
    const out = redactText(text)
    expect(out).not.toContain('eyJ')
    expect(out.endsWith(`x [truncated: ${text.length - 65_520} more characters]`)).toBe(true)
  })

  it('bounds the work on one value: past a budget, strings are truncated whole', () => {
    const many = Array.from({ length: 100 }, (_, i) => `${i}:${'a'.repeat(60_000)}`)
    const out = redactValue({ many }) as { many: string[] }
    expect(out.many[0]).toBe(many[0])
    expect(out.many[99]).toMatch(/^\[truncated: 60003 characters\]$/)
  })

  it('stops at a nesting depth instead of overflowing the stack', () => {
    let deep: unknown = 'leaf'
    for (let i = 0; i < 10_000; i++) deep = [deep]
    const out = JSON.stringify(redactValue({ deep }))
    expect(out).toContain('[truncated: nesting')
    expect(out.length).toBeLessThan(1000)
  })
})
