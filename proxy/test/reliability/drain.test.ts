/**
 * SIGTERM with work in flight, on the real command (docs/reliability.md: "0 lost finite requests", and
 * item 2: after many `Expect: 100-continue` uploads SIGTERM must still exit). The gateway runs as
 * its own process, through tsx from source; the backend runs here.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '@gatehouse/support'
import { afterEach, describe, expect, it } from 'vitest'
import { stringify } from 'yaml'

import { openStreams, rawRequest } from './helpers.js'

const GATEHOUSE = [
  '--import',
  createRequire(import.meta.url).resolve('tsx'),
  new URL('../../bin/gatehouse.ts', import.meta.url).pathname,
]
const FINITE = 20

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.()
})

async function backend(): Promise<{ server: Server; port: number; arrived: () => number }> {
  let arrived = 0
  const server = createServer((req, res) => {
    if (req.url === '/mcp/slow') {
      arrived++
      setTimeout(() => res.end('slow done'), 1500)
    } else if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(': open\n\n')
    } else {
      req.resume()
      req.on('end', () => res.end('ok'))
    }
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  cleanups.push(() => new Promise((r) => server.close(r)))
  cleanups.push(() => server.closeAllConnections())
  return { server, port: (server.address() as AddressInfo).port, arrived: () => arrived }
}

async function startGatehouse(backendPort: number): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-drain-'))
  const file = join(dir, 'gatehouse.yaml')
  writeFileSync(
    file,
    stringify({
      config: { adminAddr: 'off', drainTimeout: '3s' },
      gateways: { default: { port, address: '127.0.0.1' } },
      backends: { backend: { static: { host: '127.0.0.1', port: backendPort } } },
      routes: {
        main: {
          rules: [{ matches: [{ path: { value: '/mcp' } }], backendRefs: [{ name: 'backend' }] }],
          allowUnauthenticated: true,
        },
      },
    }),
  )
  const child = spawn(process.execPath, [...GATEHOUSE, '-f', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  cleanups.push(() => child.kill('SIGKILL'))
  let out = ''
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not listening after 30 s:\n${out}`)), 30_000)
    child.stdout?.on('data', (c) => {
      out += c
      if (out.includes('gatehouse listening')) {
        clearTimeout(timer)
        resolve()
      }
    })
  })
  return { child, port }
}

/** A small upload with Expect: 100-continue: headers, then the body once 100 Continue came. */
function expectUpload(port: number) {
  return rawRequest(port, [
    'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n',
    (socket) =>
      new Promise<void>((resolve) => {
        socket.once('data', () => socket.write('hello', () => resolve()))
      }),
  ])
}

describe('SIGTERM', () => {
  it(`drains: ${FINITE} finite requests in flight all answered, streams cut at drainTimeout, exit 0`, async () => {
    const b = await backend()
    const { child, port } = await startGatehouse(b.port)
    // Item 2: uploads with Expect, more than the old pool's 128 connections.
    for (let i = 0; i < 140; i++) expect((await expectUpload(port)).status).toBe(200)
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)))
    const streams = await openStreams(`http://127.0.0.1:${port}/mcp`, 5)
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200, 200, 200])
    const finite = Array.from({ length: FINITE }, () =>
      rawRequest(port, ['GET /mcp/slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'], 20_000),
    )
    const deadline = Date.now() + 10_000
    while (b.arrived() < FINITE && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20))
    expect(b.arrived()).toBe(FINITE)
    const signalled = Date.now()
    child.kill('SIGTERM')
    const answers = await Promise.all(finite)
    expect(answers.map((a) => `${a.status} ${a.body}`)).toEqual(Array(FINITE).fill('200 slow done'))
    const code = await exited
    expect(code).toBe(0)
    await Promise.all(streams.map((s) => s.ended))
    expect(Date.now() - signalled).toBeLessThan(15_000)
    await expect(
      fetch(`http://127.0.0.1:${port}/mcp`, { signal: AbortSignal.timeout(3000) }),
    ).rejects.toThrow()
  }, 90_000)
})
