/**
 * `--target` unattended (conformance/src/target.ts): the printed configuration is what the checks
 * assume, and `--target-command` starts a target — a resource server built on the official SDK,
 * or gatehouse from the printed YAML — judges it and ends it, with no terminal and no manual step.
 */
import { join } from 'node:path'
import { freePort, runProcess } from '@gatehouse/support'
import { fastCommand, scriptBundle } from '@gatehouse/support/script-bundle'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Fixtures, ROOT, startFixtures } from '../src/stack.js'
import { targetEnv, targetGatehouseConfig, targetSetupText } from '../src/target.js'

const BIN = join(ROOT, 'conformance/bin/conformance.ts')
const TSX = join(ROOT, 'node_modules/.bin/tsx')
// The bin and the SDK server start from bundles of their sources (support/src/script-bundle.ts).
const SDK_RS = await fastCommand(
  `${TSX} ${join(ROOT, 'conformance/test/target/sdk-resource-server.ts')}`,
  ROOT,
)
const BUNDLE = await scriptBundle(BIN)

/** Runs the bin to its end, stdin a closed pipe (as in CI). */
function conformance(args: string[]) {
  return runProcess('node', [BUNDLE, ...args], { cwd: ROOT })
}

let fixtures: Fixtures
beforeAll(async () => {
  fixtures = await startFixtures()
})
afterAll(async () => {
  await fixtures.stop()
})

describe('targetGatehouseConfig', () => {
  it('names the resource, ports and admin address the checks use, and nothing they do not', () => {
    const config = targetGatehouseConfig(fixtures, {
      target: 'http://127.0.0.1:8080',
      configuredBase: 'https://mcp.example.com',
    }) as Record<string, Record<string, unknown>>
    const text = JSON.stringify(config)
    expect(text).toContain('"resource":"https://mcp.example.com/mcp"')
    expect(text).not.toContain('gateway.example')
    expect(config.config?.adminAddr).toBe('off')
    expect(Object.keys(config.gateways ?? {})).toEqual(['default'])
    expect(config.gateways?.default).toMatchObject({ port: 8080 })
    expect(Object.keys(config.routes ?? {})).toEqual(['mcp'])
  })

  it('adds the admin address and the extra gateways the options name', () => {
    const config = targetGatehouseConfig(fixtures, {
      target: 'http://127.0.0.1:8080',
      configuredBase: 'http://127.0.0.1:8080',
      admin: 'http://127.0.0.1:15001',
      scopedTarget: 'http://127.0.0.1:8082',
      brokenPath: '/bad',
    }) as Record<string, Record<string, unknown>>
    expect(config.config?.adminAddr).toBe('127.0.0.1:15001')
    expect(Object.keys(config.gateways ?? {}).sort()).toEqual(['default', 'scoped'])
    expect(JSON.stringify(config)).toContain('"resource":"http://127.0.0.1:8082/mcp"')
    expect(JSON.stringify(config.routes?.broken)).toContain('"value":"/bad"')
  })

  it('with an opaque target: the opaque route on its port, and its introspection settings in the environment', () => {
    const o = {
      target: 'http://127.0.0.1:8080',
      configuredBase: 'http://127.0.0.1:8080',
      opaqueTarget: 'http://127.0.0.1:8095',
    }
    const config = targetGatehouseConfig(fixtures, o) as Record<string, Record<string, unknown>>
    expect(config.gateways?.opaque).toMatchObject({ port: 8095 })
    expect(Object.keys(config.policies ?? {})).toContain('mcp-auth-opaque')
    expect(targetEnv(fixtures, o, 'f.yaml')).toMatchObject({
      GATEHOUSE_CONFORMANCE_INTROSPECTION_URL: `${fixtures.idp.issuerFor('opaque')}/v1/introspect`,
      GATEHOUSE_CONFORMANCE_INTROSPECTION_CLIENT_ID: fixtures.idp.serviceClient.clientId,
    })
    const plain = targetGatehouseConfig(fixtures, { ...o, opaqueTarget: undefined })
    expect(Object.keys((plain as { gateways: object }).gateways)).not.toContain('opaque')
  })

  it('gives a target command the IdP, audience and resource in its environment', () => {
    const env = targetEnv(
      fixtures,
      { target: 'http://127.0.0.1:8080', configuredBase: 'http://127.0.0.1:8080' },
      '/tmp/x.yaml',
    )
    expect(env.GATEHOUSE_CONFORMANCE_ISSUER).toBe(fixtures.idp.issuer)
    expect(env.GATEHOUSE_CONFORMANCE_AUDIENCE).toBe(fixtures.idp.audience)
    expect(env.GATEHOUSE_CONFORMANCE_RESOURCE).toBe('http://127.0.0.1:8080/mcp')
    expect(env.GATEHOUSE_CONFORMANCE_PORT).toBe('8080')
    expect(env.GATEHOUSE_CONFORMANCE_CONFIG).toBe('/tmp/x.yaml')
  })
})

describe('targetSetupText', () => {
  const o = { target: 'http://127.0.0.1:8080', configuredBase: 'http://127.0.0.1:8080' }

  it('for a plain resource server, prints the four environment values it needs and no YAML', () => {
    const text = targetSetupText(fixtures, o, false)
    expect(text).toContain(`  GATEHOUSE_CONFORMANCE_ISSUER=${fixtures.idp.issuer}\n`)
    expect(text).toContain(`  GATEHOUSE_CONFORMANCE_JWKS_URI=${fixtures.idp.issuer}/v1/keys\n`)
    expect(text).toContain(`  GATEHOUSE_CONFORMANCE_AUDIENCE=${fixtures.idp.audience}\n`)
    expect(text).toContain('  GATEHOUSE_CONFORMANCE_RESOURCE=http://127.0.0.1:8080/mcp\n')
    expect(text).not.toMatch(/^(gateways|routes|policies):/m)
    expect(text.split('\n').length).toBeLessThan(10)
  })

  it('for a gateway (or --print-config), prints the gatehouse YAML and the Kubernetes manifests', () => {
    const text = targetSetupText(fixtures, o, true)
    expect(text).toMatch(/^gateways:/m)
    expect(text).toContain('kind: HTTPRoute')
  })
})

describe('--target-command', () => {
  it('judges a resource server built on the SDK as a resource server: no gatehouse feature fails it', async () => {
    const base = `http://127.0.0.1:${await freePort()}`
    const r = await conformance(['--target', base, '--target-command', SDK_RS])
    expect(r.code, r.stderr + r.stdout.slice(-2000)).toBe(0)
    expect(r.stdout).toContain('profile resource-server')
    // The one finding: requireBearerAuth answers a request without credentials with
    // error="invalid_token" (RFC 6750 §3.1: SHOULD NOT include an error code), a SHOULD.
    expect(r.stdout.match(/FAIL \S+ \S+/g)).toEqual(['FAIL AUTH-027 SHOULD'])
    expect(r.stdout).toContain('PASS PRM-006')
    expect(r.stdout).toContain('PASS AUTH-013')
    expect(r.stdout).not.toMatch(/PASS (AUTH-020|AUTHZ-001|ASM-|CORS-|MCPP-)/)
  }, 120_000)

  it('fails a resource server whose 401 has no WWW-Authenticate header on a MUST of its own (AUTH-026), not only two SHOULDs', async () => {
    const base = `http://127.0.0.1:${await freePort()}`
    const r = await conformance([
      '--target',
      base,
      '--target-command',
      `${SDK_RS} --fault no-www-authenticate`,
    ])
    expect(r.stdout).toMatch(/FAIL AUTH-026 MUST/)
    expect(r.stdout).toContain('RFC 6750 §3; RFC 9110 §15.5.2')
    expect(r.code, r.stdout.slice(-2000)).toBe(1)
  }, 120_000)

  it('judges gatehouse started from the printed configuration, pass-through and broker mode, on every profile it claims', async () => {
    const base = `http://127.0.0.1:${await freePort()}`
    const admin = `http://127.0.0.1:${await freePort()}`
    const broker = `http://127.0.0.1:${await freePort()}`
    const command = `node ${join(ROOT, 'proxy/bin/gatehouse.js')} -f "$GATEHOUSE_CONFORMANCE_CONFIG"`
    const r = await conformance([
      '--target',
      base,
      '--admin',
      admin,
      '--broker-target',
      broker,
      '--target-command',
      command,
      '--profile',
      'resource-server,gateway,bridged,broker,seed-cors,mcp-policy,admin',
    ])
    expect(r.code, r.stderr + r.stdout.slice(-3000)).toBe(0)
    expect(r.stdout).toMatch(/\d{2} passed, 0 failed/)
    // Broker mode was judged, not skipped for want of a broker target.
    expect(r.stdout).toMatch(/PASS BRK-0\d\d/)
    expect(r.stdout).not.toMatch(/SKIP[^\n]*BRK-/)
  }, 120_000)

  it("judges the opaque-token checks (OPQ-*) on the route --opaque-target names, introspecting at the suite's IdP; skips them without it, saying how", async () => {
    const base = `http://127.0.0.1:${await freePort()}`
    const opaque = `http://127.0.0.1:${await freePort()}`
    const command = `node ${join(ROOT, 'proxy/bin/gatehouse.js')} -f "$GATEHOUSE_CONFORMANCE_CONFIG"`
    const r = await conformance([
      '--target',
      base,
      '--opaque-target',
      opaque,
      '--target-command',
      command,
      '--profile',
      'resource-server',
      '--print-config',
    ])
    expect(r.code, r.stderr + r.stdout.slice(-3000)).toBe(0)
    expect(r.stdout).toMatch(/PASS OPQ-001/)
    expect(r.stdout).toMatch(/PASS OPQ-002/)
    // The setup text says what a target needs to introspect (the secret is this run's test IdP's).
    expect(r.stdout).toContain('GATEHOUSE_CONFORMANCE_INTROSPECTION_URL=')

    const without = await conformance([
      '--target',
      base,
      '--target-command',
      command,
      '--profile',
      'resource-server',
      '--only',
      'OPQ-001',
    ])
    expect(without.stdout).toMatch(/SKIP OPQ-001/)
    expect(without.stdout).toContain('--opaque-target')
  }, 120_000)

  it('exits 2 saying why when the target command ends before it answers', async () => {
    const base = `http://127.0.0.1:${await freePort()}`
    const r = await conformance(['--target', base, '--target-command', 'echo broken >&2; exit 3'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/the target command exited \(3\) before answering:\nbroken/)
  }, 60_000)
})
