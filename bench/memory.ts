/**
 * `npm run bench:memory`: docs/design/performance.md's stream and memory goals, measured side by side with nginx
 * (`proxy_buffering off`, one worker) on the same event-stream upstream (bench/stream-upstream.ts):
 *
 * - time to first event: a new connection's `GET /mcp` (event stream) until its first event, and
 *   the delivery delay of an event written on a held stream (the upstream stamps each event with
 *   the monotonic clock), through gatehouse, nginx and directly; interleaved rounds, medians
 *   (goal: gatehouse within 1 ms of nginx);
 * - RSS per held SSE stream at 2,000 and `--streams` (default 5,000) streams (goal ≤ 20 KiB at 5,000), of
 *   each proxy's process tree, every stream checked alive; then RSS after they closed, read every
 *   second for up to 30 s (goal: back within 10 % of the RSS before them);
 * - idle RSS of gatehouse with the demo configuration (examples/standalone/gatehouse.yaml with the
 *   demo's mock IdP and MCP backend, on free ports; goal ≤ 60 MiB), and of nginx and HAProxy idle.
 *
 * Proxies on CPU 0, this process (the clients) and the upstream on CPU 1 (`--pin 1`, default on
 * 2+ CPUs). Loopback only; bounded in count (`--streams`) and time. Needs `ulimit -n` of at least
 * twice the streams plus 1,000 (each proxy holds a client and an upstream socket per stream) and
 * says so otherwise. Options: --streams <n>, --rounds <n> (time to first event, default 10),
 * --pin <0|1>, --node <major> (the gateway's runtime, default 22), --write.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { startMockIdp } from '@gatehouse/mock-idp'
import { startMcpBackend } from '@gatehouse/mock-mcp'
import { freePort } from '@gatehouse/support'
import { parse, stringify } from 'yaml'
import { median } from './cpu.js'
import { nodeBinary } from './matrix.js'
import { ensurePeers, haproxyConfig, nginxConfig } from './peers.js'
import { openEventStream, startProcess, stopProcess, stopProcesses } from './processes.js'
import { benchOptions, report } from './report.js'
import { perStreamKiB, type RssSample, recovered, treeRss } from './rss.js'
import { BENCH_ISSUER, benchSigner } from './token.js'

const values = benchOptions({
  streams: 5000,
  rounds: 10,
  node: 22,
  pin: availableParallelism() >= 2 ? 1 : 0,
})
const STREAMS = values.streams
const CHECKPOINT = Math.min(2000, STREAMS)
const pinned = values.pin === 1
const proxyCpus = { cpus: pinned ? '0' : undefined }
const loadCpus = { cpus: pinned ? '1' : undefined }
const here = new URL('.', import.meta.url).pathname
const root = new URL('..', import.meta.url).pathname
/**
 * The gateway's runtime (`--node`, default 22), started directly: under the machine's Node 20,
 * `gatehouse.js` would relaunch itself on Node 22 and the process tree would count both.
 */
const gatewayNode = nodeBinary(String(values.node), root, process.execPath)
const tsx = join(root, 'node_modules/.bin/tsx')
const MIB = 1024 * 1024
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const mib = (b: number) => (b / MIB).toFixed(1)

/** Fails with what to do when this shell's open-file limit cannot hold the streams. */
function checkFileLimit(): void {
  const soft = Number(spawnSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).stdout.trim())
  const need = 2 * STREAMS + 1000
  if (Number.isFinite(soft) && soft < need) {
    throw new Error(
      `ulimit -n is ${soft}; ${STREAMS} streams need at least ${need} open files per process (a client and an upstream socket per stream). Raise it (\`ulimit -n ${need}\`, up to \`ulimit -Hn\`) or pass a smaller --streams.`,
    )
  }
}

interface Proxy {
  name: string
  port: number
  pid: number
}

/** Opens one stream; resolves once its first event arrived, with how long that took (ms). */
async function firstEvent(
  port: number,
  upstreamPort: number,
): Promise<{ ms: number; deliveryMs: () => Promise<number>; close(): void }> {
  const started = performance.now()
  const { res, close } = await openEventStream(port)
  let buffered = ''
  let onEvent: ((chunk: string) => void) | undefined
  res.setEncoding('utf8')
  res.on('data', (c: string) => {
    buffered += c
    onEvent?.(buffered)
  })
  const ms = await new Promise<number>((resolve) => {
    onEvent = (all) => {
      if (all.includes('event: open')) resolve(performance.now() - started)
    }
    onEvent(buffered)
  })
  /** Asks the upstream to write an event on every open stream; the delay until this one has it. */
  const deliveryMs = (upstream: number) =>
    new Promise<number>((resolve, reject) => {
      buffered = ''
      onEvent = (all) => {
        const m = /event: ping\ndata: \{"t":"(\d+)"\}/.exec(all)
        if (m) resolve(Number(process.hrtime.bigint() - BigInt(m[1] as string)) / 1e6)
      }
      fetch(`http://127.0.0.1:${upstream}/ping-all`, { method: 'POST' }).then(
        (r) => r.text(),
        reject,
      )
    })
  return { ms, deliveryMs: () => deliveryMs(upstreamPort), close }
}

/** Time to first event and delivery delay: `rounds` interleaved rounds of 20 streams each. */
async function timeToFirstEvent(
  targets: Proxy[],
  upstreamPort: number,
): Promise<Map<string, { ttfe: number[]; delivery: number[] }>> {
  const out = new Map(
    targets.map((t) => [t.name, { ttfe: [] as number[], delivery: [] as number[] }]),
  )
  for (const t of targets)
    for (let i = 0; i < 20; i++) (await firstEvent(t.port, upstreamPort)).close() // warm-up
  for (let r = 0; r < values.rounds; r++) {
    for (const t of targets) {
      for (let i = 0; i < 20; i++) {
        const s = await firstEvent(t.port, upstreamPort)
        const d = await s.deliveryMs()
        s.close()
        out.get(t.name)?.ttfe.push(s.ms)
        out.get(t.name)?.delivery.push(d)
      }
    }
  }
  return out
}

/** Opens streams up to `count` (200 at a time) on top of `held`. */
async function openUpTo(
  port: number,
  held: Array<() => void>,
  count: number,
  alive: { n: number },
): Promise<void> {
  const open = async () => {
    const { res, close } = await openEventStream(port)
    if (res.statusCode !== 200) {
      close()
      throw new Error(`stream answered ${res.statusCode}`)
    }
    res.on('data', (c: Buffer) => {
      if (c.includes('event: ping')) alive.n++
    })
    return close
  }
  while (held.length < count) {
    held.push(
      ...(await Promise.all(Array.from({ length: Math.min(200, count - held.length) }, open))),
    )
  }
}

interface StreamFigures {
  before: number
  atCheckpoint: number
  atAll: number
  alive: number
  after: RssSample[]
}

/** RSS of `p`'s tree before, with CHECKPOINT and STREAMS streams held, and after they closed. */
async function streamMemory(p: Proxy, upstreamPort: number): Promise<StreamFigures> {
  await sleep(2000)
  const before = treeRss(p.pid)
  const held: Array<() => void> = []
  const alive = { n: 0 }
  await openUpTo(p.port, held, CHECKPOINT, alive)
  await sleep(2000)
  const atCheckpoint = treeRss(p.pid)
  await openUpTo(p.port, held, STREAMS, alive)
  await sleep(2000)
  const atAll = treeRss(p.pid)
  await fetch(`http://127.0.0.1:${upstreamPort}/ping-all`, { method: 'POST' }).then((r) => r.text())
  for (let i = 0; i < 200 && alive.n < STREAMS; i++) await sleep(50)
  for (const close of held) close()
  const after: RssSample[] = []
  const closed = performance.now()
  for (let s = 1; s <= 30; s++) {
    await sleep(closed + s * 1000 - performance.now())
    after.push({ at: s, rss: treeRss(p.pid) })
    if (recovered(after, before, 0.1)) break
  }
  return { before, atCheckpoint, atAll, alive: alive.n, after }
}

/** Idle RSS of gatehouse running the demo configuration, with the demo's IdP and backend. */
async function demoIdleRss(): Promise<{ started: number; afterRequests: number }> {
  const idp = await startMockIdp({ port: 0, testMode: true })
  const backend = await startMcpBackend({ port: 0 })
  try {
    const config = parse(readFileSync(join(root, 'examples/standalone/gatehouse.yaml'), 'utf8'))
    const port = await freePort()
    config.config.adminAddr = `127.0.0.1:${await freePort()}`
    config.gateways.default.port = port
    config.backends['mcp-backend'].static.port = backend.port
    config.backends.idp.static.port = Number(new URL(idp.issuer).port)
    // The demo's broker on the memory store, as the earlier results measured it (the default store,
    // SQLite, needs node:sqlite, which the machine's Node 20 lacks; docs/auth.md).
    config.policies['mcp-auth'].traffic.jwtAuthentication.mcp.broker.store = { memory: {} }
    const file = join(mkdtempSync(join(tmpdir(), 'gatehouse-bench-demo-')), 'gatehouse.yaml')
    writeFileSync(file, stringify(config))
    const gh = await startProcess(
      gatewayNode,
      [join(root, 'proxy/bin/gatehouse.js'), '-f', file],
      /gatehouse listening/,
      { ...proxyCpus, env: { IDP_ISSUER: idp.issuer } },
    )
    await sleep(5000)
    const started = treeRss(gh.pid as number)
    // What a client's first visit does: discovery, and a request without a token (401).
    for (let i = 0; i < 10; i++) {
      await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`).then((r) =>
        r.text(),
      )
      await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}' }).then((r) =>
        r.text(),
      )
    }
    await sleep(5000)
    const afterRequests = treeRss(gh.pid as number)
    await stopProcess(gh)
    return { started, afterRequests }
  } finally {
    await Promise.allSettled([backend.stop(), idp.stop()])
  }
}

async function main(): Promise<void> {
  checkFileLimit()
  const { nginx, haproxy } = ensurePeers()
  if (pinned)
    spawnSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' })
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-mem-'))
  chmodSync(dir, 0o755)
  const up = await freePort()
  await startProcess(tsx, [join(here, 'stream-upstream.ts'), String(up)], /listening/, loadCpus)
  const ghPort = await freePort()
  const ghFile = join(dir, 'gatehouse.yaml')
  writeFileSync(
    ghFile,
    stringify({
      config: { adminAddr: 'off', logLevel: 'info' },
      gateways: {
        default: { port: ghPort, address: '127.0.0.1', limits: { maxConnections: STREAMS + 1000 } },
      },
      backends: { upstream: { static: { host: '127.0.0.1', port: up } } },
      routes: {
        // Public on purpose: the benchmark measures streaming, not authentication.
        mcp: {
          rules: [{ matches: [{ path: { value: '/mcp' } }], backendRefs: [{ name: 'upstream' }] }],
          allowUnauthenticated: true,
        },
      },
    }),
  )
  const gh = await startProcess(
    gatewayNode,
    [join(root, 'proxy/bin/gatehouse.js'), '-f', ghFile],
    /gatehouse listening/,
    proxyCpus,
  )
  const nginxPort = await freePort()
  const nginxFile = join(dir, 'nginx.conf')
  writeFileSync(
    nginxFile,
    nginxConfig({
      dir,
      port: nginxPort,
      upstreamPort: up,
      unbuffered: true,
      connections: 2 * STREAMS + 1000,
    }),
  )
  const ngx = await startProcess(nginx, ['-c', nginxFile], nginxPort, proxyCpus)
  const haPorts = [await freePort(), await freePort()] as const
  const keyFile = join(dir, 'jwt.pem')
  writeFileSync(keyFile, benchSigner().publicKeyPem)
  const haFile = join(dir, 'haproxy.cfg')
  writeFileSync(
    haFile,
    haproxyConfig({
      port: haPorts[0],
      jwtPort: haPorts[1],
      upstreamPort: up,
      publicKeyFile: keyFile,
      issuer: BENCH_ISSUER,
      audience: 'api://default',
    }),
  )
  const ha = await startProcess(haproxy, ['-db', '-f', haFile], haPorts[1], proxyCpus)
  await sleep(2000)
  const haIdle = treeRss(ha.pid as number)
  await stopProcess(ha)

  const ghProxy = { name: 'gatehouse', port: ghPort, pid: gh.pid as number }
  const ngxProxy = { name: 'nginx (proxy_buffering off)', port: nginxPort, pid: ngx.pid as number }
  const directProxy = { name: 'direct to upstream', port: up, pid: 0 }
  process.stderr.write('bench:memory: time to first event\n')
  const ttfe = await timeToFirstEvent([directProxy, ngxProxy, ghProxy], up)
  process.stderr.write(`bench:memory: ${STREAMS} streams through gatehouse\n`)
  const ghMem = await streamMemory(ghProxy, up)
  process.stderr.write(`bench:memory: ${STREAMS} streams through nginx\n`)
  const ngxMem = await streamMemory(ngxProxy, up)
  process.stderr.write('bench:memory: idle RSS with the demo configuration\n')
  const demo = await demoIdleRss()

  const t = (name: string, k: 'ttfe' | 'delivery', q = 0.5) => {
    const xs = [...(ttfe.get(name)?.[k] ?? [])].sort((a, b) => a - b)
    return q === 0.5
      ? median(xs)
      : (xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? Number.NaN)
  }
  const ttfeGap = t(ghProxy.name, 'ttfe') - t(ngxProxy.name, 'ttfe')
  const deliveryGap = t(ghProxy.name, 'delivery') - t(ngxProxy.name, 'delivery')
  const memRow = (p: Proxy, m: StreamFigures) => {
    const back = recovered(m.after, m.before, 0.1)
    const last = m.after.at(-1)
    return `| ${p.name} | ${mib(m.before)} | ${mib(m.atCheckpoint)} | **${perStreamKiB(m.before, m.atCheckpoint, CHECKPOINT).toFixed(1)}** | ${mib(m.atAll)} | **${perStreamKiB(m.before, m.atAll, STREAMS).toFixed(1)}** | ${m.alive}/${STREAMS} | ${back ? `${mib(back.rss)} after ${back.at} s` : `${mib(last?.rss ?? Number.NaN)} after 30 s (not back)`} |`
  }
  const verdict = (ok: boolean) => (ok ? '**met**' : '**missed**')
  const ghBack = recovered(ghMem.after, ghMem.before, 0.1)
  const ghPer = [
    perStreamKiB(ghMem.before, ghMem.atCheckpoint, CHECKPOINT),
    perStreamKiB(ghMem.before, ghMem.atAll, STREAMS),
  ]
  const lines = [
    `| time to first event (ms, ${values.rounds} rounds × 20) | new stream → first event p50 | p99 | event on a held stream, delay p50 | p99 |`,
    '|---|---:|---:|---:|---:|',
    ...[directProxy, ngxProxy, ghProxy].map(
      (p) =>
        `| ${p.name} | ${t(p.name, 'ttfe').toFixed(2)} | ${t(p.name, 'ttfe', 0.99).toFixed(2)} | ${t(p.name, 'delivery').toFixed(2)} | ${t(p.name, 'delivery', 0.99).toFixed(2)} |`,
    ),
    '',
    `| RSS of the process tree (MiB) | before | ${CHECKPOINT} streams | KiB/stream | ${STREAMS} streams | KiB/stream | alive | after they closed |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    memRow(ghProxy, ghMem),
    memRow(ngxProxy, ngxMem),
    '',
    `| idle RSS (MiB) | gatehouse, demo configuration, started | after 10 discoveries and 10 401s | nginx, 1 worker | HAProxy |`,
    '|---|---:|---:|---:|---:|',
    `| | **${mib(demo.started)}** | ${mib(demo.afterRequests)} | ${mib(ngxMem.before)} | ${mib(haIdle)} |`,
    '',
    'Goals (docs/design/performance.md):',
    '',
    `- gatehouse time to first event within 1 ms of nginx: ${verdict(ttfeGap <= 1)} (${ttfeGap >= 0 ? '+' : ''}${ttfeGap.toFixed(2)} ms on a new stream; ${deliveryGap >= 0 ? '+' : ''}${deliveryGap.toFixed(2)} ms for an event on a held stream)`,
    `- ≤ 20 KiB of gatehouse RSS per held stream at ${STREAMS}: ${verdict((ghPer[1] ?? Number.NaN) <= 20)} (${ghPer[0]?.toFixed(1)} KiB at ${CHECKPOINT} streams, ${ghPer[1]?.toFixed(1)} KiB at ${STREAMS}; nginx ${perStreamKiB(ngxMem.before, ngxMem.atAll, STREAMS).toFixed(1)} KiB)`,
    `- gatehouse RSS back within 10 % of its pre-load value within 30 s: ${verdict(ghBack !== undefined)} (${ghBack ? `after ${ghBack.at} s` : `${mib(ghMem.after.at(-1)?.rss ?? Number.NaN)} MiB at 30 s against ${mib(ghMem.before)} MiB before, +${(((ghMem.after.at(-1)?.rss ?? 0) / ghMem.before - 1) * 100).toFixed(0)} %`})`,
    `- idle RSS ≤ 60 MiB with the demo configuration: ${verdict(demo.started <= 60 * MIB)} (${mib(demo.started)} MiB${demo.started > 60 * MIB ? `, ${((demo.started / (60 * MIB) - 1) * 100).toFixed(0)} % over` : ''})`,
  ]
  report(
    `memory and streams: ${STREAMS} SSE streams, time to first event, idle RSS${pinned ? ', proxies on CPU 0, clients and upstream on CPU 1' : ''}`,
    'Shared 2-core machine: absolute figures move with other load; compare within the run. RSS is that of the whole process tree (nginx master + worker).',
    lines,
    values.write,
  )
  if (ghMem.alive < STREAMS || ngxMem.alive < STREAMS) process.exitCode = 1
}

try {
  await main()
} finally {
  stopProcesses()
}
