/**
 * `npm run bench`: CPU time per request of `POST /mcp` (a small JSON-RPC tools/call) through each
 * proxy, measured side by side in one run (docs/design/performance.md): the upstream directly; the Node floor (a
 * minimal node:http + undici proxy, bench/node-floor.ts); nginx with one worker; HAProxy plain and
 * with `jwt_verify` RS256 + claim checks (also with a new token on every request); a bare
 * @fastify/http-proxy; gatehouse without auth, with RS256 JWT + one CEL rule, with that plus the
 * MCP-aware policy (mcpAuthorization, localRateLimit), and with JWT + CEL and a new token on every
 * request, and the MCP policy with a 2026-07-28 request whose headers are validated against its
 * body. nginx and HAProxy are Debian's, installed when missing (bench/peers.ts) and their
 * configurations checked first (bench/self-check.ts).
 *
 * The headline is CPU µs per request of each proxy's whole process tree (/proc, bench/cpu.ts),
 * which other load on the machine moves far less than req/s; req/s and p50/p99 stand beside it.
 * Targets run in interleaved rounds (A B C …, A B C …); each figure is the median over rounds
 * and each ratio is taken within a round, then the median over rounds. Load comes from autocannon
 * in this process. The whole comparison runs once per way (bench/matrix.ts): each Node runtime
 * of `--nodes` (the Node targets — upstream, Node floor, fastify, gatehouse — run on it) × each
 * placement of `--ways`: `pinned` (this process and the upstream on CPU 1, the proxy under test
 * on CPU 0, `taskset`) and `unpinned` (nothing pinned, as users run it). Prints
 * docs/design/performance.md's goals as met/missed per way, the figures per way, and gatehouse's
 * RSS before, under and `--settle` s after the load; `--write` appends them to bench/RESULTS.md.
 * Loopback only, bounded in time.
 *
 * Options: --duration <s> per target and round (default 10), --connections <n> (default 50),
 * --rounds <n> (default 3), --nodes <list> (default 22,24; `current` is the Node running this),
 * --ways <list> (default pinned,unpinned on 2+ CPUs), --settle <s> (default 30), --warmup <n>
 * requests per target once before the rounds (default 5000), --rewarm <s> of load before each
 * measurement (default 2: the target's connections and pools warm again after the others' turns),
 * --write
 */
import { type ChildProcess, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '@gatehouse/support'
import { stringify } from 'yaml'
import { type Goal, type GoalVerdict, judgeGoals, median, roundRatio } from './cpu.js'
import {
  checkHeaderValidation,
  checkRefusals,
  gatehouseConfig,
  MODERN_BODY,
  MODERN_HEADERS,
  measure,
  type Sample,
  type Target,
} from './load.js'
import {
  figureMatrix,
  goalMatrix,
  memoryGoalMatrix,
  nodeBinary,
  parseList,
  parsePlacements,
  type Way,
  wayName,
  ways,
} from './matrix.js'
import { ensurePeers, haproxyConfig, nginxConfig } from './peers.js'
import { startProcess, stopProcess, stopProcesses } from './processes.js'
import { benchOptions, report } from './report.js'
import { treeRss } from './rss.js'
import { selfCheck } from './self-check.js'
import { BENCH_ISSUER, type BenchSigner, benchSigner } from './token.js'

const values = benchOptions(
  { duration: 10, connections: 50, rounds: 3, settle: 30, warmup: 5000, rewarm: 2 },
  {
    nodes: '22,24',
    ways: availableParallelism() >= 2 ? 'pinned,unpinned' : 'unpinned',
  },
)
const { duration, connections, rounds } = values
const here = new URL('.', import.meta.url).pathname
const root = new URL('..', import.meta.url).pathname
/** More distinct tokens than gatehouse's verification cache holds (10,000), used in a cycle. */
const FRESH_TOKENS = 12_000
const MIB = 1024 * 1024

const N = {
  direct: 'direct to upstream',
  floor: 'Node floor (node:http + undici)',
  nginx: 'nginx (1 worker)',
  haproxy: 'HAProxy plain',
  haproxyJwt: 'HAProxy jwt_verify RS256 + claims',
  haproxyFresh: 'HAProxy jwt_verify, new token per request',
  fastify: 'bare @fastify/http-proxy',
  gh: 'gatehouse, no auth',
  ghAuth: 'gatehouse, RS256 JWT + 1 CEL rule',
  ghAware: 'gatehouse, JWT + CEL + MCP policy',
  ghModern: 'gatehouse, MCP policy, 2026-07-28 headers validated',
  ghFresh: 'gatehouse, JWT + CEL, new token per request',
} as const

/** docs/design/performance.md's goals, CPU per request. */
export const GOALS: Goal[] = [
  { subject: N.gh, base: N.floor, max: 1.3 },
  { subject: N.ghAuth, base: N.gh, max: 1.1 },
  { subject: N.ghAuth, base: N.haproxyJwt, max: 2.5 },
  { subject: N.ghFresh, base: N.haproxyFresh, max: 3.5 },
  { subject: N.ghAware, base: N.ghAuth, max: 1.1 },
  { subject: N.ghModern, base: N.ghAware, max: 1.03 },
]

/** What one way of measuring found. */
interface WayResult {
  samples: Map<string, Sample[]>
  verdicts: GoalVerdict[]
  /** gatehouse's tree RSS: before any load, the highest as a load ended, `settle` s after. */
  rss: { before: number; loaded: number; after: number }
  loadavg: string
}

/** Pins (or unpins) every thread of this process, which drives the load. */
function placeSelf(cpus: string): void {
  spawnSync('taskset', ['-a', '-p', '-c', cpus, String(process.pid)], { stdio: 'ignore' })
}

/** Runs every target in interleaved rounds in one way: its processes, started and stopped. */
async function measureWay(
  way: Way,
  signer: BenchSigner,
  freshToken: () => string,
  peer: { nginx: string; haproxy: string },
): Promise<WayResult> {
  const pinned = way.placement === 'pinned'
  const node = nodeBinary(way.node, root, process.execPath)
  if (!existsSync(node)) throw new Error(`${node}: no such Node; npm ci installs node-lts-<n>`)
  // This process drives the load: pinned, all its threads on CPU 1, apart from the proxy under
  // test on CPU 0; unpinned, every CPU for everyone, as users run it.
  placeSelf(pinned ? '1' : `0-${availableParallelism() - 1}`)
  const proxy = { cpus: pinned ? '0' : undefined }
  const load = { cpus: pinned ? '1' : undefined }
  // The Node targets run on the way's Node, TypeScript loaded in-process (`--import tsx`), so
  // each is one process.
  const ts = (file: string, ...args: string[]) => ['--import', 'tsx', join(here, file), ...args]
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'))
  chmodSync(dir, 0o755) // nginx's worker (nobody) reaches its temporary paths
  const token = signer.sign({ groups: ['AI-Users'], scp: ['openid'] })
  const started: ChildProcess[] = []
  const start = async (...a: Parameters<typeof startProcess>) => {
    const c = await startProcess(...a)
    started.push(c)
    return c
  }
  try {
    const up = await freePort()
    const upstream = await start(node, ts('upstream.ts', String(up)), /listening/, load)
    const ports = {
      floor: await freePort(),
      nginx: await freePort(),
      haproxy: await freePort(),
      haproxyJwt: await freePort(),
      fastify: await freePort(),
      gh: await freePort(),
    }
    const floor = await start(
      node,
      ts('node-floor.ts', String(up), String(ports.floor)),
      /listening/,
      proxy,
    )
    const nginxConf = join(dir, 'nginx.conf')
    writeFileSync(nginxConf, nginxConfig({ dir, port: ports.nginx, upstreamPort: up }))
    const nginxProc = await start(peer.nginx, ['-c', nginxConf], ports.nginx, proxy)
    const keyFile = join(dir, 'jwt.pem')
    writeFileSync(keyFile, signer.publicKeyPem)
    const haproxyConf = join(dir, 'haproxy.cfg')
    writeFileSync(
      haproxyConf,
      haproxyConfig({
        port: ports.haproxy,
        jwtPort: ports.haproxyJwt,
        upstreamPort: up,
        publicKeyFile: keyFile,
        issuer: BENCH_ISSUER,
        audience: 'api://default',
      }),
    )
    const haproxyProc = await start(
      peer.haproxy,
      ['-db', '-f', haproxyConf],
      ports.haproxyJwt,
      proxy,
    )
    const fastify = await start(
      node,
      ts('fastify-proxy.ts', String(up), String(ports.fastify)),
      /listening/,
      proxy,
    )
    const ghConf = join(dir, 'gatehouse.yaml')
    writeFileSync(ghConf, stringify(gatehouseConfig(ports.gh, up, signer.jwk)))
    const gatehouse = await start(
      node,
      [join(root, 'proxy/bin/gatehouse.js'), '-f', ghConf],
      /gatehouse listening/,
      proxy,
    )
    const at = (port: number, path = '/mcp') => `http://127.0.0.1:${port}${path}`
    const pid = (c: { pid?: number | undefined }) => c.pid as number
    const targets: Target[] = [
      { name: N.direct, url: at(up), pid: pid(upstream) },
      { name: N.floor, url: at(ports.floor), pid: pid(floor) },
      { name: N.nginx, url: at(ports.nginx), pid: pid(nginxProc) },
      { name: N.haproxy, url: at(ports.haproxy), pid: pid(haproxyProc) },
      { name: N.haproxyJwt, url: at(ports.haproxyJwt), token, pid: pid(haproxyProc) },
      { name: N.haproxyFresh, url: at(ports.haproxyJwt), token: freshToken, pid: pid(haproxyProc) },
      { name: N.fastify, url: at(ports.fastify), pid: pid(fastify) },
      { name: N.gh, url: at(ports.gh), pid: pid(gatehouse) },
      { name: N.ghAuth, url: at(ports.gh, '/auth'), token, pid: pid(gatehouse) },
      { name: N.ghAware, url: at(ports.gh, '/aware'), token, pid: pid(gatehouse) },
      {
        name: N.ghModern,
        url: at(ports.gh, '/aware'),
        token,
        pid: pid(gatehouse),
        body: MODERN_BODY,
        headers: { ...MODERN_HEADERS },
      },
      { name: N.ghFresh, url: at(ports.gh, '/auth'), token: freshToken, pid: pid(gatehouse) },
    ]
    await checkRefusals(signer, [at(ports.haproxyJwt), at(ports.gh, '/auth')])
    await checkHeaderValidation(at(ports.gh, '/aware'), token)
    const rss = { before: treeRss(pid(gatehouse)), loaded: 0, after: 0 }
    // Once per target before the rounds: enough requests for the JIT to have optimised the hot
    // path, which a 2 s warm-up on a loaded machine (a few hundred requests) is not.
    for (const t of targets)
      await measure({ ...t, warmupRequests: values.warmup }, 0.5, connections)
    const samples = new Map<string, Sample[]>(targets.map((t) => [t.name, []]))
    for (let round = 0; round < rounds; round++) {
      for (const t of targets) {
        const s = await measure({ ...t, warmupSeconds: values.rewarm }, duration, connections)
        samples.get(t.name)?.push(s)
        if (t.pid === pid(gatehouse)) rss.loaded = Math.max(rss.loaded, s.rss)
        process.stderr.write(
          `${wayName(way)} round ${round + 1}/${rounds} ${t.name}: ${s.cpuUs.toFixed(1)} µs/request, ${s.rps.toFixed(0)} req/s${s.errors ? `, ${s.errors} non-2xx/errors` : ''}\n`,
        )
      }
    }
    // docs/design/performance.md: RSS back within 10 % of the RSS before the load, 30 s after.
    await new Promise((r) => setTimeout(r, values.settle * 1000))
    rss.after = treeRss(pid(gatehouse))
    const cpu = new Map([...samples].map(([name, ss]) => [name, ss.map((s) => s.cpuUs)]))
    return { samples, verdicts: judgeGoals(GOALS, cpu), rss, loadavg: loadavgNow() }
  } finally {
    await Promise.all(started.map(stopProcess))
  }
}

/** The machine's load average as `uptime` prints it (1, 5, 15 minutes). */
function loadavgNow(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')
}

async function main(): Promise<void> {
  selfCheck()
  const peer = ensurePeers()
  const all = ways(parseList(values.nodes), parsePlacements(values.ways))
  const signer = benchSigner()
  process.stderr.write(`bench: signing ${FRESH_TOKENS} tokens for the new-token targets\n`)
  const pool = Array.from({ length: FRESH_TOKENS }, (_, i) =>
    signer.sign({ groups: ['AI-Users'], scp: ['openid'], jti: `bench-${i}` }),
  )
  let next = 0
  const freshToken = () => pool[next++ % pool.length] as string
  const loadBefore = loadavgNow()
  const results: WayResult[] = []
  for (const way of all) results.push(await measureWay(way, signer, freshToken, peer))
  const columns = all.map(wayName)
  const names = Object.values(N)
  const fig = (f: (s: Sample) => number) => (target: string, c: number) =>
    median((results[c]?.samples.get(target) ?? []).map(f))
  const ratioIn = (c: number, a: string, b: string) => {
    const cpu = (t: string) => (results[c]?.samples.get(t) ?? []).map((s) => s.cpuUs)
    return roundRatio(cpu(a), cpu(b)).toFixed(2)
  }
  const errors = results
    .flatMap((r) => [...r.samples.values()].flat())
    .reduce((n, s) => n + s.errors, 0)
  const mib = (b: number) => (b / MIB).toFixed(0)
  const lines = [
    `Load average (1, 5, 15 min) before the run: ${loadBefore}; after each way: ${results.map((r, i) => `${columns[i]} ${r.loadavg}`).join('; ')}.`,
    '',
    'Goals (docs/design/performance.md), CPU per request, ratio within each round, median over rounds:',
    '',
    ...goalMatrix(
      columns,
      results.map((r) => r.verdicts),
    ),
    '',
    ...figureMatrix(
      'CPU µs/request (process tree)',
      names,
      columns,
      fig((s) => s.cpuUs),
    ),
    '',
    ...figureMatrix(
      'req/s',
      names,
      columns,
      fig((s) => s.rps),
      0,
    ),
    '',
    ...figureMatrix(
      'p99 ms',
      names,
      columns,
      fig((s) => s.p99),
      0,
    ),
    '',
    'gatehouse RSS (process tree, MiB): before the load, highest as a load ended, and after ' +
      `${values.settle} s without load:`,
    '',
    `| | ${columns.join(' | ')} |`,
    `|---|${columns.map(() => '---:').join('|')}|`,
    `| before | ${results.map((r) => mib(r.rss.before)).join(' | ')} |`,
    `| under ${connections} connections | ${results.map((r) => mib(r.rss.loaded)).join(' | ')} |`,
    `| ${values.settle} s after | ${results.map((r) => mib(r.rss.after)).join(' | ')} |`,
    '',
    ...memoryGoalMatrix(
      columns,
      results.map((r) => r.rss),
      connections,
      values.settle,
    ),
    '',
    'Other ratios (CPU per request, within each round):',
    '',
    ...columns.map(
      (c, i) =>
        `- ${c}: no auth / nginx ${ratioIn(i, N.gh, N.nginx)}×; Node floor / nginx ${ratioIn(i, N.floor, N.nginx)}×; fastify / floor ${ratioIn(i, N.fastify, N.floor)}×; new token / same token ${ratioIn(i, N.ghFresh, N.ghAuth)}× (HAProxy ${ratioIn(i, N.haproxyFresh, N.haproxyJwt)}×)`,
    ),
  ]
  report(
    `side by side: ${duration}s per target × ${rounds} interleaved rounds (medians), ${connections} connections, ${columns.join('; ')}`,
    'Shared 2-core machine: absolute figures move with whatever else runs on it (its load average before and after each way is below); the ratios are measured within one run. Pinned: proxies on CPU 0, load and upstream on CPU 1 (`taskset`); unpinned: nothing pinned. CPU is that of the whole process tree serving the target (`/proc/<pid>/stat` of it and its descendants).',
    lines,
    values.write,
    `Node targets on the Node of each way, load generator on Node ${process.version}`,
  )
  if (errors > 0) {
    process.stderr.write(`bench: ${errors} requests failed or answered non-2xx; see the table\n`)
    process.exitCode = 1
  }
}

try {
  await main()
} finally {
  stopProcesses()
}
