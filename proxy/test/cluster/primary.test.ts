/**
 * `config.workers: 2` (docs/design/performance.md): the `gatehouse` command runs a primary and two
 * node:cluster workers on one port, once for the whole file. Every request goes over a fresh
 * connection (the primary hands connections to the workers in turn), so requests land on both.
 * The broker keeps its state in a real redis-server; rate-limit buckets and session bindings are
 * the primary's.
 */
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type MockIdp, startMockIdp } from '@gatehouse/mock-idp'
import { type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import {
  gatehouseArgs,
  gatehouseConfig,
  type Launched,
  launchGatehouse,
  runProcess,
  withFreePort,
  writeGatehouseConfig,
} from '@gatehouse/support'
import { Agent, type Dispatcher, getGlobalDispatcher, setGlobalDispatcher } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import type { GatehouseConfigInput } from '../../src/index.js'
import { authConfig } from '../auth/config.js'
import { pkce, signInThroughBroker, TestBrowser } from '../broker/browser.js'
import { authorizationUrl, DEMO_CLIENT } from '../broker/stack.js'
import { type RedisServer, redisSkipReason, startRedisServer } from '../store/redis-server.js'

const skip = redisSkipReason()
/** tools/list calls one user may make in total (`localRateLimit`), whichever worker serves them. */
const LIMIT = 3

let redis: RedisServer
let idp: MockIdp
let backend: McpBackend
/** Holds each request it gets until the test releases it (the drain check). */
let slow: Server
const held: ServerResponse[] = []
let gh: Launched
let base: string
let admin: string
let file: string
let dir: string
let dispatcher: Dispatcher

interface WorkerLine {
  id: number
  pid: number | null
  state: string
  restarts: number
  requests: number | null
  logLevel: string | null
}

function config(extraRoute: boolean, port: number): GatehouseConfigInput {
  const c = authConfig({
    idpPort: idp.port,
    backendPort: backend.port,
    issuer: idp.issuer,
    resource: `http://127.0.0.1:${port}/mcp`,
    broker: {
      secret: 'workers-share-this-signing-secret-0123456789',
      store: { redis: { url: redis.url, keyPrefix: 'workers:' } },
    },
  })
  const policy = c.policies?.['mcp-auth'] as NonNullable<GatehouseConfigInput['policies']>[string]
  const held = (prefix: string) => ({
    rules: [
      {
        matches: [{ path: { type: 'PathPrefix' as const, value: prefix } }],
        backendRefs: [{ name: 'slow' }],
      },
    ],
    allowUnauthenticated: true,
  })
  return {
    ...c,
    config: { adminAddr: '127.0.0.1:0', workers: 2, drainTimeout: '30s' },
    gateways: { default: { port, address: '127.0.0.1' } },
    backends: {
      ...c.backends,
      slow: { static: { host: '127.0.0.1', port: (slow.address() as AddressInfo).port } },
    },
    routes: {
      ...c.routes,
      slow: held('/slow'),
      ...(extraRoute ? { extra: held('/extra') } : {}),
    },
    policies: {
      'mcp-auth': {
        ...policy,
        traffic: {
          ...policy.traffic,
          localRateLimit: [
            {
              name: 'lists',
              maxTokens: LIMIT,
              fillInterval: '1h',
              key: 'jwt.sub',
              when: 'mcp.method == "tools/list"',
            },
          ],
        },
      },
    },
  }
}

/** Starts the command on a free port (another one if it was taken before gatehouse bound it). */
async function start(): Promise<void> {
  gh = await withFreePort(async (port) => {
    writeFileSync(file, stringify(config(false, port)))
    const launched = await launchGatehouse(file)
    base = `http://127.0.0.1:${port}`
    return launched
  })
  admin = /admin interface on (http:\/\/[^"\s]+)/.exec(gh.output())?.[1] ?? ''
}

async function workers(): Promise<WorkerLine[]> {
  const res = await fetch(`${admin}/config_dump`)
  expect(res.status).toBe(200)
  return ((await res.json()) as { workers: WorkerLine[] }).workers
}

/** Polls until `check` holds (generous: the machine may be loaded). */
async function until<T>(
  what: string,
  read: () => Promise<T>,
  check: (v: T) => boolean,
): Promise<T> {
  let last: T | undefined
  for (let i = 0; i < 300; i++) {
    last = await read()
    if (check(last)) return last
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${what}: still ${JSON.stringify(last)}`)
}

beforeAll(async () => {
  if (skip) return
  // A new connection per request: the primary gives connections to the workers in turn.
  dispatcher = getGlobalDispatcher()
  setGlobalDispatcher(new Agent({ pipelining: 0 }))
  redis = await startRedisServer()
  idp = await startMockIdp()
  backend = await startMcpBackend()
  slow = createServer((_req, res) => held.push(res))
  slow.listen(0, '127.0.0.1')
  await once(slow, 'listening')
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-workers-'))
  file = join(dir, 'gatehouse.yaml')
  await start()
}, 120_000)

afterAll(async () => {
  await gh?.stop('SIGTERM')
  for (const res of held) res.end()
  slow?.close()
  await backend?.stop()
  await idp?.stop()
  await redis?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
  if (dispatcher) setGlobalDispatcher(dispatcher)
})

async function mcp(accessToken: string, method: string, id = 1): Promise<number> {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method,
      params:
        method === 'initialize'
          ? {
              protocolVersion: '2025-06-18',
              capabilities: {},
              clientInfo: { name: 'w', version: '1' },
            }
          : {},
    }),
  })
  await res.body?.cancel()
  return res.status
}

/** Signs alice in through the broker and redeems the code (each step on a new connection). */
async function signIn(): Promise<string> {
  const issuer = `${base}/mcp`
  const { verifier, challenge } = pkce()
  const redirectUri = 'http://127.0.0.1:33418/callback'
  const url = authorizationUrl(
    { authorizeUrl: `${issuer}/oauth/authorize`, issuer },
    { state: 'workers', code_challenge: challenge, code_challenge_method: 'S256' },
  )
  const back = await signInThroughBroker(new TestBrowser(), url, 'alice', redirectUri)
  const res = await fetch(`${issuer}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: DEMO_CLIENT,
      code: back.searchParams.get('code') ?? '',
      redirect_uri: redirectUri,
      code_verifier: verifier,
    }),
  })
  const body = (await res.json()) as Record<string, unknown>
  expect(res.status, JSON.stringify(body)).toBe(200)
  return String(body.access_token)
}

describe.skipIf(skip !== undefined)(
  `gatehouse with workers: 2${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    let accessToken: string

    it('serves from both workers, and /config_dump and /metrics count the requests of both', async () => {
      const before = await workers()
      expect(before.map((w) => [w.id, w.state])).toEqual([
        [1, 'ready'],
        [2, 'ready'],
      ])
      expect(new Set(before.map((w) => w.pid)).size).toBe(2)
      expect(before.map((w) => w.pid)).not.toContain(gh.child.pid)
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)
        expect(res.status).toBe(200)
        await res.body?.cancel()
      }
      const after = await workers()
      for (const w of after) expect(w.requests).toBeGreaterThan(0)
      const total = after.reduce((n, w) => n + (w.requests ?? 0), 0)
      const metrics = await (await fetch(`${admin}/metrics`)).text()
      const summed = [...metrics.matchAll(/^gatehouse_requests_total\{[^}]*\} (\d+)$/gm)].reduce(
        (n, m) => n + Number(m[1]),
        0,
      )
      expect(summed).toBe(total)
    })

    it('traces the next request on /debug/trace, whichever worker serves it', async () => {
      const trace = await fetch(`${admin}/debug/trace?path=/.well-known/`)
      const reader = (trace.body as ReadableStream<Uint8Array>).getReader()
      const decoder = new TextDecoder()
      let text = ''
      const read = async (until: string) => {
        while (!text.includes(until)) {
          const { value, done } = await reader.read()
          if (done) return
          text += decoder.decode(value, { stream: true })
        }
      }
      await read('waiting for the next request')
      // Each worker is told of the watcher over IPC; a request right away may still beat that.
      for (let i = 0; i < 50 && !text.includes('request_started'); i++) {
        const res = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)
        await res.body?.cancel()
        await Promise.race([read('request_started'), new Promise((r) => setTimeout(r, 100))])
      }
      await read('request_finished')
      const { done } = await reader.read()
      expect(done).toBe(true)
      const started = text.match(/event: request_started/g) ?? []
      expect(started).toHaveLength(1)
      expect(text).toContain('"path":"/.well-known/oauth-protected-resource/mcp"')
    })

    it('signs in through the broker across workers (state in Redis) and calls MCP', async () => {
      accessToken = await signIn()
      expect(await mcp(accessToken, 'initialize')).toBe(200)
    })

    it(`admits ${LIMIT} calls of a limit of ${LIMIT} in total, not per worker`, async () => {
      const statuses: number[] = []
      for (let i = 0; i < LIMIT + 3; i++) statuses.push(await mcp(accessToken, 'tools/list', i + 2))
      expect(statuses.filter((s) => s === 429)).toHaveLength(3)
      expect(statuses.slice(0, LIMIT)).not.toContain(429)
    })

    it('applies POST /logging to the primary and every worker', async () => {
      const res = await fetch(`${admin}/logging?level=info,proxy::config=debug`, { method: 'POST' })
      expect((await res.text()).trim()).toBe('current log level is info,proxy::config=debug')
      expect((await workers()).map((w) => w.logLevel)).toEqual([
        'info,proxy::config=debug',
        'info,proxy::config=debug',
      ])
    })

    it('applies POST /reload to every worker', async () => {
      const port = Number(new URL(base).port)
      const extra = async () => {
        const res = await fetch(`${base}/extra`, { signal: AbortSignal.timeout(50_000) })
        return res.status
      }
      // Not routed yet: 404 from whichever worker.
      expect(await extra()).toBe(404)
      writeFileSync(file, stringify(config(true, port)))
      const reload = await fetch(`${admin}/reload`, { method: 'POST' })
      const record = (await reload.json()) as { result: string; message: string }
      expect(record.result, record.message).toBe('success')
      // Routed by both workers now: each request reaches the held backend.
      const counts = (await workers()).map((w) => w.requests ?? 0)
      const pending = Array.from({ length: 4 }, () => extra())
      await until(
        'held /extra requests',
        async () => held.length,
        (n) => n === 4,
      )
      const grew = (await workers()).map((w, i) => (w.requests ?? 0) - (counts[i] ?? 0))
      for (const res of held.splice(0)) res.end('ok')
      expect(await Promise.all(pending)).toEqual([200, 200, 200, 200])
      // Requests are counted when they finish: both workers served some.
      const done = (await workers()).map((w, i) => (w.requests ?? 0) - (counts[i] ?? 0))
      expect(
        done.every((n) => n > 0),
        `per worker: ${done} (in flight earlier: ${grew})`,
      ).toBe(true)
    })

    it('restarts a worker that is killed, and logs it', async () => {
      const [first] = await workers()
      const pid = first?.pid as number
      process.kill(pid, 'SIGKILL')
      const now = await until(
        'worker 1 restarted',
        workers,
        (ws) => ws[0]?.state === 'ready' && ws[0].pid !== pid,
      )
      expect(now[0]?.restarts).toBe(1)
      // It took the log filter POST /logging set before, not config.logLevel.
      await until(
        'restarted worker log filter',
        workers,
        (ws) => ws[0]?.logLevel === 'info,proxy::config=debug',
      )
      expect(gh.output()).toMatch(
        new RegExp(`worker 1 \\(pid ${pid}\\) exited \\(signal SIGKILL\\); restarting`),
      )
      const res = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)
      expect(res.status).toBe(200)
      await res.body?.cancel()
    })

    it('restarts a killed worker from the configuration the primary accepted, not from a refused file', async () => {
      const good = stringify(config(true, Number(new URL(base).port)))
      writeFileSync(file, 'gateways: {')
      const refused = await fetch(`${admin}/reload`, { method: 'POST' })
      expect(refused.status).toBe(422)
      const [, second] = await workers()
      const pid = second?.pid as number
      process.kill(pid, 'SIGKILL')
      // Reading the broken file, it would exit at once, again and again (restarts climbing).
      const now = await until(
        'worker 2 restarted from the accepted configuration',
        workers,
        (ws) => ws[1]?.state === 'ready' && ws[1].pid !== pid,
      )
      expect(now[1]?.restarts).toBe((second?.restarts ?? 0) + 1)
      expect(gh.output()).not.toMatch(/worker 2 \(pid \d+\) exited \(code 1\)/)
      // It serves the accepted configuration's /extra route, as the other worker does.
      const counts = (await workers()).map((w) => w.requests ?? 0)
      const pending = Array.from({ length: 4 }, () =>
        fetch(`${base}/extra`, { signal: AbortSignal.timeout(50_000) }).then((r) => r.status),
      )
      await until(
        'held /extra requests',
        async () => held.length,
        (n) => n === 4,
      )
      for (const res of held.splice(0)) res.end('ok')
      expect(await Promise.all(pending)).toEqual([200, 200, 200, 200])
      const done = (await workers()).map((w, i) => (w.requests ?? 0) - (counts[i] ?? 0))
      expect(
        done.every((n) => n > 0),
        `per worker: ${done}`,
      ).toBe(true)
      writeFileSync(file, good)
    })

    it('answers or refuses every request when a worker is killed under load: none is left hanging', async () => {
      // Far beyond any answer on a loaded machine: a request that reaches it hangs.
      const HANG_MS = 60_000
      const LOOPS = 16
      const [first] = await workers()
      const pid = first?.pid as number
      const outcomes = { answered: 0, refused: 0, hung: 0, answeredAfterKill: 0 }
      const errors = new Set<string>()
      let killed = false
      let stop = false
      let progress: (() => void) | undefined
      const one = async () => {
        try {
          const res = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`, {
            signal: AbortSignal.timeout(HANG_MS),
          })
          await res.body?.cancel()
          outcomes.answered++
          if (killed) outcomes.answeredAfterKill++
        } catch (err) {
          if ((err as Error).name === 'TimeoutError') outcomes.hung++
          else {
            outcomes.refused++
            errors.add(`${(err as Error).name}: ${(err as Error).message}`)
          }
        }
        progress?.()
      }
      const loops = Array.from({ length: LOOPS }, async () => {
        while (!stop) await one()
      })
      // Under way: every loop has had answers, so connections are being handed out.
      await new Promise<void>((resolve) => {
        progress = () => outcomes.answered >= 4 * LOOPS && resolve()
      })
      process.kill(pid, 'SIGKILL')
      killed = true
      await until(
        'killed worker 1 restarted',
        workers,
        (ws) => ws[0]?.state === 'ready' && ws[0].pid !== pid,
      )
      // The load continues onto the restarted worker before it stops.
      await new Promise<void>((resolve) => {
        const target = outcomes.answeredAfterKill + 4 * LOOPS
        progress = () => outcomes.answeredAfterKill >= target && resolve()
      })
      stop = true
      await Promise.all(loops)
      expect(outcomes.hung, JSON.stringify(outcomes)).toBe(0)
      // What the dead worker held is refused as a connection error, never anything else.
      for (const e of errors) expect(e).toBe('TypeError: fetch failed')
      expect(outcomes.answeredAfterKill).toBeGreaterThan(0)
    }, 180_000)

    it('drains every worker on /quitquitquit, then exits 0', async () => {
      const pids = (await workers()).map((w) => w.pid as number)
      const inFlight = fetch(`${base}/slow`).then(async (r) => [r.status, await r.text()])
      await until(
        'held /slow request',
        async () => held.length,
        (n) => n === 1,
      )
      expect((await fetch(`${admin}/quitquitquit`, { method: 'POST' })).status).toBe(200)
      await until(
        'both workers draining',
        async () => gh.output().match(/draining in-flight requests"/g)?.length ?? 0,
        (n) => n >= 2,
      )
      for (const res of held.splice(0)) res.end('drained')
      expect(await inFlight).toEqual([200, 'drained'])
      expect((await gh.exited).code).toBe(0)
      for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow()
    })
  },
)

describe('gatehouse with workers: 2 that cannot start', () => {
  it('exits 1 naming the worker and its reason, and leaves no worker running', async () => {
    const taken = createServer()
    taken.listen(0, '127.0.0.1')
    await once(taken, 'listening')
    try {
      const port = (taken.address() as AddressInfo).port
      const file = writeGatehouseConfig(gatehouseConfig({ port, config: { workers: 2 } }))
      const run = await runProcess(process.execPath, gatehouseArgs('-f', file))
      const text = run.stdout + run.stderr
      expect(run.code, text).toBe(1)
      expect(text).toContain(`cannot listen on 127.0.0.1:${port}: the address is already in use`)
      expect(text).toMatch(/gatehouse: worker [12] exited \(code 1\) before it was ready/)
      const pids = [...text.matchAll(/"pid":(\d+)/g)].map((m) => Number(m[1]))
      for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow()
    } finally {
      taken.close()
    }
  })
})
