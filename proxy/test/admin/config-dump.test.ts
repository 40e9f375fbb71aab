import { readFileSync } from 'node:fs'
import { REDACTED } from '@gatehouse/redact'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import { buildConfigDump } from '../../src/admin/config-dump.js'
import { ConfigDumpSchema } from '../../src/admin/config-dump-schema.js'
import { compileAuthPolicy } from '../../src/auth/policy.js'
import type { PolicyStatus } from '../../src/auth/types.js'
import type { PolicyConfig } from '../../src/config/schema.js'
import { fakeContext, fakePolicy, PROGRAMMED, SECRETS } from './context.js'

const SCHEMA_FILE = new URL('../../src/admin/config-dump.schema.json', import.meta.url)

describe('config dump', () => {
  it('contains none of the secrets of a config that has them', () => {
    const text = JSON.stringify(
      buildConfigDump(
        fakeContext({ policies: new Map([['object', fakePolicy('object', PROGRAMMED)]]) }),
      ),
    )
    for (const secret of [...Object.values(SECRETS), 'cs-value']) expect(text).not.toContain(secret)
    expect(text).toContain(REDACTED)
    expect(text).toContain('public-modulus')
  })

  it('is built from a config that holds every secret (the check above can fail)', () => {
    const text = JSON.stringify(fakeContext().config())
    for (const secret of Object.values(SECRETS)) expect(text).toContain(secret)
  })

  it("reports each policy's status with Accepted, Attached and Programmed conditions", () => {
    const unavailable: PolicyStatus = {
      accepted: true,
      programmed: false,
      reason: 'JwksUnavailable',
      message: 'GET https://idp.example/keys: connection refused',
    }
    const dump = buildConfigDump(
      fakeContext({
        policies: new Map([
          ['object', fakePolicy('object', PROGRAMMED)],
          ['string', fakePolicy('string', unavailable)],
        ]),
      }),
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
    const dump = buildConfigDump(fakeContext())
    expect(dump.policies[0]?.status).toMatchObject({ programmed: false, reason: 'NotCompiled' })
  })

  it('shows durations as written, not as parsed objects (docs/design/layering.md)', () => {
    const dump = buildConfigDump(fakeContext())
    expect(dump.config.drainTimeout).toBe('10s')
    expect(dump.backends[0]?.timeouts).toEqual({ connect: '5s', response: '30s' })
    const traffic = dump.policies[0]?.traffic as {
      jwtAuthentication: { providers: Array<{ clockSkew: unknown }> }
    }
    expect(traffic.jwtAuthentication.providers[0]?.clockSkew).toBe('60s')
  })

  it("shows a compiled policy's durations as written in its runtime part", () => {
    const context = fakeContext()
    const config = context.config()
    const policy = compileAuthPolicy('object', config.policies.object as PolicyConfig, {
      config,
      upstreams: new Map(),
      logging: context.logging,
      tasks: context.tasks,
    })
    const dump = buildConfigDump({ ...context, policies: () => new Map([['object', policy]]) })
    const runtime = dump.policies[0]?.runtime as { providers: Array<{ clockSkew: unknown }> }
    expect(runtime.providers[0]?.clockSkew).toBe('60s')
  })

  it('validates against the committed JSON Schema', () => {
    const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'))
    const validate = new Ajv2020({ strict: false }).compile(schema)
    const dump = JSON.parse(
      JSON.stringify(
        buildConfigDump(
          fakeContext({ policies: new Map([['object', fakePolicy('object', PROGRAMMED)]]) }),
        ),
      ),
    )
    expect(validate(dump), JSON.stringify(validate.errors)).toBe(true)
    expect(ConfigDumpSchema.safeParse(dump).success).toBe(true)
    expect(validate({ ...dump, binds: 'x' })).toBe(false)
  })
})
