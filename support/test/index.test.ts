import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer as createHttpServer } from 'node:http'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { freePort, isPortTaken, SHUTDOWN_EXIT, sendJson, withFreePort } from '../src/index.js'

const ROOT = new URL('../../', import.meta.url).pathname
const TSX = join(ROOT, 'node_modules/.bin/tsx')
const CHILD = new URL('./fixtures/shutdown-child.ts', import.meta.url).pathname

describe('freePort', () => {
  it('gives a loopback port a server can then listen on', async () => {
    const port = await freePort()
    expect(port).toBeGreaterThan(0)
    const server = createServer()
    server.listen(port, '127.0.0.1')
    await once(server, 'listening')
    expect((server.address() as { port: number }).port).toBe(port)
    await new Promise((r) => server.close(r))
  })
})

describe('withFreePort', () => {
  /** Listens on `port`, rejecting with Node's own error when it is taken. */
  async function listenOn(port: number) {
    const server = createServer()
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => resolve())
    })
    return server
  }

  it('starts again on another port when the one it was given was taken meanwhile (EADDRINUSE)', async () => {
    const tried: number[] = []
    let thief: ReturnType<typeof createServer> | undefined
    const server = await withFreePort(async (port) => {
      tried.push(port)
      // The race: another process takes the port between freePort and this listen.
      if (!thief) thief = await listenOn(port)
      return listenOn(port)
    })
    expect(tried.length).toBe(2)
    expect((server.address() as { port: number }).port).toBe(tried[1])
    await new Promise((r) => server.close(r))
    await new Promise((r) => thief?.close(r))
  })

  it('throws any other error at once, and a taken port after the last attempt', async () => {
    let calls = 0
    await expect(
      withFreePort(async () => {
        calls++
        throw new Error('bad configuration')
      }),
    ).rejects.toThrow('bad configuration')
    expect(calls).toBe(1)
    calls = 0
    await expect(
      withFreePort(async (port) => {
        calls++
        throw new Error(`cannot listen on 127.0.0.1:${port}: the address is already in use`)
      }, 3),
    ).rejects.toThrow('already in use')
    expect(calls).toBe(3)
    expect(isPortTaken(Object.assign(new Error('x'), { code: 'EADDRINUSE' }))).toBe(true)
  })
})

describe('sendJson', () => {
  const servers: Array<{ close(): void }> = []
  afterEach(() => {
    for (const s of servers.splice(0)) s.close()
  })

  async function serve(handler: Parameters<typeof createHttpServer>[1]): Promise<string> {
    const server = createHttpServer(handler)
    servers.push(server)
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    return `http://127.0.0.1:${(server.address() as { port: number }).port}`
  }

  it('writes the status, the JSON body, its type and its length in bytes', async () => {
    const url = await serve((_req, res) => sendJson(res, 418, { name: 'thé' }))
    const res = await fetch(url)
    expect(res.status).toBe(418)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength('{"name":"thé"}')))
    expect(await res.json()).toEqual({ name: 'thé' })
  })

  it('adds headers, which may replace its own', async () => {
    const url = await serve((_req, res) =>
      sendJson(res, 200, [1], {
        'cache-control': 'no-store',
        'content-type': 'application/json; charset=utf-8',
      }),
    )
    const res = await fetch(url)
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(await res.json()).toEqual([1])
  })
})

describe('onShutdownSignals', () => {
  const children: ChildProcess[] = []
  afterEach(() => {
    for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL')
  })

  /** Starts the fixture command; resolves once its handlers are installed. */
  async function start(mode: string) {
    const child = spawn(TSX, [CHILD, mode], { stdio: ['ignore', 'pipe', 'pipe'] })
    children.push(child)
    let stdout = ''
    let stderr = ''
    child.stderr.on('data', (c: Buffer) => {
      stderr += c
    })
    child.stdout.on('data', (c: Buffer) => {
      stdout += c
    })
    /** Resolves once the command printed `text` (at once if it already has). */
    const waitFor = (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!stdout.includes(text)) return
          child.stdout.off('data', check)
          resolve()
        }
        child.stdout.on('data', check)
        check()
      })
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
    await waitFor('ready')
    return { child, exited, waitFor, stderr: () => stderr, stdout: () => stdout }
  }

  it('closes on SIGTERM, says so, and exits 0', async () => {
    const c = await start('resolve')
    c.child.kill('SIGTERM')
    const [code] = await c.exited
    expect(code).toBe(SHUTDOWN_EXIT.closed)
    expect(c.stdout()).toContain('closing on SIGTERM')
    expect(c.stderr()).toBe('child: SIGTERM, stopping\n')
  })

  it('exits at once on a second signal while the close runs', async () => {
    const c = await start('hang')
    const closing = c.waitFor('closing on SIGINT')
    c.child.kill('SIGINT')
    await closing
    c.child.kill('SIGINT')
    const [code, signal] = await c.exited
    expect([code, signal]).toEqual([SHUTDOWN_EXIT.forced, null])
    expect(c.stderr()).toContain('child: SIGINT again, exiting now')
  })

  it('exits 1 and says why when the close fails', async () => {
    const c = await start('reject')
    c.child.kill('SIGTERM')
    const [code] = await c.exited
    expect(code).toBe(SHUTDOWN_EXIT.failed)
    expect(c.stderr()).toContain('child: stopping failed: boom')
  })

  it('leaves the exit to the command, unannounced, when asked', async () => {
    const c = await start('own-exit')
    c.child.kill('SIGTERM')
    const [code] = await c.exited
    expect(code).toBe(7)
    expect(c.stdout()).toContain('closing on SIGTERM')
    expect(c.stderr()).toBe('')
  })
})
