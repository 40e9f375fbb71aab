/**
 * `npm run bench:reload-stall`: how long a hot reload of a large configuration holds up the
 * requests the running one serves (docs/reliability.md, "Large configurations"). For each route
 * count, the built gatehouse starts from a standalone file of that many routes (one JWT policy on
 * all of them, a public `/ping` route to a small backend in this process), a few loops keep small
 * requests going through `/ping` one after another, the file is changed (every CORS `maxAge`), and
 * `POST /reload` on the admin API reloads it. Reported: the reload's time as the admin API
 * answered it, the longest gap between two request completions while it ran (the stall clients
 * see), how many requests completed during it, gatehouse's own longest event-loop delay
 * (`nodejs_eventloop_lag_max_seconds` on `/metrics`, scraped just before and after, so that it
 * covers the reload), its RSS after, and its CPU time over the reload from /proc (all threads, the
 * main thread, and the threads the reload started: the load thread on the first reload), the
 * figure that carries least of a shared machine's load. Nothing here asserts speed.
 *
 * Options: `--routes 1000,10000,20000` (default), `--loops 4` (concurrent request loops),
 * `--prof <dir>` (run gatehouse under `--cpu-prof`, profile written to `<dir>` at exit; the top
 * functions by self time printed, for the main thread over the reload and for the configuration
 * load thread, whose CPU is most of a large reload's time), `--node <path>` (the Node binary; default the repository's
 * Node 22 package when installed, as `gatehouse` itself relaunches on it), `--dist <dir>` (the
 * build to run, default proxy/dist: a copy of an older build inside the repository compares the
 * two under the same load).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs'
import { Agent, createServer, request } from 'node:http'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { freePort } from '@gatehouse/support'
import { type CpuProfile, topSelfTime } from './cpuprofile.js'
import { manyRoutesYaml } from './many-routes.js'

const root = new URL('..', import.meta.url).pathname
const lts = join(root, 'node_modules/node-lts-22/bin/node')
const { values } = parseArgs({
  options: {
    routes: { type: 'string', default: '1000,10000,20000' },
    loops: { type: 'string', default: '4' },
    prof: { type: 'string' },
    node: { type: 'string', default: existsSync(lts) ? lts : process.execPath },
    dist: { type: 'string', default: join(root, 'proxy/dist') },
  },
})

/** A standalone file: `n` routes under one JWT policy (inline key, one CEL rule), public `/ping`. */
function stallConfig(n: number, port: number, admin: number, up: number, maxAge: number): string {
  const out = [
    `config: { adminAddr: "127.0.0.1:${admin}", logLevel: error, maxRoutes: ${Math.max(20_000, n + 1)} }`,
    `gateways:\n  default: { port: ${port}, address: 127.0.0.1 }`,
    `backends:\n  b: { static: { host: 127.0.0.1, port: ${up} } }`,
    'routes:',
    '  ping: { allowUnauthenticated: true, rules: [{ matches: [{ path: { type: PathPrefix, value: /ping } }], backendRefs: [{ name: b }] }] }',
    manyRoutesYaml(n, maxAge),
  ]
  return `${out.join('\n')}\n`
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 })

/** One HTTP exchange on 127.0.0.1: status and body. */
function call(
  port: number,
  method: string,
  path: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => {
        body += c
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

/** Starts gatehouse on `file` and resolves once its gateway accepts requests. */
async function startGatehouse(file: string, port: number, prof?: string): Promise<ChildProcess> {
  const args = [
    ...(prof ? ['--cpu-prof', '--cpu-prof-dir', prof] : []),
    join(values.dist as string, 'gatehouse.js'),
    '-f',
    file,
  ]
  const child = spawn(values.node as string, args, { stdio: ['ignore', 'ignore', 'inherit'] })
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`gatehouse exited (${child.exitCode})`)
    try {
      if ((await call(port, 'GET', '/ping')).status === 200) return child
    } catch {}
    if (i > 1200) throw new Error('gatehouse not ready after 120 s')
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** The value of one sample on a Prometheus text page. */
function metric(text: string, name: string): number | undefined {
  const m = new RegExp(`^${name} ([0-9.e+-]+)`, 'm').exec(text)
  return m ? Number(m[1]) : undefined
}

interface Row {
  routes: number
  result: string
  reloadMs: number
  stallMs: number
  /** The longest gap in 2 s of the same requests without a reload. */
  quietMs: number
  completed: number
  lagMs: number | undefined
  rssMiB: number | undefined
  /** gatehouse's CPU over the reload, all threads; of it the main thread's and the new threads' (the load thread, started by the first reload). */
  cpu: { all: number; main: number; started: number } | undefined
  /** The reload's window on the monotonic clock (µs), which `.cpuprofile` times share on Linux. */
  window: [number, number]
}

/** A `.cpuprofile` with its start time and parents, as `node --cpu-prof` writes it. */
type FullProfile = CpuProfile & {
  startTime: number
  nodes: Array<CpuProfile['nodes'][number] & { children?: number[] }>
}

/**
 * What the main thread did in `window`: top self time over the whole window, and, for the longest
 * run of samples without `(idle)` in it (the longest stall), its length, top self time and the
 * gatehouse functions with the most inclusive time.
 */
function explain(profile: FullProfile, window: [number, number]): string[] {
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const node = new Map(profile.nodes.map((n) => [n.id, n]))
  let t = profile.startTime
  const inWindow: { id: number; dt: number; t: number }[] = []
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0
    t += dt
    if (t >= window[0] && t <= window[1]) inWindow.push({ id, dt, t })
  })
  const idle = (id: number) => node.get(id)?.callFrame.functionName === '(idle)'
  let best: [number, number] = [0, 0]
  let start = -1
  inWindow.forEach((s, i) => {
    if (idle(s.id)) start = -1
    else {
      if (start < 0) start = i
      const a = inWindow[start] as { t: number; dt: number }
      if (s.t - (a.t - a.dt) > (best[1] > 0 ? spanOf(best) : 0)) best = [start, i]
    }
  })
  function spanOf([a, b]: [number, number]): number {
    const x = inWindow[a] as { t: number; dt: number }
    return (inWindow[b] as { t: number }).t - (x.t - x.dt)
  }
  const sub = (list: typeof inWindow): CpuProfile => ({
    nodes: profile.nodes,
    samples: list.map((s) => s.id),
    timeDeltas: list.map((s) => s.dt),
  })
  const run = inWindow.slice(best[0], best[1] + 1)
  const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(6)} ms`
  const inclusiveOf = (list: typeof inWindow) =>
    [...inclusiveTime(list)]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([fn, us]) => `    ${ms(us)}  ${fn}`)
  function inclusiveTime(list: typeof inWindow): Map<string, number> {
    const inclusive = new Map<string, number>()
    for (const s of list) {
      const seen = new Set<string>()
      for (let id: number | undefined = s.id; id !== undefined; id = parent.get(id)) {
        const f = node.get(id)?.callFrame
        if (!f || !/proxy\/(dist|src)\//.test(f.url)) continue
        const name = `${f.functionName || '(anonymous)'} (${f.url.replace(/^.*\/proxy\//, 'proxy/')}:${f.lineNumber + 1})`
        if (seen.has(name)) continue
        seen.add(name)
        inclusive.set(name, (inclusive.get(name) ?? 0) + s.dt)
      }
    }
    return inclusive
  }
  return [
    '  main thread during the reload, top self time:',
    ...topSelfTime(sub(inWindow), 12).map((e) => `    ${ms(e.us)}  ${e.fn}`),
    `  longest busy run (no idle sample): ${run.length > 0 ? (spanOf(best) / 1000).toFixed(0) : 0} ms; top self time in it:`,
    ...topSelfTime(sub(run), 12).map((e) => `    ${ms(e.us)}  ${e.fn}`),
    '  gatehouse functions by inclusive time in it:',
    ...inclusiveOf(run),
    '  gatehouse functions by inclusive time over the whole reload:',
    ...inclusiveOf(inWindow),
  ]
}

/** CPU time (ms) of each thread of process `pid`, from /proc (Linux); `undefined` elsewhere. */
function threadCpu(pid: number | undefined): Map<string, number> | undefined {
  if (pid === undefined || !existsSync(`/proc/${pid}/task`)) return undefined
  const out = new Map<string, number>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
      // After the command name in parentheses: fields 3…; utime and stime are fields 14 and 15.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      out.set(tid, (Number(fields[11]) + Number(fields[12])) * 10) // clock ticks of 10 ms
    } catch {}
  }
  return out
}

/** The CPU each thread spent between two {@link threadCpu} readings. */
function cpuBetween(
  pid: number | undefined,
  before: Map<string, number> | undefined,
  after: Map<string, number> | undefined,
): Row['cpu'] {
  if (!before || !after || pid === undefined) return undefined
  let all = 0
  let started = 0
  for (const [tid, ms] of after) {
    const delta = ms - (before.get(tid) ?? 0)
    all += delta
    if (!before.has(tid)) started += delta
  }
  return { all, main: (after.get(String(pid)) ?? 0) - (before.get(String(pid)) ?? 0), started }
}

/** `all / main / started` in seconds, or `—`. */
function cpuText(cpu: Row['cpu']): string {
  if (!cpu) return '—'
  const s = (ms: number) => (ms / 1000).toFixed(2)
  return `${s(cpu.all)} / ${s(cpu.main)} / ${s(cpu.started)} s`
}

async function measureOne(n: number, upPort: number): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-reload-stall-'))
  const file = join(dir, 'gatehouse.yaml')
  const [port, admin] = [await freePort(), await freePort()]
  writeFileSync(file, stallConfig(n, port, admin, upPort, 60))
  const prof = values.prof ? join(values.prof, String(n)) : undefined
  if (prof) mkdirSync(prof, { recursive: true })
  const gh = await startGatehouse(file, port, prof)
  try {
    // Warm up, then let start-up's garbage settle.
    for (let i = 0; i < 200; i++) await call(port, 'GET', '/ping')
    await new Promise((r) => setTimeout(r, 1000))
    await call(admin, 'GET', '/metrics') // resets the lag histogram's max
    let running = true
    let last = performance.now()
    let stall = 0
    let completed = 0
    const loops = Array.from({ length: Number(values.loops) }, async () => {
      while (running) {
        const r = await call(port, 'GET', '/ping')
        if (r.status !== 200) throw new Error(`/ping answered ${r.status}`)
        const now = performance.now()
        stall = Math.max(stall, now - last)
        last = now
        completed++
      }
    })
    // The same requests for 2 s with no reload: the gaps a shared machine makes on its own.
    await new Promise((r) => setTimeout(r, 200))
    stall = 0
    last = performance.now()
    await new Promise((r) => setTimeout(r, 2000))
    const quietMs = Math.max(stall, performance.now() - last)
    stall = 0
    completed = 0
    last = performance.now()
    // gatehouse watches its files (200 ms debounce): POST /reload right after the write is the
    // reload measured; the watcher's own, queued behind it, then finds the file unchanged.
    writeFileSync(file, stallConfig(n, port, admin, upPort, 61))
    const t = performance.now()
    const from = Number(process.hrtime.bigint() / 1000n)
    const cpuBefore = threadCpu(gh.pid)
    const reload = await call(admin, 'POST', '/reload')
    const cpuAfter = threadCpu(gh.pid)
    const to = Number(process.hrtime.bigint() / 1000n)
    const reloadMs = performance.now() - t
    const end = performance.now()
    running = false
    await Promise.all(loops)
    stall = Math.max(stall, end - last)
    const metrics = (await call(admin, 'GET', '/metrics')).body
    const lag = metric(metrics, 'nodejs_eventloop_lag_max_seconds')
    const rss = metric(metrics, 'process_resident_memory_bytes')
    return {
      routes: n,
      result: `${reload.status} ${(JSON.parse(reload.body) as { result?: string }).result}`,
      reloadMs,
      stallMs: stall,
      quietMs,
      completed,
      lagMs: lag === undefined ? undefined : lag * 1000,
      rssMiB: rss === undefined ? undefined : rss / 1024 / 1024,
      cpu: cpuBetween(gh.pid, cpuBefore, cpuAfter),
      window: [from, to],
    }
  } finally {
    await new Promise<void>((resolve) => {
      gh.once('exit', () => resolve())
      gh.kill('SIGTERM')
    })
  }
}

const upstream = createServer((_req, res) => res.end('pong'))
await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r))
const upPort = (upstream.address() as { port: number }).port

const rows: Row[] = []
for (const n of (values.routes ?? '').split(',').map(Number)) {
  const row = await measureOne(n, upPort)
  rows.push(row)
  const f = (v: number | undefined) => (v === undefined ? '—' : v.toFixed(0))
  console.log(
    `| ${n} | ${row.result} | ${f(row.reloadMs)} ms | ${f(row.stallMs)} ms | ${f(row.quietMs)} ms | ${row.completed} | ${f(row.lagMs)} ms | ${f(row.rssMiB)} MiB | ${cpuText(row.cpu)} |`,
  )
  if (values.prof) {
    const d = join(values.prof, String(n))
    // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread.
    const p = readdirSync(d).find((x) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(x))
    if (p) {
      const profile = JSON.parse(readFileSync(join(d, p), 'utf8')) as FullProfile
      for (const line of explain(profile, row.window)) console.log(line)
    }
    // The configuration load thread (config/load-thread.ts), started by the reload: its CPU is
    // what the reload's time is made of when the main thread waits for it.
    const loads = readdirSync(d).filter((x) =>
      /^CPU\.\d+\.\d+\.\d+\.[1-9]\d*\.\d+\.cpuprofile$/.test(x),
    )
    for (const name of loads) {
      const profile = JSON.parse(readFileSync(join(d, name), 'utf8')) as CpuProfile
      const top = topSelfTime(profile, 12)
      const busy = top[0] && top[0].share > 0 ? top[0].us / top[0].share : 0
      console.log(
        `  thread ${name.split('.')[4]} (the load thread): ${(busy / 1000).toFixed(0)} ms of CPU; top self time:`,
      )
      for (const e of top) console.log(`    ${(e.us / 1000).toFixed(0).padStart(6)} ms  ${e.fn}`)
    }
  }
}
upstream.close()
agent.destroy()

const [l1, l5] = loadavg()
console.log(`
## bench:reload-stall — ${new Date().toISOString()}, ${values.node === process.execPath ? `Node ${process.version}` : values.node}, ${cpus().length} cores (shared machine, load average ${l1?.toFixed(1)} / ${l5?.toFixed(1)}), ${values.loops} request loops, ${values.dist}

| routes | POST /reload | reload | longest gap between request completions | same, 2 s without a reload | requests completed during the reload | gatehouse's longest event-loop delay | RSS after | gatehouse CPU over the reload: all threads / main / load thread |
|---|---|---:|---:|---:|---:|---:|---:|---:|
${rows
  .map(
    (r) =>
      `| ${r.routes} | ${r.result} | ${r.reloadMs.toFixed(0)} ms | ${r.stallMs.toFixed(0)} ms | ${r.quietMs.toFixed(0)} ms | ${r.completed} | ${r.lagMs?.toFixed(0) ?? '—'} ms | ${r.rssMiB?.toFixed(0) ?? '—'} MiB | ${cpuText(r.cpu)} |`,
  )
  .join('\n')}
`)
