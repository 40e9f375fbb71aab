import { readFileSync } from 'node:fs'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import { buildConfigDump, ConfigDump, configDumpJsonSchema } from '../../src/admin/config-dump.js'
import type { AdminContext } from '../../src/admin/context.js'
import { REDACTED, redactSecrets } from '../../src/admin/redact.js'
import type { AuthPolicy, PolicyStatus } from '../../src/auth/types.js'
import { NO_FAULTS } from '../../src/faults.js'
import { parseConfig } from '../../src/index.js'
import { createLogging } from '../../src/telemetry/logging.js'
import { TaskRegistry } from '../../src/telemetry/tasks.js'
import { TraceBus } from '../../src/telemetry/trace-bus.js'

const SCHEMA_FILE = new URL('../../src/admin/config-dump.schema.json', import.meta.url)

/** Private parts of an RSA and an oct JWK, and a token-looking string: none may leak. */
const SECRETS = {
  d: 'PRIVATE-D-rsa-exponent-value',
  p: 'PRIVATE-P-first-prime',
  q: 'PRIVATE-Q-second-prime',
  dp: 'PRIVATE-DP-value',
  dq: 'PRIVATE-DQ-value',
  qi: 'PRIVATE-QI-value',
  k: 'PRIVATE-K-symmetric-key',
  stringD: 'PRIVATE-D-inside-a-json-string',
}

function configWithSecrets() {
  const rsa = {
    kty: 'RSA',
    kid: 'k1',
    n: 'public-modulus',
    e: 'AQAB',
    d: SECRETS.d,
    p: SECRETS.p,
    q: SECRETS.q,
    dp: SECRETS.dp,
    dq: SECRETS.dq,
    qi: SECRETS.qi,
  }
  const provider = (jwks: unknown) => ({
    issuer: 'https://idp.example/oauth2/default',
    audiences: ['api://default'],
    jwks: { inline: jwks },
  })
  return parseConfig(
    stringify({
      config: { adminAddr: '127.0.0.1:0' },
      gateways: { default: { port: 3000, address: '127.0.0.1' } },
      backends: { backend: { static: { host: '127.0.0.1', port: 9 } } },
      routes: {
        main: {
          rules: [{ matches: [{ path: { value: '/mcp' } }], backendRefs: [{ name: 'backend' }] }],
        },
      },
      policies: {
        object: {
          targetRefs: [{ name: 'main' }],
          traffic: {
            jwtAuthentication: {
              providers: [provider({ keys: [rsa, { kty: 'oct', kid: 'h', k: SECRETS.k }] })],
            },
          },
        },
        string: {
          targetRefs: [{ name: 'main' }],
          traffic: {
            jwtAuthentication: {
              providers: [
                provider(
                  JSON.stringify({
                    keys: [{ kty: 'EC', crv: 'P-256', x: 'X', y: 'Y', d: SECRETS.stringD }],
                  }),
                ),
              ],
            },
          },
        },
      },
    }),
    'secrets.yaml',
  )
}

function fakePolicy(name: string, status: PolicyStatus): AuthPolicy {
  return {
    name,
    status: () => status,
    dump: () => ({ keys: [{ kid: 'k1', kty: 'RSA', d: SECRETS.d }], clientSecret: 'cs-value' }),
    serveOAuth: async () => undefined,
    authenticate: async () => ({ ok: true }),
    start: async () => undefined,
    stop: () => undefined,
  }
}

function context(policies: Map<string, AuthPolicy> = new Map()): AdminContext {
  return {
    config: () => configWithSecrets(),
    policies: () => policies,
    gateways: () => [
      {
        name: 'default',
        address: '127.0.0.1',
        port: 3000,
        url: 'http://127.0.0.1:3000',
        routes: ['main'],
      },
    ],
    traceBus: new TraceBus(),
    logging: createLogging({ filter: 'warn' }),
    tasks: new TaskRegistry(),
    faults: NO_FAULTS,
    startedAt: new Date(),
    version: '0.1.0',
    shutdown: async () => undefined,
  }
}

const PROGRAMMED: PolicyStatus = {
  accepted: true,
  attached: true,
  programmed: true,
  reason: 'Programmed',
  message: 'keys loaded',
}

describe('config dump', () => {
  it('contains none of the secrets of a config that has them', () => {
    const text = JSON.stringify(
      buildConfigDump(context(new Map([['object', fakePolicy('object', PROGRAMMED)]]))),
    )
    for (const secret of [...Object.values(SECRETS), 'cs-value']) expect(text).not.toContain(secret)
    expect(text).toContain(REDACTED)
    expect(text).toContain('public-modulus')
  })

  it('shows every secret when redaction is skipped (the check above can fail)', () => {
    const text = JSON.stringify(buildConfigDump(context(), { redact: false }))
    for (const secret of Object.values(SECRETS)) expect(text).toContain(secret)
  })

  it("reports each policy's status with Accepted, Attached and Programmed conditions", () => {
    const unavailable: PolicyStatus = {
      accepted: true,
      attached: true,
      programmed: false,
      reason: 'JwksUnavailable',
      message: 'GET https://idp.example/keys: connection refused',
    }
    const dump = buildConfigDump(
      context(
        new Map([
          ['object', fakePolicy('object', PROGRAMMED)],
          ['string', fakePolicy('string', unavailable)],
        ]),
      ),
    )
    const [ok, down] = dump.policies
    expect(ok?.status).toMatchObject({ programmed: true, reason: 'Programmed' })
    expect(ok?.status.conditions.map((c) => [c.type, c.status])).toEqual([
      ['Accepted', 'True'],
      ['Attached', 'True'],
      ['Programmed', 'True'],
    ])
    expect(down?.status).toMatchObject({ programmed: false, reason: 'JwksUnavailable' })
    expect(down?.status.conditions.find((c) => c.type === 'Programmed')).toEqual({
      type: 'Programmed',
      status: 'False',
      reason: 'JwksUnavailable',
      message: unavailable.message,
    })
  })

  it('marks a configured policy the proxy did not compile as not accepted', () => {
    const dump = buildConfigDump(context())
    expect(dump.policies[0]?.status).toMatchObject({ programmed: false, reason: 'NotCompiled' })
  })

  it('validates against the committed JSON Schema', () => {
    const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'))
    const validate = new Ajv2020({ strict: false }).compile(schema)
    const dump = JSON.parse(
      JSON.stringify(
        buildConfigDump(context(new Map([['object', fakePolicy('object', PROGRAMMED)]]))),
      ),
    )
    expect(validate(dump), JSON.stringify(validate.errors)).toBe(true)
    expect(ConfigDump.safeParse(dump).success).toBe(true)
    expect(validate({ ...dump, binds: 'x' })).toBe(false)
  })

  it('matches the committed config-dump.schema.json (run `npx tsx proxy/src/admin/write-dump-schema.ts`)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(
      `${JSON.stringify(configDumpJsonSchema(), null, 2)}\n`,
    )
  })
})

describe('redactSecrets', () => {
  it('redacts credential fields, header values, PEM private keys, bearer strings and JWTs', () => {
    const out = redactSecrets({
      headers: { Authorization: 'Basic abc', cookie: 'sid=1', accept: 'application/json' },
      client_secret: 'cs',
      apiToken: 'at',
      tls: { key: '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----' },
      note: 'Bearer abc.def',
      token: 'x',
      jwt: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln',
      kid: 'keep-me',
    })
    expect(out).toEqual({
      headers: { Authorization: REDACTED, cookie: REDACTED, accept: 'application/json' },
      client_secret: REDACTED,
      apiToken: REDACTED,
      tls: { key: REDACTED },
      note: REDACTED,
      token: REDACTED,
      jwt: REDACTED,
      kid: 'keep-me',
    })
  })

  it('leaves fields named like JWK members alone outside a JWK', () => {
    expect(redactSecrets({ d: 1, k: 'v', p: 'x' })).toEqual({ d: 1, k: 'v', p: 'x' })
  })
})
