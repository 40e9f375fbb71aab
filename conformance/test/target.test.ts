/**
 * `--target` unattended (conformance/src/target.ts): the printed configuration is what the checks
 * assume, and `--target-command` starts a target — a resource server built on the official SDK,
 * or gatehouse from the printed YAML — judges it and ends it, with no terminal and no manual step.
 */
import { join } from 'node:path'
import { freePort, runProcess } from '@gatehouse/support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Fixtures, ROOT, startFixtures } from '../src/stack.js'
import { targetEnv, targetGatehouseConfig } from '../src/target.js'

const BIN = join(ROOT, 'conformance/bin/conformance.ts')
const TSX = join(ROOT, 'node_modules/.bin/tsx')
const SDK_RS = `${TSX} ${join(ROOT, 'conformance/test/target/sdk-resource-server.ts')}`

/** Runs the bin to its end, stdin a closed pipe (as in CI). */
function conformance(args: string[]) {
  return runProcess(TSX, [BIN, ...args], { cwd: ROOT })
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

describe('--target-command', () => {
  it('judges a resource server built on the SDK as a resource server: no gatehouse feature fails it', async () => {
    const base = `http://127.0.0.1:${await freePort()}`
    const r = await conformance(['--target', base, '--target-command', SDK_RS])
    expect(r.code, r.stderr + r.stdout.slice(-2000)).toBe(0)
    expect(r.stdout).toContain('profile resource-server')
    expect(r.stdout).not.toContain('FAIL ')
    expect(r.stdout).toContain('PASS PRM-006')
    expect(r.stdout).toContain('PASS AUTH-013')
    expect(r.stdout).not.toMatch(/PASS (AUTH-020|AUTHZ-001|ASM-|CORS-|MCPP-)/)
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

  it('exits 2 saying why when the target command ends before it answers', async () => {
    const base = `http://127.0.0.1:${await freePort()}`
    const r = await conformance(['--target', base, '--target-command', 'echo broken >&2; exit 3'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/the target command exited \(3\) before answering:\nbroken/)
  }, 60_000)
})
