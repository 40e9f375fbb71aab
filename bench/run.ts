/**
 * `npm run bench`: RPS and latency of `POST /mcp` (a small JSON-RPC tools/call) measured in one
 * run against (1) the upstream directly, (2) a bare @fastify/http-proxy, (3) gatehouse without
 * auth, (4) gatehouse with RS256 JWT validation + one CEL rule, (5) the same plus the MCP-aware
 * policy (body read and parsed, per-tool authorization, a per-user, per-tool rate limit), and
 * (3) again with the access log turned off through the admin `/logging` endpoint. Each server is
 * its own process (the gatehouse targets share one);
 * autocannon drives the load from this one. Prints a table and ratios and, with `--write`,
 * appends them to bench/RESULTS.md. Loopback only, bounded in time.
 *
 * Targets are measured in interleaved rounds (A B C D, A B C D, …) and each figure is the median
 * over rounds, so a burst of other load on this shared machine does not land on one target only.
 *
 * Options: --duration <s> per target and round (default 10), --connections <n> (default 50),
 * --rounds <n> (default 3), --write
 */
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '@gatehouse/support'
import autocannon from 'autocannon'
import { stringify } from 'yaml'
import { startProcess, stopProcesses } from './processes.js'
import { benchOptions, report } from './report.js'
import { BENCH_ISSUER, benchToken } from './token.js'

const values = benchOptions({ duration: 10, connections: 50, rounds: 3 })
const { duration, connections, rounds } = values
const here = new URL('.', import.meta.url).pathname
const root = new URL('..', import.meta.url).pathname
const tsx = join(root, 'node_modules/.bin/tsx')

interface Result {
  name: string
  rps: number
  p50: number
  p99: number
  errors: number
  /** CPU time (user + system) of the process serving the target, per request, in µs. */
  cpuUs: number
}

/**
 * CPU time a process has used, in µs (Linux `/proc/<pid>/stat` utime + stime, in clock ticks of
 * 10 ms). Unlike req/s, CPU per request barely moves when other jobs share the cores.
 */
function cpuTimeUs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return (Number(fields[11]) + Number(fields[12])) * 10_000
  } catch {
    return Number.NaN
  }
}

async function measure(
  name: string,
  url: string,
  headers: Record<string, string>,
  server: ChildProcess,
): Promise<Result> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: 'hi' } },
  })
  const opts = {
    url,
    method: 'POST' as const,
    body,
    headers: { 'content-type': 'application/json', ...headers },
    connections,
  }
  await autocannon({ ...opts, duration: 2 }) // warm-up: JIT, pools, verification cache
  const cpuBefore = cpuTimeUs(server.pid)
  const r = await autocannon({ ...opts, duration })
  const cpuUs = (cpuTimeUs(server.pid) - cpuBefore) / Math.max(1, r.requests.total)
  const bad = r.non2xx + r.errors + r.timeouts
  return {
    name,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: bad,
    cpuUs,
  }
}

async function setLogFilter(adminPort: number, level: string): Promise<void> {
  const res = await fetch(
    `http://127.0.0.1:${adminPort}/logging?level=${encodeURIComponent(level)}`,
    { method: 'POST' },
  )
  if (res.status !== 200) throw new Error(`POST /logging answered ${res.status}`)
  await res.text()
}

async function main(): Promise<void> {
  const upstreamPort = await freePort()
  const upstream = await startProcess(
    tsx,
    [join(here, 'upstream.ts'), String(upstreamPort)],
    /listening/,
  )
  const bareProxyPort = await freePort()
  await startProcess(
    tsx,
    [join(here, 'fastify-proxy.ts'), String(upstreamPort), String(bareProxyPort)],
    /listening/,
  )

  const { jwk, token } = await benchToken({ groups: ['AI-Users'], scp: ['openid'] })
  const issuer = BENCH_ISSUER

  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'))
  const ghPort = await freePort()
  const adminPort = await freePort()
  const route = (path: string) => ({
    rules: [
      {
        matches: [{ path: { type: 'PathPrefix', value: path } }],
        backendRefs: [{ name: 'upstream' }],
      },
    ],
  })
  const auth = {
    jwtAuthentication: {
      mode: 'Strict',
      providers: [{ issuer, audiences: ['api://default'], jwks: { inline: { keys: [jwk] } } }],
    },
    authorization: {
      action: 'Allow',
      policy: { matchExpressions: ['"AI-Users" in jwt.groups'] },
    },
  }
  const config = {
    // info: the start-up line tells the benchmark the proxy is ready, and the access log (a line
    // per request) is on, as by default. The admin address lets one target turn it off.
    config: { adminAddr: `127.0.0.1:${adminPort}`, logLevel: 'info' },
    gateways: { default: { port: ghPort, address: '127.0.0.1' } },
    backends: { upstream: { static: { host: '127.0.0.1', port: upstreamPort } } },
    routes: { open: route('/mcp'), authed: route('/auth'), aware: route('/aware') },
    policies: {
      jwt: { targetRefs: [{ name: 'authed' }], traffic: auth },
      // The same authentication on /aware, plus the MCP-aware policy (issue #14): the body is
      // read and parsed, the tool authorized and a per-user, per-tool bucket consulted (large
      // enough never to answer 429 here).
      'jwt-aware': {
        targetRefs: [{ name: 'aware' }],
        traffic: {
          ...auth,
          mcpAuthorization: {
            rules: ['mcp.tool.name in ["echo", "progress"]', { allow: '"admins" in jwt.groups' }],
          },
          localRateLimit: [
            {
              name: 'per-user-tool',
              maxTokens: 1_000_000_000,
              tokensPerFill: 1_000_000_000,
              fillInterval: '1s',
              key: 'jwt.sub + "/" + mcp.tool.name',
              when: 'mcp.method == "tools/call"',
            },
          ],
        },
      },
    },
  }
  writeFileSync(join(dir, 'gatehouse.yaml'), stringify(config))
  const gatehouse = await startProcess(
    process.execPath,
    [join(root, 'proxy/bin/gatehouse.js'), '-f', join(dir, 'gatehouse.yaml')],
    /gatehouse listening/,
  )
  // [name, url, headers, the process serving it]. upstream and the bare proxy run under tsx,
  // whose process is a wrapper: their CPU column is left empty.
  const targets: Array<[string, string, Record<string, string>, ChildProcess | undefined]> = [
    ['direct to upstream', `http://127.0.0.1:${upstreamPort}/mcp`, {}, undefined],
    ['bare @fastify/http-proxy', `http://127.0.0.1:${bareProxyPort}/mcp`, {}, undefined],
    ['gatehouse (no auth)', `http://127.0.0.1:${ghPort}/mcp`, {}, gatehouse],
    [
      'gatehouse (no auth), access log off',
      `http://127.0.0.1:${ghPort}/mcp?access-log=off`,
      {},
      gatehouse,
    ],
    [
      'gatehouse (RS256 JWT + 1 CEL rule)',
      `http://127.0.0.1:${ghPort}/auth`,
      { authorization: `Bearer ${token}` },
      gatehouse,
    ],
    [
      'gatehouse (JWT + CEL + MCP-aware: mcpAuthorization, localRateLimit)',
      `http://127.0.0.1:${ghPort}/aware`,
      { authorization: `Bearer ${token}` },
      gatehouse,
    ],
  ]
  const runs: Result[][] = targets.map(() => [])
  for (let round = 0; round < rounds; round++) {
    for (const [i, [name, url, headers, server]] of targets.entries()) {
      // The same process with its access log off (POST /logging), so that only the log differs.
      const quiet = url.endsWith('?access-log=off')
      if (quiet) await setLogFilter(adminPort, 'info,proxy::access=off')
      runs[i]?.push(await measure(name, url, headers, server ?? upstream))
      if (quiet) await setLogFilter(adminPort, 'info')
    }
  }
  const median = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b)
    return sorted[Math.floor(sorted.length / 2)] ?? 0
  }
  const results: Result[] = runs.map((rs, i) => ({
    name: targets[i]?.[0] ?? '',
    rps: median(rs.map((r) => r.rps)),
    p50: median(rs.map((r) => r.p50)),
    p99: median(rs.map((r) => r.p99)),
    errors: rs.reduce((n, r) => n + r.errors, 0),
    cpuUs: targets[i]?.[3] ? median(rs.map((r) => r.cpuUs)) : Number.NaN,
  }))

  const [direct, bare, gh, ghQuiet, ghAuth, ghAware] = results as [
    Result,
    Result,
    Result,
    Result,
    Result,
    Result,
  ]
  const lines = [
    `| target | req/s | p50 ms | p99 ms | non-2xx/errors | gatehouse CPU µs/request |`,
    `|---|---:|---:|---:|---:|---:|`,
    ...results.map(
      (r) =>
        `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} | ${Number.isNaN(r.cpuUs) ? '' : r.cpuUs.toFixed(0)} |`,
    ),
    '',
    `- gatehouse / bare @fastify/http-proxy: **${(gh.rps / bare.rps).toFixed(2)}×** (target ≥ 1.0×)`,
    `- gatehouse with JWT + CEL / gatehouse without auth: **${(ghAuth.rps / gh.rps).toFixed(2)}×** (target ≥ 0.95×)`,
    `- MCP-aware route / route-only (both JWT + CEL): **${(ghAware.rps / ghAuth.rps).toFixed(2)}×** req/s (target ≥ 0.9×); CPU per request ${(ghAware.cpuUs / ghAuth.cpuUs).toFixed(2)}×`,
    `- access log on / off (no auth): ${(gh.rps / ghQuiet.rps).toFixed(2)}× req/s; CPU per request ${(gh.cpuUs / ghQuiet.cpuUs).toFixed(2)}×`,
    `- gatehouse / direct: ${(gh.rps / direct.rps).toFixed(2)}×`,
  ]
  report(
    `${duration}s per target × ${rounds} interleaved rounds (medians), ${connections} connections`,
    'Shared 2-core machine: absolute figures move with other load; compare the ratios, which are measured in one run.',
    lines,
    values.write,
  )
}

try {
  await main()
} finally {
  stopProcesses()
}
