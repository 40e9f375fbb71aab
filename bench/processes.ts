/**
 * Processes of a benchmark: servers started as children, waited for by a line they print, killed
 * when the benchmark ends; a child's resident memory; an event stream through the gateway.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { type IncomingMessage, request } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '@gatehouse/support'
import { stringify } from 'yaml'

const children: ChildProcess[] = []

/** How {@link startProcess} runs a child. */
export interface StartOptions {
  /** CPUs to pin the child (and its children) to, as `taskset -c` takes them, e.g. `0`. */
  cpus?: string | undefined
  /** Extra environment. */
  env?: Record<string, string> | undefined
  /** How long to wait for it to be ready (default 30 s; a 10,000-route configuration takes longer). */
  readyTimeoutMs?: number | undefined
}

/**
 * Starts `cmd args` and resolves with the child once its stdout matched `ready`, or, when `ready`
 * is a port number, once 127.0.0.1:`ready` accepts a connection (`readyTimeoutMs`, 30 s, at most).
 */
export function startProcess(
  cmd: string,
  args: string[],
  ready: RegExp | number,
  options: StartOptions = {},
): Promise<ChildProcess> {
  const argv =
    options.cpus === undefined ? [cmd, ...args] : ['taskset', '-c', options.cpus, cmd, ...args]
  const child = spawn(argv[0] as string, argv.slice(1), {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...options.env },
  })
  children.push(child)
  return new Promise((resolve, reject) => {
    let out = ''
    const limit = options.readyTimeoutMs ?? 30_000
    const timer = setTimeout(
      () => reject(new Error(`${args.join(' ')}: not ready after ${limit / 1000} s`)),
      limit,
    )
    const done = () => {
      clearTimeout(timer)
      // Once ready, the output (gatehouse's access log: a line per request) is drained unread,
      // so that reading it costs this process (which drives the load) nothing.
      child.stdout?.off('data', onData)
      child.stdout?.resume()
      out = ''
      resolve(child)
    }
    const onData = (c: Buffer) => {
      out += c
      if (ready instanceof RegExp && ready.test(out)) done()
    }
    child.stdout?.on('data', onData)
    child.once('exit', (code) =>
      reject(new Error(`${args.join(' ')} exited early (${code}): ${out.slice(-500)}`)),
    )
    if (typeof ready === 'number') {
      const poll = () => {
        const s = connect(ready, '127.0.0.1')
        s.once('connect', () => {
          s.destroy()
          done()
        })
        s.once('error', () => {
          s.destroy()
          if (child.exitCode === null) setTimeout(poll, 50)
        })
      }
      poll()
    }
  })
}

/** Stops `child` (SIGTERM) and resolves once it exited. */
export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}

/**
 * Opens an event stream (`GET /mcp`, `Accept: text/event-stream`) through the gateway on a new
 * connection; resolves with the response (its errors are ignored) and a function that cuts it.
 */
export function openEventStream(port: number): Promise<{ res: IncomingMessage; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        agent: false,
        headers: { accept: 'text/event-stream' },
      },
      (res) => {
        res.on('error', () => {})
        resolve({ res, close: () => req.destroy() })
      },
    )
    req.on('error', reject)
    req.end()
  })
}

/** Sends SIGTERM to every child started by {@link startProcess}. */
export function stopProcesses(): void {
  for (const c of children) c.kill('SIGTERM')
}

/** Resident set size of a process, in bytes (Linux `/proc/<pid>/status`, `VmRSS`). */
export function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  if (!m) throw new Error(`no VmRSS for pid ${pid}`)
  return Number(m[1]) * 1024
}

/** gatehouse (from the build) routing `/mcp` to bench/stream-upstream.ts, each its own process. */
export interface StreamStack {
  /** The gateway's port on 127.0.0.1. */
  port: number
  upstreamPort: number
  /** The gatehouse process. */
  pid: number
}

/** Starts a {@link StreamStack}; `limits` are the gateway's `limits`. */
export async function startStreamStack(limits: Record<string, unknown> = {}): Promise<StreamStack> {
  const here = new URL('.', import.meta.url).pathname
  const root = new URL('..', import.meta.url).pathname
  const upstreamPort = await freePort()
  await startProcess(
    join(root, 'node_modules/.bin/tsx'),
    [join(here, 'stream-upstream.ts'), String(upstreamPort)],
    /listening/,
  )
  const port = await freePort()
  const file = join(mkdtempSync(join(tmpdir(), 'gatehouse-bench-')), 'gatehouse.yaml')
  const config = {
    config: { adminAddr: 'off', logLevel: 'info' },
    gateways: { default: { port, address: '127.0.0.1', limits } },
    backends: { upstream: { static: { host: '127.0.0.1', port: upstreamPort } } },
    routes: {
      // Public on purpose: the benchmark measures streaming, not authentication.
      mcp: {
        rules: [{ matches: [{ path: { value: '/mcp' } }], backendRefs: [{ name: 'upstream' }] }],
        allowUnauthenticated: true,
      },
    },
  }
  writeFileSync(file, stringify(config))
  const gatehouse = await startProcess(
    process.execPath,
    [join(root, 'proxy/bin/gatehouse.js'), '-f', file],
    /gatehouse listening/,
  )
  return { port, upstreamPort, pid: gatehouse.pid as number }
}
