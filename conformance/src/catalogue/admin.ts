/**
 * Profile `admin`: the local admin interface of a standalone proxy. Sources: seed Endpoints
 * (Admin interface table), Authentication 5, Limits.
 */
import { connect } from 'node:net'
import { gunzipSync } from 'node:zlib'
import { type CheckContext, CheckSkipped, must, type Requirement } from '../types.js'
import { postMcp } from './util.js'

const SEED_ADMIN = 'seed: Endpoints (Admin interface)'

function adminUrl(ctx: CheckContext): string {
  if (!ctx.target.admin) throw new CheckSkipped('no admin URL given (--admin)')
  return ctx.target.admin
}

async function dump(ctx: CheckContext): Promise<Record<string, unknown>> {
  const res = await ctx.http(`${adminUrl(ctx)}/config_dump`)
  must(res.status === 200, '200', `${res.status}`)
  return res.json()
}

interface PolicyView {
  name: string
  targetRefs?: Array<{ name: string }>
  status?: { programmed?: boolean; conditions?: Array<{ type: string; status: string }> }
}

const condition = (p: PolicyView | undefined, type: string) =>
  p?.status?.conditions?.find((c) => c.type === type)?.status

/** Profile `admin`: the seed's admin interface table, judged over the admin URL. */
export const admin: Requirement[] = [
  {
    id: 'ADM-001',
    level: 'MUST',
    quote:
      'Runtime configuration loaded: binds, listeners, routes, backends, workloads, services, policies',
    profile: 'admin',
    source: `${SEED_ADMIN}: GET /config_dump`,
    text: 'GET /config_dump answers 200 JSON with binds, routes, backends, policies, workloads and services.',
    async check(ctx) {
      const d = await dump(ctx)
      for (const key of ['binds', 'routes', 'backends', 'policies', 'workloads', 'services']) {
        must(Array.isArray(d[key]), `a "${key}" list`, JSON.stringify(Object.keys(d)))
      }
    },
  },
  {
    id: 'ADM-002',
    level: 'MUST',
    quote:
      'Status: the policy reports conditions Accepted and Attached, each with value True when healthy.',
    profile: 'admin',
    source: 'seed: GatewayPolicy (Status: Accepted and Attached True when healthy)',
    text: 'A healthy policy reports conditions Accepted=True and Attached=True.',
    async check(ctx) {
      const policies = (await dump(ctx)).policies as PolicyView[]
      const healthy =
        policies.find((p) => p.targetRefs?.some((t) => t.name === 'mcp')) ?? policies[0]
      must(
        condition(healthy, 'Accepted') === 'True',
        'Accepted=True',
        String(condition(healthy, 'Accepted')),
      )
      must(
        condition(healthy, 'Attached') === 'True',
        'Attached=True',
        String(condition(healthy, 'Attached')),
      )
    },
  },
  {
    id: 'ADM-003',
    level: 'MUST',
    quote: 'Policy is Accepted but is not programmed on the data plane',
    profile: 'admin',
    source: 'seed: States ("Policy is Accepted but is not programmed on the data plane")',
    text: 'A policy whose key set cannot be fetched is Accepted but reported as not programmed.',
    async check(ctx) {
      if (!ctx.target.brokenPath)
        throw new CheckSkipped('no route with a wrong jwksPath was configured')
      const policies = (await dump(ctx)).policies as PolicyView[]
      const broken = policies.find((p) => p.targetRefs?.some((t) => t.name === 'broken'))
      must(
        broken !== undefined,
        'a policy on route "broken"',
        JSON.stringify(policies.map((p) => p.name)),
      )
      must(
        condition(broken, 'Accepted') === 'True',
        'Accepted=True',
        String(condition(broken, 'Accepted')),
      )
      const programmed = broken.status?.programmed ?? condition(broken, 'Programmed') === 'True'
      must(programmed === false, 'not programmed', 'programmed')
    },
  },
  {
    id: 'ADM-004',
    level: 'MUST',
    quote:
      "Secrets never appear (client secrets, API tokens, keys' private parts, bearer tokens): redacted.",
    profile: 'admin',
    source: 'docs/admin-api.md (secrets never appear); seed: Authentication 5',
    text: 'The configuration dump contains none of the secrets in the configuration.',
    async check(ctx) {
      if (ctx.target.secrets.length === 0) throw new CheckSkipped('no planted secret to look for')
      const text = (await ctx.http(`${adminUrl(ctx)}/config_dump`)).text
      const leaked = ctx.target.secrets.filter((s) => text.includes(s))
      must(leaked.length === 0, 'no secret in the dump', `${leaked.length} secret(s) present`)
    },
  },
  {
    id: 'ADM-005',
    level: 'MUST',
    quote:
      'Streams a JSON-over-SSE trace of the next request the proxy handles (selected route, applied policies, chosen backend, response status)',
    profile: 'admin',
    source: `${SEED_ADMIN}: GET /debug/trace ("JSON-over-SSE trace of the next request")`,
    text: 'GET /debug/trace is a text/event-stream that carries JSON events of the next request, ending with it.',
    async check(ctx) {
      const abort = new AbortController()
      const pending = fetch(`${adminUrl(ctx)}/debug/trace`, { signal: abort.signal })
      let res: Response | undefined
      // An SSE stream answers at once; a non-streaming answer only comes after a request.
      for (let i = 0; i < 6 && !res; i++) {
        res = await Promise.race([
          pending,
          new Promise<undefined>((r) => setTimeout(() => r(undefined), 250)),
        ])
        if (!res && i >= 1) await postMcp(ctx)
      }
      try {
        must(res !== undefined, 'the stream to open', 'no answer')
        must(
          (res.headers.get('content-type') ?? '').startsWith('text/event-stream'),
          'text/event-stream',
          String(res.headers.get('content-type')),
        )
        await postMcp(ctx)
        const reader = res.body?.getReader()
        let text = ''
        const deadline = Date.now() + 5000
        while (reader && !/request_finished/.test(text) && Date.now() < deadline) {
          const chunk = await Promise.race([
            reader.read(),
            new Promise<undefined>((r) => setTimeout(() => r(undefined), 500)),
          ])
          if (chunk?.done) break
          if (chunk?.value) text += new TextDecoder().decode(chunk.value)
        }
        const data = [...text.matchAll(/^data: (.*)$/gm)].map((m) => m[1] ?? '')
        must(
          data.length > 0 && data.every((d) => d.startsWith('{')),
          'JSON data lines',
          text.slice(0, 200),
        )
        must(
          /request_finished/.test(text),
          "the request's events up to request_finished",
          text.slice(0, 200),
        )
      } finally {
        abort.abort()
      }
    },
  },
  {
    id: 'ADM-006',
    level: 'MUST',
    quote:
      'POST with level sets it; the response is a text line reporting the current log level filter',
    profile: 'admin',
    source: `${SEED_ADMIN}: GET, POST /logging`,
    text: 'POST /logging?level=debug sets the level at once; GET /logging then reports it in a text line.',
    async check(ctx) {
      const base = adminUrl(ctx)
      const set = await ctx.http(`${base}/logging?level=debug`, { method: 'POST' })
      must(set.status === 200, '200', `${set.status}`)
      const got = await ctx.http(`${base}/logging`)
      await ctx.http(`${base}/logging?level=info`, { method: 'POST' })
      must(/\bdebug\b/.test(got.text), 'the new level "debug" reported', got.text.trim())
    },
  },
  {
    id: 'ADM-007',
    level: 'MUST',
    quote: 'an invalid filter → 400 naming what is wrong.',
    profile: 'admin',
    source: 'docs/admin-api.md (invalid filter → 400)',
    text: 'An invalid log level is refused with 400 and the level in force does not change.',
    async check(ctx) {
      const before = await ctx.http(`${adminUrl(ctx)}/logging`)
      must(before.status === 200, 'GET /logging answers 200', `${before.status}`)
      const res = await ctx.http(`${adminUrl(ctx)}/logging?level=loud`, { method: 'POST' })
      must(res.status === 400, '400', `${res.status}`)
      const after = await ctx.http(`${adminUrl(ctx)}/logging`)
      must(
        after.text === before.text,
        `the level in force unchanged: ${before.text.trim()}`,
        after.text.trim(),
      )
    },
  },
  {
    id: 'ADM-008',
    level: 'SHOULD',
    quote: 'Allocator and process memory statistics',
    profile: 'admin',
    source: `${SEED_ADMIN}: GET /memory`,
    text: 'GET /memory answers 200 with memory statistics.',
    async check(ctx) {
      const res = await ctx.http(`${adminUrl(ctx)}/memory`)
      must(res.status === 200, '200', `${res.status}`)
      const stats = positiveNumbers(parseJson(res.text), /rss|heap/i)
      must(
        stats.length > 0,
        'JSON with the resident set and heap sizes (a positive number under a key naming rss or heap)',
        res.text.slice(0, 200),
      )
    },
  },
  {
    id: 'ADM-009',
    level: 'MUST',
    quote: 'Query seconds integer 1–300, default 10; frequency integer 1–1000 Hz, default 100.',
    profile: 'admin',
    source: 'seed: Limits (CPU profile duration 1–300 s, rate 1–1000 Hz)',
    text: 'GET /debug/pprof/profile refuses seconds or frequency out of range with 400.',
    async check(ctx) {
      const base = adminUrl(ctx)
      for (const q of [
        'seconds=0',
        'seconds=301',
        'seconds=1&frequency=0',
        'seconds=1&frequency=1001',
      ]) {
        const res = await ctx.http(`${base}/debug/pprof/profile?${q}`, { timeoutMs: 5000 })
        if (res.status === 404)
          throw new CheckSkipped('CPU profiling is not offered (non-Linux build)')
        must(res.status === 400, `400 for ${q}`, `${res.status}`)
      }
    },
  },
  {
    id: 'ADM-010',
    level: 'SHOULD',
    quote: 'Returns a profile file.',
    profile: 'admin',
    source: `${SEED_ADMIN}: GET /debug/pprof/profile, /debug/pprof/heap`,
    text: 'CPU (seconds=1) and heap profiles are returned as gzipped profile files.',
    async check(ctx) {
      const base = adminUrl(ctx)
      for (const path of ['/debug/pprof/profile?seconds=1', '/debug/pprof/heap']) {
        const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(10_000) })
        if (res.status === 404 && path.includes('profile')) continue
        const bytes = Buffer.from(await res.arrayBuffer())
        must(res.status === 200, `200 for ${path}`, `${res.status}`)
        must(
          bytes[0] === 0x1f && bytes[1] === 0x8b && gunzipSync(bytes).length > 0,
          'a gzip file',
          `${bytes.length} bytes`,
        )
      }
    },
  },
  {
    id: 'ADM-011',
    level: 'SHOULD',
    quote: 'Live async task tree',
    profile: 'admin',
    source: `${SEED_ADMIN}: GET /debug/tasks`,
    text: 'GET /debug/tasks answers 200 with the task tree.',
    async check(ctx) {
      const res = await ctx.http(`${adminUrl(ctx)}/debug/tasks`)
      must(res.status === 200, '200', `${res.status}`)
      const report = parseJson(res.text) as { tree?: Array<{ kind?: unknown }> } | undefined
      must(
        Array.isArray(report?.tree) && report.tree.some((t) => t.kind === 'listener'),
        'a JSON task tree whose roots include the listener of the gateway under test',
        res.text.slice(0, 200),
      )
    },
  },
  {
    id: 'ADM-012',
    level: 'MUST',
    quote:
      'Admin interface: no authentication; it binds to loopback only, so only a client on the same host reaches it.',
    profile: 'admin',
    source: 'seed: Authentication 5 ("it binds to loopback only")',
    text: 'The admin interface listens on the loopback address it was given only: another address of 127.0.0.0/8 cannot connect.',
    async check(ctx) {
      const url = new URL(adminUrl(ctx))
      if (url.hostname !== '127.0.0.1') throw new CheckSkipped('the admin URL is not 127.0.0.1')
      const reachable = await new Promise<boolean>((resolve) => {
        const socket = connect({ host: '127.0.0.2', port: Number(url.port) })
        socket.setTimeout(1000)
        socket.once('connect', () => {
          socket.destroy()
          resolve(true)
        })
        socket.once('error', () => resolve(false))
        socket.once('timeout', () => {
          socket.destroy()
          resolve(false)
        })
      })
      must(
        !reachable,
        'no connection on 127.0.0.2',
        'connected: the admin interface listens on more than loopback 127.0.0.1',
      )
    },
  },
  {
    id: 'ADM-013',
    level: 'MUST',
    quote: 'Triggers graceful shutdown',
    profile: 'admin',
    source: `${SEED_ADMIN}: any /quitquitquit ("Triggers graceful shutdown")`,
    text: 'POST /quitquitquit answers and shuts the proxy down gracefully (the gateway stops accepting).',
    last: true,
    async check(ctx) {
      if (!ctx.target.allowShutdown)
        throw new CheckSkipped('shutdown not allowed (--allow-shutdown)')
      const res = await ctx.http(`${adminUrl(ctx)}/quitquitquit`, { method: 'POST' })
      must(res.status === 200, '200', `${res.status}`)
      let down = false
      for (let i = 0; i < 40 && !down; i++) {
        down = await fetch(`${ctx.target.base}/mcp`, {
          method: 'POST',
          signal: AbortSignal.timeout(500),
        }).then(
          () => false,
          () => true,
        )
        if (!down) await new Promise((r) => setTimeout(r, 250))
      }
      must(down, 'the gateway to stop accepting', 'it still answers')
    },
  },
]

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** Positive numbers found anywhere in `value` under a key matching `key`. */
function positiveNumbers(value: unknown, key: RegExp, under = false): number[] {
  if (typeof value === 'number') return under && value > 0 ? [value] : []
  if (value === null || typeof value !== 'object') return []
  return Object.entries(value).flatMap(([k, v]) => positiveNumbers(v, key, under || key.test(k)))
}
