/**
 * SIGTERM with work in flight, on the real command (docs/reliability.md: "0 lost finite requests", and
 * item 2: after many `Expect: 100-continue` uploads SIGTERM must still exit). The gateway runs as
 * its own process, through tsx from source; the backend runs here.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
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

/**
 * The backend. It holds every `/mcp/slow` request until `release()`; `arrived(n)` resolves once
 * `n` of them are held.
 */
async function backend(): Promise<{
  port: number
  arrived: (n: number) => Promise<void>
  release: () => void
}> {
  const held: Array<() => void> = []
  let released = false
  const waiters: Array<{ n: number; resolve: () => void }> = []
  const server = createServer((req, res) => {
    if (req.url === '/mcp/slow') {
      if (released) return void res.end('slow done')
      held.push(() => res.end('slow done'))
      for (const w of waiters.filter((w) => held.length >= w.n)) w.resolve()
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
  return {
    port: (server.address() as AddressInfo).port,
    arrived: (n) =>
      held.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve })),
    release: () => {
      released = true
      for (const answer of held.splice(0)) answer()
    },
  }
}

/** The gateway as its own process, and `said(text)`: resolves once its output holds `text`. */
async function startGatehouse(
  backendPort: number,
): Promise<{ child: ChildProcess; port: number; said: (text: string) => Promise<void> }> {
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
  child.stdout?.on('data', (c) => {
    out += c
  })
  const said = (text: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!out.includes(text)) return
        child.stdout?.off('data', check)
        child.off('exit', exited)
        resolve()
      }
      const exited = () => reject(new Error(`gatehouse exited before saying "${text}":\n${out}`))
      child.stdout?.on('data', check)
      child.once('exit', exited)
      check()
    })
  await said('gatehouse listening')
  return { child, port, said }
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
    const { child, port, said } = await startGatehouse(b.port)
    // Item 2: uploads with Expect, more than the old pool's 128 connections.
    for (let i = 0; i < 140; i++) expect((await expectUpload(port)).status).toBe(200)
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)))
    const streams = await openStreams(`http://127.0.0.1:${port}/mcp`, 5)
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200, 200, 200])
    const finite = Array.from({ length: FINITE }, () =>
      rawRequest(port, ['GET /mcp/slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'], 20_000),
    )
    // Every finite request is at the backend, held there until the gateway is draining.
    await b.arrived(FINITE)
    child.kill('SIGTERM')
    await said('shutting down')
    b.release()
    const answers = await Promise.all(finite)
    expect(answers.map((a) => `${a.status} ${a.body}`)).toEqual(Array(FINITE).fill('200 slow done'))
    // The streams never end by themselves: the gateway cuts them (at drainTimeout), then exits 0.
    await Promise.all(streams.map((s) => s.ended))
    expect(await exited).toBe(0)
    await expect(
      fetch(`http://127.0.0.1:${port}/mcp`, { signal: AbortSignal.timeout(3000) }),
    ).rejects.toThrow()
  }, 90_000)
})
