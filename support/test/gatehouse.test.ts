import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { withFreePort } from '../src/free-port.js'
import {
  type GatehouseProcess,
  gatehouseConfig,
  startGatehouseProcess,
  writeGatehouseConfig,
} from '../src/gatehouse.js'

describe('gatehouseConfig', () => {
  it('puts the gateway on the port, admin off, and keeps the sections and config fields given', () => {
    const config = gatehouseConfig({
      port: 4000,
      config: { workers: 2 },
      backends: { b: { static: { host: '127.0.0.1', port: 1 } } },
      gateways: { other: { port: 1 } },
    })
    expect(config).toEqual({
      config: { adminAddr: 'off', workers: 2 },
      gateways: { default: { port: 4000, address: '127.0.0.1' } },
      backends: { b: { static: { host: '127.0.0.1', port: 1 } } },
    })
    expect(gatehouseConfig({ port: 1, config: { adminAddr: '127.0.0.1:0' } }).config).toEqual({
      adminAddr: '127.0.0.1:0',
    })
  })

  it('writes a file gatehouse reads (JSON is YAML)', () => {
    const file = writeGatehouseConfig(gatehouseConfig({ port: 4000 }))
    expect(file).toMatch(/gatehouse\.yaml$/)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      gateways: { default: { port: 4000 } },
    })
  })
})

describe('withFreePort', () => {
  it('tries another port when the first was taken before it was bound', async () => {
    const tried: number[] = []
    const port = await withFreePort(async (p) => {
      tried.push(p)
      if (tried.length === 1) throw new Error('gateways.default: the address is already in use')
      return p
    })
    expect(tried).toHaveLength(2)
    expect(port).toBe(tried[1])
  })

  it('gives up after its attempts, and at once on another error', async () => {
    let calls = 0
    await expect(
      withFreePort(async () => {
        calls++
        throw Object.assign(new Error('bind'), { code: 'EADDRINUSE' })
      }, 3),
    ).rejects.toThrow('bind')
    expect(calls).toBe(3)
    calls = 0
    await expect(
      withFreePort(async () => {
        calls++
        throw new Error('bad config')
      }),
    ).rejects.toThrow('bad config')
    expect(calls).toBe(1)
  })

  it('binds a real server on the port it hands out', async () => {
    const server = createServer()
    const port = await withFreePort(
      (p) =>
        new Promise<number>((resolve, reject) => {
          server.once('error', reject)
          server.listen(p, '127.0.0.1', () => resolve(p))
        }),
    )
    expect((server.address() as { port: number }).port).toBe(port)
    await new Promise((r) => server.close(r))
  })
})

describe('startGatehouseProcess', () => {
  let gh: GatehouseProcess | undefined
  afterAll(async () => {
    await gh?.stop('SIGKILL')
  })

  it('starts gatehouse -f on a free port and answers there, then stops it', async () => {
    gh = await startGatehouseProcess({})
    const res = await fetch(`http://127.0.0.1:${gh.port}/nothing-here`)
    expect(res.status).toBe(404)
    expect((await gh.stop()).code).toBe(0)
  }, 60_000)
})
