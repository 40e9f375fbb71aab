import { createServer } from 'node:net'
import { describe, expect, it } from 'vitest'
import { freePort, freePorts, isPortTaken } from '../src/free-port.js'

/** Binds `port` on 127.0.0.1 and releases it; rejects when it is taken. */
async function bindAndRelease(port: number): Promise<void> {
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve())
  })
  await new Promise<void>((resolve) => server.close(() => resolve()))
}

describe('freePorts', () => {
  it('gives distinct ports, each free again once they are returned', async () => {
    const ports = await freePorts(40)
    expect(ports).toHaveLength(40)
    expect(new Set(ports).size).toBe(40)
    for (const port of ports) await bindAndRelease(port)
  })

  it('gives none for a count of 0', async () => {
    expect(await freePorts(0)).toEqual([])
  })
})

describe('freePort', () => {
  it('gives a port that can be bound', async () => {
    await bindAndRelease(await freePort())
  })
})

describe('isPortTaken', () => {
  it('knows EADDRINUSE and a process saying its port is in use, and nothing else', () => {
    expect(isPortTaken(Object.assign(new Error('x'), { code: 'EADDRINUSE' }))).toBe(true)
    expect(isPortTaken(new Error('listen: address already in use 127.0.0.1:80'))).toBe(true)
    expect(isPortTaken(new Error('ECONNREFUSED'))).toBe(false)
    expect(isPortTaken(undefined)).toBe(false)
  })
})
