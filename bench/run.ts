/**
 * `npm run bench`: CPU time per request of `POST /mcp` (a small JSON-RPC tools/call) through each
 * proxy, measured side by side in one run (docs/design/performance.md): the upstream directly; the Node floor (a
 * minimal node:http + undici proxy, bench/node-floor.ts); nginx with one worker; HAProxy plain and
 * with `jwt_verify` RS256 + claim checks (also with a new token on every request); a bare
 * @fastify/http-proxy; gatehouse without auth, with RS256 JWT + one CEL rule, with that plus the
 * MCP-aware policy (mcpAuthorization, localRateLimit), and with JWT + CEL and a new token on every
 * request. nginx and HAProxy are Debian's, installed when missing (bench/peers.ts) and their
 * configurations checked first (bench/self-check.ts).
 *
 * The headline is CPU µs per request of each proxy's whole process tree (/proc, bench/cpu.ts),
 * which other load on the machine moves far less than req/s; req/s and p50/p99 stand beside it.
 * Targets run in interleaved rounds (A B C …, A B C …); each figure is the median over rounds
 * and each ratio is taken within a round, then the median over rounds. Load comes from autocannon
 * in this process; with `--pin 1` (default on 2+ CPUs) this process and the upstream run on CPU 1
 * and the proxy under test on CPU 0 (`taskset`). Prints the table and docs/design/performance.md's goals as
 * met/missed; `--write` appends them to bench/RESULTS.md. Loopback only, bounded in time.
 *
 * Options: --duration <s> per target and round (default 10), --connections <n> (default 50),
 * --rounds <n> (default 3), --pin <0|1>, --write
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '@gatehouse/support'
import { stringify } from 'yaml'
import { formatVerdict, type Goal, judgeGoals, median, roundRatio } from './cpu.js'
import { checkRefusals, gatehouseConfig, measure, type Sample, type Target } from './load.js'
import { ensurePeers, haproxyConfig, nginxConfig } from './peers.js'
import { startProcess, stopProcesses } from './processes.js'
import { benchOptions, report } from './report.js'
import { selfCheck } from './self-check.js'
import { BENCH_ISSUER, benchSigner } from './token.js'

const values = benchOptions({
  duration: 10,
  connections: 50,
  rounds: 3,
  pin: availableParallelism() >= 2 ? 1 : 0,
})
const { duration, connections, rounds } = values
const pinned = values.pin === 1
const here = new URL('.', import.meta.url).pathname
const root = new URL('..', import.meta.url).pathname
const tsx = join(root, 'node_modules/.bin/tsx')
/** More distinct tokens than gatehouse's verification cache holds (10,000), used in a cycle. */
const FRESH_TOKENS = 12_000
/** CPUs for the proxies, and for this process (the load) and the upstream. */
const PROXY_CPUS = pinned ? '0' : undefined
const LOAD_CPUS = pinned ? '1' : undefined

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
  ghFresh: 'gatehouse, JWT + CEL, new token per request',
} as const

/** docs/design/performance.md's goals, CPU per request. */
export const GOALS: Goal[] = [
  { subject: N.gh, base: N.floor, max: 1.4 },
  { subject: N.ghAuth, base: N.gh, max: 1.1 },
  { subject: N.ghAuth, base: N.haproxyJwt, max: 2.5 },
  { subject: N.ghFresh, base: N.haproxyFresh, max: 3.5 },
]

async function main(): Promise<void> {
  selfCheck()
  const { nginx, haproxy } = ensurePeers()
  if (pinned) {
    // This process drives the load: CPU 1, all its threads, apart from the proxy under test.
    spawnSync('taskset', ['-a', '-p', '-c', LOAD_CPUS as string, String(process.pid)], {
      stdio: 'ignore',
    })
  }
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'))
  chmodSync(dir, 0o755) // nginx's worker (nobody) reaches its temporary paths
  const signer = benchSigner()
  const token = signer.sign({ groups: ['AI-Users'], scp: ['openid'] })
  process.stderr.write(`bench: signing ${FRESH_TOKENS} tokens for the new-token targets\n`)
  const pool = Array.from({ length: FRESH_TOKENS }, (_, i) =>
    signer.sign({ groups: ['AI-Users'], scp: ['openid'], jti: `bench-${i}` }),
  )
  let next = 0
  const freshToken = () => pool[next++ % pool.length] as string

  const up = await freePort()
  const load = { cpus: LOAD_CPUS }
  const proxy = { cpus: PROXY_CPUS }
  const upstream = await startProcess(
    tsx,
    [join(here, 'upstream.ts'), String(up)],
    /listening/,
    load,
  )
  const ports = {
    floor: await freePort(),
    nginx: await freePort(),
    haproxy: await freePort(),
    haproxyJwt: await freePort(),
    fastify: await freePort(),
    gh: await freePort(),
  }
  const floor = await startProcess(
    tsx,
    [join(here, 'node-floor.ts'), String(up), String(ports.floor)],
    /listening/,
    proxy,
  )
  const nginxConf = join(dir, 'nginx.conf')
  writeFileSync(nginxConf, nginxConfig({ dir, port: ports.nginx, upstreamPort: up }))
  const nginxProc = await startProcess(nginx, ['-c', nginxConf], ports.nginx, proxy)
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
  const haproxyProc = await startProcess(
    haproxy,
    ['-db', '-f', haproxyConf],
    ports.haproxyJwt,
    proxy,
  )
  const fastify = await startProcess(
    tsx,
    [join(here, 'fastify-proxy.ts'), String(up), String(ports.fastify)],
    /listening/,
    proxy,
  )
  const ghConf = join(dir, 'gatehouse.yaml')
  writeFileSync(ghConf, stringify(gatehouseConfig(ports.gh, up, signer.jwk)))
  const gatehouse = await startProcess(
    process.execPath,
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
    { name: N.ghFresh, url: at(ports.gh, '/auth'), token: freshToken, pid: pid(gatehouse) },
  ]
  await checkRefusals(signer, [at(ports.haproxyJwt), at(ports.gh, '/auth')])
  const samples = new Map<string, Sample[]>(targets.map((t) => [t.name, []]))
  for (let round = 0; round < rounds; round++) {
    for (const t of targets) {
      const s = await measure(t, duration, connections)
      samples.get(t.name)?.push(s)
      process.stderr.write(
        `round ${round + 1}/${rounds} ${t.name}: ${s.cpuUs.toFixed(1)} µs/request, ${s.rps.toFixed(0)} req/s${s.errors ? `, ${s.errors} non-2xx/errors` : ''}\n`,
      )
    }
  }
  const cpu = new Map([...samples].map(([name, ss]) => [name, ss.map((s) => s.cpuUs)]))
  const of = (name: string, f: (s: Sample) => number) => median((samples.get(name) ?? []).map(f))
  const ratio = (a: string, b: string) => roundRatio(cpu.get(a) ?? [], cpu.get(b) ?? []).toFixed(2)
  const verdicts = judgeGoals(GOALS, cpu)
  const errors = [...samples.values()].flat().reduce((n, s) => n + s.errors, 0)
  const lines = [
    '| target | CPU µs/request | req/s | p50 ms | p99 ms | non-2xx/errors |',
    '|---|---:|---:|---:|---:|---:|',
    ...targets.map(
      ({ name }) =>
        `| ${name} | **${of(name, (s) => s.cpuUs).toFixed(1)}** | ${of(name, (s) => s.rps).toFixed(0)} | ${of(name, (s) => s.p50)} | ${of(name, (s) => s.p99)} | ${(samples.get(name) ?? []).reduce((n, s) => n + s.errors, 0)} |`,
    ),
    '',
    'Goals (docs/design/performance.md), CPU per request, ratio within each round, median over rounds:',
    '',
    ...verdicts.map(formatVerdict),
    '',
    'Other ratios (CPU per request, within each round):',
    '',
    `- gatehouse, no auth / nginx: ${ratio(N.gh, N.nginx)}×; Node floor / nginx: ${ratio(N.floor, N.nginx)}×`,
    `- bare @fastify/http-proxy / Node floor: ${ratio(N.fastify, N.floor)}×`,
    `- MCP policy / JWT + CEL: ${ratio(N.ghAware, N.ghAuth)}×; new token per request / same token: ${ratio(N.ghFresh, N.ghAuth)}× (HAProxy ${ratio(N.haproxyFresh, N.haproxyJwt)}×)`,
    `- HAProxy jwt_verify / HAProxy plain: ${ratio(N.haproxyJwt, N.haproxy)}×`,
  ]
  report(
    `side by side: ${duration}s per target × ${rounds} interleaved rounds (medians), ${connections} connections${pinned ? ', proxies on CPU 0, load and upstream on CPU 1' : ''}`,
    'Shared 2-core machine: absolute figures move with other load; compare the ratios, which are measured in one run. CPU is that of the whole process tree serving the target (nginx master + worker, tsx wrapper + node).',
    lines,
    values.write,
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
