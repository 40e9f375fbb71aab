import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Gatehouse } from '../../src/index.js'
import { simpleConfig, startTestGatehouse } from '../helpers.js'
import { configDir, get, nameBackend, standalone, startFromPaths } from '../reload-harness.js'

const cleanup: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c()
})

async function started(paths: string[]) {
  const gh = await startFromPaths(paths)
  cleanup.push(() => gh.stop('test finished'))
  return gh
}
async function backend(name: string) {
  const b = await nameBackend(name)
  cleanup.push(() => b.close())
  return b
}
const url = (gh: Gatehouse, gateway = 'default') =>
  gh.gateways.find((g) => g.name === gateway)?.url ?? 'no-such-gateway'

describe('reload', () => {
  it('swaps to a changed configuration: new requests go where it says', async () => {
    const [a, b] = [await backend('a'), await backend('b')]
    const dir = configDir({ 'gatehouse.yaml': standalone(a.port) })
    const gh = await started([dir])
    expect(await get(`${url(gh)}/mcp`)).toBe('a /mcp')
    writeFileSync(join(dir, 'gatehouse.yaml'), standalone(b.port))
    const r = await gh.reload()
    expect(r).toMatchObject({ result: 'success', trigger: 'api' })
    expect(await get(`${url(gh)}/mcp`)).toBe('b /mcp')
    expect((await gh.reload()).result).toBe('unchanged')
  })

  it('keeps serving the old configuration when the new one is invalid, and says why with the line', async () => {
    const a = await backend('a')
    const dir = configDir({ 'gatehouse.yaml': standalone(a.port) })
    const gh = await started([dir])
    writeFileSync(
      join(dir, 'gatehouse.yaml'),
      standalone(a.port).replace('port: 3000', 'port: "x"'),
    )
    const r = await gh.reload()
    expect(r.result).toBe('failure')
    expect(r.message).toMatch(
      /gateways\.default\.port: expected integer 1-65535, got a string of 1 character \(line 3\)/,
    )
    expect(await get(`${url(gh)}/mcp`)).toBe('a /mcp')
    expect(gh.logs.find((l) => l.code === 'GW_ERR_CONFIG_INVALID')).toMatchObject({
      level: 'error',
      trigger: 'api',
      issues: [expect.objectContaining({ path: 'gateways.default.port' })],
    })
  })

  it('refuses a configuration that validates but does not compile, naming the files and the field', async () => {
    const a = await backend('a')
    const dir = configDir({ 'gatehouse.yaml': standalone(a.port) })
    const gh = await started([dir])
    writeFileSync(
      join(dir, 'gatehouse.yaml'),
      standalone(a.port).replace(
        `port: ${a.port} } }`,
        `port: ${a.port} }, tls: { caCertificates: [ ${join(dir, 'missing.pem')} ] } }`,
      ),
    )
    const r = await gh.reload()
    expect(r.result).toBe('failure')
    expect(r.message).toContain(`${dir}: invalid configuration`)
    expect(r.message).toMatch(
      /backends\.b\.tls\.caCertificates: cannot read CA bundle .*missing\.pem/,
    )
    expect(await get(`${url(gh)}/mcp`)).toBe('a /mcp')
  })

  it('lets a request in flight finish on the configuration it started with', async () => {
    const [a, b] = [await backend('a'), await backend('b')]
    const dir = configDir({ 'gatehouse.yaml': standalone(a.port) })
    const gh = await started([dir])
    const res = await fetch(`${url(gh)}/mcp/hold`)
    const reader = res.body?.getReader()
    const first = new TextDecoder().decode((await reader?.read())?.value)
    expect(first).toBe('a start\n')
    writeFileSync(join(dir, 'gatehouse.yaml'), standalone(b.port))
    expect((await gh.reload()).result).toBe('success')
    expect(await get(`${url(gh)}/mcp`)).toBe('b /mcp')
    a.release()
    let rest = ''
    for (;;) {
      const chunk = await reader?.read()
      if (!chunk || chunk.done) break
      rest += new TextDecoder().decode(chunk.value)
    }
    expect(rest).toBe('a end\n')
  })

  it('opens added listeners and closes removed ones', async () => {
    const a = await backend('a')
    const dir = configDir({ 'gatehouse.yaml': standalone(a.port, { gateways: ['default'] }) })
    const gh = await started([dir])
    const before = url(gh)
    writeFileSync(join(dir, 'gatehouse.yaml'), standalone(a.port, { gateways: ['second'] }))
    expect((await gh.reload()).result).toBe('success')
    expect(gh.gateways.map((g) => g.name)).toEqual(['second'])
    expect(await get(`${url(gh, 'second')}/mcp`)).toBe('a /mcp')
    await expect(fetch(`${before}/mcp`)).rejects.toThrow()
  })

  it('keeps the listener (and its port) of a gateway whose settings did not change', async () => {
    const a = await backend('a')
    const dir = configDir({ 'gatehouse.yaml': standalone(a.port, { maxAge: 60 }) })
    const gh = await started([dir])
    const before = url(gh)
    writeFileSync(join(dir, 'gatehouse.yaml'), standalone(a.port, { maxAge: 120 }))
    expect((await gh.reload()).result).toBe('success')
    expect(url(gh)).toBe(before)
    const res = await fetch(`${before}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'http://x.example', 'access-control-request-method': 'POST' },
    })
    expect(res.headers.get('access-control-max-age')).toBe('120')
  })

  it('warns that adminAddr is read at start only, and keeps the admin where it was', async () => {
    const a = await backend('a')
    const dir = configDir({ 'gatehouse.yaml': standalone(a.port) })
    const gh = await started([dir])
    const admin = gh.adminUrl
    writeFileSync(join(dir, 'gatehouse.yaml'), standalone(a.port, { adminAddr: '127.0.0.1:1' }))
    await gh.reload()
    expect(gh.adminUrl).toBe(admin)
    expect(gh.logs.map((l) => String(l.msg))).toContainEqual(
      expect.stringMatching(
        /^config\.adminAddr changed to 127\.0\.0\.1:1, but it is read at start-up only/,
      ),
    )
  })

  it('answers POST /reload with the outcome, counts it, and shows the last reload in /config_dump', async () => {
    const a = await backend('a')
    const dir = configDir({ 'gatehouse.yaml': standalone(a.port) })
    const gh = await started([dir])
    const ok = await fetch(`${gh.adminUrl}/reload`, { method: 'POST' })
    expect(ok.status).toBe(200)
    expect(await ok.json()).toMatchObject({ result: 'unchanged', trigger: 'admin' })
    writeFileSync(join(dir, 'gatehouse.yaml'), 'gateways: {')
    const bad = await fetch(`${gh.adminUrl}/reload`, { method: 'POST' })
    expect(bad.status).toBe(422)
    expect(((await bad.json()) as { message: string }).message).toContain('YAML')
    const dump = (await (await fetch(`${gh.adminUrl}/config_dump`)).json()) as { reload: unknown }
    expect(dump.reload).toMatchObject({ result: 'failure', trigger: 'admin' })
    const metrics = await (await fetch(`${gh.adminUrl}/metrics`)).text()
    expect(metrics).toContain('gatehouse_config_reloads_total{result="unchanged"} 1')
    expect(metrics).toContain('gatehouse_config_reloads_total{result="failure"} 1')
  })

  it('answers POST /reload with 503 when the proxy was started without files to reload', async () => {
    const a = await backend('a')
    const gh = await startTestGatehouse({
      ...simpleConfig(a.port),
      config: { adminAddr: '127.0.0.1:0' },
    })
    cleanup.push(() => gh.stop('test finished'))
    const res = await fetch(`${gh.adminUrl}/reload`, { method: 'POST' })
    expect(res.status).toBe(503)
    expect(await res.json()).toMatchObject({ result: 'failure' })
    expect((await gh.reload()).message).toBe(
      'this proxy was started without a configuration source to reload',
    )
  })
})
