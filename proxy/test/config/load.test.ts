import { describe, expect, it } from 'vitest'
import { substituteEnv } from '../../src/config/env.js'
import { parseConfig } from '../../src/config/load.js'
import { ConfigError } from '../../src/errors.js'

function errorOf(yaml: string, env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    parseConfig(yaml, 'test.yaml', env)
  } catch (err) {
    if (err instanceof ConfigError) return err
    throw err
  }
  throw new Error('expected a ConfigError')
}

const GW = 'gateways: { default: { port: 3000 } }\n'
const ROUTE = `backends: { b: { static: { host: 127.0.0.1, port: 8090 } } }
routes:
  r:
    allowUnauthenticated: true
    rules:
      - matches: [ { path: { type: PathPrefix, value: /mcp } } ]
        backendRefs: [ { name: b } ]
`

describe('parseConfig', () => {
  it('applies defaults: admin on localhost:15000, all interfaces for gateways, 30s response timeout', () => {
    const c = parseConfig(GW + ROUTE, 'test.yaml', {})
    expect(c.config.adminAddr).toBe('localhost:15000')
    expect(c.gateways.default?.address).toBe('0.0.0.0')
    expect(c.backends.b?.timeouts.response.ms).toBe(30_000)
    expect(c.backends.b?.timeouts.response.text).toBe('30s')
    expect(Object.isFrozen(c.gateways)).toBe(true)
  })

  it('rejects a non-integer port naming the path and the kind of value, not its text', () => {
    const e = errorOf('gateways: { default: { port: "abc" } }')
    expect(e.code).toBe('GW_ERR_CONFIG_INVALID')
    expect(e.message).toContain(
      'gateways.default.port: expected integer 1-65535, got a string of 3 characters',
    )
    expect(e.message).not.toContain('abc')
  })

  it('rejects an unknown field naming its full path', () => {
    const e = errorOf(`${GW}backends: { b: { static: { host: x, port: 1 }, timeout: {} } }`)
    expect(e.issues.map((i) => i.path)).toContain('backends.b.timeout')
    expect(e.message).toContain('unknown field')
  })

  it('rejects a bad admin address, saying which forms are accepted', () => {
    const e = errorOf(`${GW}config: { adminAddr: "15000" }`)
    expect(e.message).toContain(
      'config.adminAddr: expected "ip:port", "localhost:port", "unix:/path/to/socket" or "off"',
    )
  })

  it('takes config.redactHeaders as header names, default none, and refuses a name that is not one', () => {
    expect(parseConfig(GW, 't', {}).config.redactHeaders).toEqual([])
    expect(
      parseConfig(`${GW}config: { redactHeaders: [X-Session] }`, 't', {}).config.redactHeaders,
    ).toEqual(['X-Session'])
    const e = errorOf(`${GW}config: { redactHeaders: ["x session: 1"] }`)
    expect(e.message).toContain(
      'config.redactHeaders[0]: expected an HTTP header name (RFC 9110 §5.1), e.g. X-Session',
    )
    expect(e.message).not.toContain('x session')
  })

  it('accepts off, unix sockets and ip:port admin addresses', () => {
    for (const addr of [
      'off',
      'unix:/tmp/gh.sock',
      '127.0.0.1:15000',
      '[::1]:15000',
      'localhost:0',
    ]) {
      expect(parseConfig(`${GW}config: { adminAddr: "${addr}" }`, 't', {}).config.adminAddr).toBe(
        addr,
      )
    }
  })

  it('rejects a reference to a backend that does not exist, listing the ones that do', () => {
    const e = errorOf(
      GW + ROUTE.replace('backendRefs: [ { name: b } ]', 'backendRefs: [ { name: nope } ]'),
    )
    expect(e.message).toContain(
      'routes.r.rules[0].backendRefs[0].name: no backend named "nope" (have: b)',
    )
  })

  it('rejects a YAML syntax error as a parse error', () => {
    const e = errorOf('gateways: [')
    expect(e.code).toBe('GW_ERR_CONFIG_PARSE')
    expect(e.message).toContain('YAML')
  })

  it('rejects a bad duration', () => {
    const e = errorOf(
      `${GW}backends: { b: { static: { host: x, port: 1 }, timeouts: { response: "10 seconds" } } }`,
    )
    expect(e.message).toContain('backends.b.timeouts.response: expected a duration')
  })

  it('reports every problem at once', () => {
    const e = errorOf('gateways: { default: { port: 0, bogus: 1 } }\nconfig: { adminAddr: x }')
    expect(e.issues.length).toBeGreaterThanOrEqual(3)
  })

  it('requires the three MCP path prefixes on a route carrying an mcp policy, listing the missing ones', () => {
    const e = errorOf(`${GW + ROUTE}policies:
  p:
    targetRefs: [ { name: r } ]
    traffic:
      jwtAuthentication:
        providers:
          - issuer: https://idp.example.com/oauth2/default
            audiences: [api://default]
            jwks: { remote: { backendRef: { name: b }, jwksPath: /oauth2/default/v1/keys } }
        mcp:
          resourceMetadata: { resource: https://gw.example.com/mcp }
`)
    expect(e.message).toContain(
      'missing: /.well-known/oauth-protected-resource/mcp, /.well-known/oauth-authorization-server/mcp',
    )
  })

  it('rejects the /.well-known/jwks.json key path with the path the IdP really uses', () => {
    const e = errorOf(`${GW + ROUTE}policies:
  p:
    targetRefs: [ { name: r } ]
    traffic:
      jwtAuthentication:
        providers:
          - issuer: https://idp.example.com/oauth2/default
            audiences: [api://default]
            jwks: { remote: { backendRef: { name: b }, jwksPath: /.well-known/jwks.json } }
`)
    expect(e.message).toContain('/oauth2/<auth_server_id>/v1/keys')
  })

  it('rejects an issuer with a trailing slash', () => {
    const e = errorOf(`${GW + ROUTE}policies:
  p:
    targetRefs: [ { name: r } ]
    traffic:
      jwtAuthentication:
        providers:
          - issuer: https://idp.example.com/oauth2/default/
            audiences: [api://default]
            jwks: { inline: { keys: [] } }
`)
    expect(e.message).toContain('no trailing slash')
  })
})

describe('substituteEnv', () => {
  it('replaces variables, applies defaults and keeps $${ literal', () => {
    const r = substituteEnv('a: ${A}\nb: ${B:-two}\nc: $${C}', { A: 'one' })
    expect(r.text).toBe('a: one\nb: two\nc: ${C}')
    expect(r.issues).toEqual([])
  })

  it('names an unset variable without default, and the field that references it', () => {
    const e = errorOf('gateways:\n  default:\n    port: ${PORT}\n')
    expect(e.message).toContain('gateways.default.port: environment variable PORT is not set')
  })
})

describe('${ENV} substitution in parsed scalars (docs/reliability.md)', () => {
  const injecting = `${GW}backends:\n  b:\n    static:\n      port: 8090\n      host: \${HOST}\n`

  it('keeps a value with a newline inside its field: it cannot add adminAddr', () => {
    const HOST = 'mcp.internal\nconfig:\n  adminAddr: 0.0.0.0:15000'
    const config = parseConfig(injecting, 'test.yaml', { HOST })
    expect(config.config.adminAddr).toBe('localhost:15000')
    expect(config.backends.b?.static.host).toBe(HOST)
  })

  it('ignores ${…} in comments: an unset variable there is not required', () => {
    const config = parseConfig(`# export \${UNSET_IN_COMMENT} first\n${GW}`, 'test.yaml', {})
    expect(config.gateways.default?.port).toBe(3000)
  })

  it('gives a plain scalar the type YAML reads from its value, and keeps a quoted one a string', () => {
    const plain = parseConfig('gateways:\n  default:\n    port: ${PORT}\n', 'test.yaml', {
      PORT: '3001',
    })
    expect(plain.gateways.default?.port).toBe(3001)
    const quoted = errorOf('gateways:\n  default:\n    port: "${PORT}"\n', { PORT: '3001' })
    expect(quoted.message).toContain('gateways.default.port: expected integer 1-65535, got "3001"')
  })

  it('substitutes inside a longer value and keeps $${ literal', () => {
    const config = parseConfig(
      `${GW}backends: { b: { static: { port: 1, host: "\${HOST:-127.0.0}.$\${x}" } } }`,
      'test.yaml',
      {},
    )
    expect(config.backends.b?.static.host).toBe('127.0.0.${x}')
  })
})

describe('bounds (docs/reliability.md)', () => {
  it('rejects a log level start would reject', () => {
    expect(errorOf(`config: { logLevel: verbose }\n${GW}`).message).toMatch(
      /config\.logLevel: "verbose" is neither a level/,
    )
  })

  it('rejects an admin port out of range and accepts port 0', () => {
    expect(errorOf(`config: { adminAddr: "127.0.0.1:99999" }\n${GW}`).message).toContain(
      'config.adminAddr: port 99999 is out of range: expected 0-65535',
    )
    expect(parseConfig(`config: { adminAddr: "127.0.0.1:0" }\n${GW}`).config.adminAddr).toBe(
      '127.0.0.1:0',
    )
  })

  it("rejects an adminAddr on a gateway's port and address (start would fail with EADDRINUSE)", () => {
    const overlapping: Array<[string, string]> = [
      ['127.0.0.1:3000', '{ port: 3000, address: 127.0.0.1 }'],
      ['localhost:3000', '{ port: 3000, address: 127.0.0.1 }'],
      ['127.0.0.1:3000', '{ port: 3000 }'], // the gateway binds every interface
      ['[::1]:3000', '{ port: 3000, address: "::" }'],
      ['0.0.0.0:3000', '{ port: 3000, address: 10.0.0.5 }'],
    ]
    for (const [admin, gw] of overlapping) {
      const err = errorOf(`config: { adminAddr: "${admin}" }\ngateways: { default: ${gw} }\n`)
      expect(err.message, admin).toContain(
        `config.adminAddr: "${admin}" is also where gateway "default" listens`,
      )
      expect(err.message).toContain('give the admin interface a port of its own')
    }
    for (const [admin, gw] of [
      ['127.0.0.1:15000', '{ port: 3000 }'],
      ['127.0.0.1:3000', '{ port: 3000, address: 10.0.0.5 }'],
      ['127.0.0.1:0', '{ port: 3000 }'],
      ['unix:/tmp/admin.sock', '{ port: 3000 }'],
    ]) {
      expect(
        parseConfig(`config: { adminAddr: "${admin}" }\ngateways: { default: ${gw} }\n`).config
          .adminAddr,
      ).toBe(admin)
    }
  })

  it('rejects a drain timeout that would overflow the timer and disable draining', () => {
    expect(errorOf(`config: { drainTimeout: 99999999h }\n${GW}`).message).toContain(
      'config.drainTimeout: expected a duration from 0s to 1h, got "99999999h"',
    )
  })

  it('rejects 0s upstream timeouts and accepts 0s where zero is documented', () => {
    const zero = errorOf(
      `${GW}backends: { b: { static: { host: h, port: 1 }, timeouts: { connect: 0s, response: 0ms } } }`,
    )
    expect(zero.message).toContain(
      'backends.b.timeouts.connect: expected a duration from 100ms to 5m',
    )
    expect(zero.message).toContain(
      'backends.b.timeouts.response: expected a duration from 100ms to 1h',
    )
    expect(parseConfig(`config: { drainTimeout: 0s }\n${GW}`).config.drainTimeout.ms).toBe(0)
  })

  it('rejects a gateway address start could never bind', () => {
    for (const address of ['999.1.1.1:80', '127.0.0.1:3000', 'http://0.0.0.0'])
      expect(
        errorOf(`gateways: { default: { port: 3000, address: "${address}" } }`).message,
        address,
      ).toContain('gateways.default.address: expected an IP address')
    expect(
      parseConfig(`gateways: { default: { port: 3000, address: "::" } }`).gateways.default?.address,
    ).toBe('::')
  })

  it('names the DNS-label rule for a bad gateway name', () => {
    expect(errorOf('gateways: { Default_GW: { port: 3000 } }').message).toContain(
      'gateways.Default_GW: expected an RFC 1123 DNS label',
    )
  })
})

describe('durations (docs/design/layering.md)', () => {
  const policy = (skew: string, cache: string) => `${GW + ROUTE}policies:
  p:
    targetRefs: [ { name: r } ]
    traffic:
      jwtAuthentication:
        providers:
          - issuer: https://idp.example.com
            audiences: [ api ]
            clockSkew: ${skew}
            jwks: { remote: { backendRef: { name: b }, jwksPath: /keys, cacheDuration: ${cache} } }
`

  it('parses every duration field into milliseconds, defaults included, keeping the text', () => {
    const c = parseConfig(
      `config: { drainTimeout: 1m30s }\n${GW + ROUTE}`.replace(
        'static: { host: 127.0.0.1, port: 8090 } }',
        'static: { host: 127.0.0.1, port: 8090 }, timeouts: { connect: 250ms } }',
      ),
      'test.yaml',
      {},
    )
    expect(c.config.drainTimeout).toMatchObject({ ms: 90_000, text: '1m30s' })
    expect(c.backends.b?.timeouts.connect).toMatchObject({ ms: 250, text: '250ms' })
    expect(c.backends.b?.timeouts.response).toMatchObject({ ms: 30_000, text: '30s' })
    expect(c.gateways.default?.limits.headersTimeout).toMatchObject({ ms: 60_000, text: '60s' })
    expect(c.gateways.default?.limits.requestTimeout).toMatchObject({ ms: 300_000, text: '300s' })
    const p = parseConfig(policy('1.5s', '10m'), 'test.yaml', {}).policies.p
    const provider = p?.traffic.jwtAuthentication?.providers[0]
    expect(provider?.clockSkew).toMatchObject({ ms: 1500, text: '1.5s' })
    expect(provider?.jwks?.remote?.cacheDuration).toMatchObject({ ms: 600_000, text: '10m' })
  })

  it('dumps as the text written, so JSON output reads like the file', () => {
    const c = parseConfig(`config: { drainTimeout: 1m30s }\n${GW + ROUTE}`, 'test.yaml', {})
    const json = JSON.parse(JSON.stringify(c))
    expect(json.config.drainTimeout).toBe('1m30s')
    expect(json.backends.b.timeouts).toEqual({ connect: '5s', response: '30s' })
  })

  it('checks the bounds of each field, naming it, and reports every problem at once', () => {
    const e = errorOf(policy('11m', '5s'))
    expect(e.message).toContain(
      'providers[0].clockSkew: expected a duration from 0s to 10m, got "11m"',
    )
    expect(e.message).toContain(
      'providers[0].jwks.remote.cacheDuration: expected a duration from 10s to 24h, got "5s"',
    )
    expect(errorOf(policy('1 minute', '5m')).message).toContain(
      'providers[0].clockSkew: expected a duration such as "500ms"',
    )
  })

  it('compares durations by their milliseconds (headersTimeout at most requestTimeout)', () => {
    const limits = (h: string, r: string) =>
      `gateways: { default: { port: 8080, limits: { headersTimeout: ${h}, requestTimeout: ${r} } } }\n`
    expect(errorOf(limits('2m', '90s')).message).toContain(
      'headersTimeout (2m) must not exceed requestTimeout (90s)',
    )
    expect(
      parseConfig(limits('90s', '2m'), 'test.yaml', {}).gateways.default?.limits,
    ).toMatchObject({ headersTimeout: { ms: 90_000 }, requestTimeout: { ms: 120_000 } })
  })
})
