/**
 * `npm run bench:scale`: what the size of the work costs the data plane (docs/design/performance.md,
 * "Growth"; docs/reliability.md, "Large configurations").
 *
 * Per request (the default): for each scenario of bench/growth.ts — routes (PathPrefix, Exact,
 * mixed), policies (one per route), CEL rules in one policy, distinct users (tokens: verification
 * cache, per-user rate-limit keys) — and each size, a gatehouse of its own (on `--node`, pinned to
 * CPU 0 with the load and the upstream on CPU 1 when `--pin 1`) takes `npm run bench`'s load
 * spread over the routes (or users), and the CPU µs per request of its process tree, p99, req/s
 * and RSS are read; printed as a table against each scenario's smallest size and a text plot.
 * Hostnames are not a scenario: routes do not match by hostname (docs/configuration.md,
 * `spec.hostnames`); a host selects a listener, not a route.
 *
 * Reload (`--reload`): for each of `--routes` (the route counts above 1), the size of the
 * generated standalone file, the time to load it, and, while a reload of it runs, the longest
 * event-loop stall (`monitorEventLoopDelay`) and the RSS after it — measured in this process.
 * Reload time and stall under load are bench/reload-stall.ts's; the report leaves their row to it.
 *
 * Speed is measured here only, never in a test. Options: `--scenarios <list>` (default all),
 * `--routes 1,100,1000,10000`, `--policies 1,100,1000`, `--rules 1,10,100,1000`, `--users 1,100,1000,10000,100000`,
 * `--duration <s>` (default 5), `--connections <n>` (50), `--node <major>` (22), `--pin <0|1>`,
 * `--reload`, `--write` (a dated section in RESULTS.md).
 */
import { spawnSync } from 'node:child_process'
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { loadConfigSources, startGatehouse } from '@gatehouse/proxy'
import { loadConfigSourcesOffThread } from '@gatehouse/proxy/config/load-thread'
import { createLogging } from '@gatehouse/proxy/telemetry/logging'
import { freePort } from '@gatehouse/support'
import {
  type GrowthRow,
  growthConfig,
  growthTable,
  growthYaml,
  requestPaths,
  SCENARIOS,
  type Scenario,
  textPlot,
} from './growth.js'
import { BODY, measure } from './load.js'
import { manyRoutesYaml } from './many-routes.js'
import { nodeBinary, parseList } from './matrix.js'
import { startProcess, stopProcess, stopProcesses } from './processes.js'
import { writeReadmeParagraph } from './readme.js'
import { BENCH_ISSUER, benchSigner } from './token.js'

const { values } = parseArgs({
  options: {
    scenarios: { type: 'string', default: SCENARIOS.join(',') },
    routes: { type: 'string', default: '1,100,1000,10000' },
    policies: { type: 'string', default: '1,100,1000' },
    rules: { type: 'string', default: '1,10,100,1000' },
    users: { type: 'string', default: '1,100,1000,10000,100000' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    node: { type: 'string', default: '22' },
    pin: { type: 'string', default: availableParallelism() >= 2 ? '1' : '0' },
    reload: { type: 'boolean' },
    write: { type: 'boolean' },
  },
})
const here = new URL('.', import.meta.url).pathname
const root = new URL('..', import.meta.url).pathname
const numbers = (text: string | undefined) => parseList(text ?? '').map(Number)

/** A standalone configuration with `n` routes, one JWT policy (inline key, one CEL rule) on all. */
export function scaleConfig(n: number, maxAge = 60): string {
  const out = [
    'config: { adminAddr: "off", logLevel: warn }',
    'gateways:\n  default: { port: 3000, address: 127.0.0.1 }',
    'backends:\n  b: { static: { host: 127.0.0.1, port: 9 } }',
    'routes:',
    manyRoutesYaml(n, maxAge, 'default'),
  ]
  return `${out.join('\n')}\n`
}

/** Per-request CPU, p99 and RSS of every scenario at every size (see the module comment). */
async function growthRows(): Promise<GrowthRow[]> {
  const pinned = values.pin === '1'
  if (pinned)
    spawnSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' })
  const node = nodeBinary(values.node ?? '22', root, process.execPath)
  const duration = Number(values.duration)
  const connections = Number(values.connections)
  // ES256: up to 100,000 users' tokens signed in seconds (RS256 would take minutes).
  const signer = benchSigner('ES256')
  const jwt = { issuer: BENCH_ISSUER, audience: 'api://default', jwk: signer.jwk }
  const token = signer.sign({ groups: ['AI-Users'] })
  const up = await freePort()
  const upstream = await startProcess(
    node,
    ['--import', 'tsx', join(here, 'upstream.ts'), String(up)],
    /listening/,
    { cpus: pinned ? '1' : undefined },
  )
  const sizes: Record<Scenario, number[]> = {
    prefix: numbers(values.routes),
    exact: numbers(values.routes),
    mixed: numbers(values.routes),
    policies: numbers(values.policies),
    rules: numbers(values.rules),
    users: numbers(values.users),
  }
  const rows: GrowthRow[] = []
  for (const scenario of parseList(values.scenarios ?? '') as Scenario[]) {
    if (!SCENARIOS.includes(scenario)) throw new Error(`--scenarios: no scenario "${scenario}"`)
    for (const size of sizes[scenario]) {
      const port = await freePort()
      const dir = mkdtempSync(join(tmpdir(), 'gatehouse-scale-'))
      const file = join(dir, 'gatehouse.yaml')
      writeFileSync(file, growthYaml(growthConfig(scenario, size, port, up, jwt)))
      const gh = await startProcess(
        node,
        [join(root, 'proxy/bin/gatehouse.js'), '-f', file],
        port,
        // 10,000 routes take tens of seconds to load on a loaded 2-core machine.
        { cpus: pinned ? '0' : undefined, readyTimeoutMs: 300_000 },
      )
      const paths = requestPaths(scenario, size)
      let p = 0
      let u = 0
      const users =
        scenario === 'users'
          ? Array.from({ length: size }, (_, i) =>
              signer.sign({ groups: ['AI-Users'], sub: `user-${i}` }),
            )
          : []
      const s = await measure(
        {
          name: `${scenario} ${size}`,
          url: `http://127.0.0.1:${port}${paths[0]}`,
          pid: gh.pid as number,
          body: BODY,
          ...(paths.length > 1 && { path: () => paths[p++ % paths.length] as string }),
          ...(scenario === 'users'
            ? {
                token: () => users[u++ % users.length] as string,
                // every user seen once before the measurement: its rate-limit key exists
                warmupRequests: Math.max(size, 2000),
              }
            : scenario === 'policies' || scenario === 'rules'
              ? { token }
              : {}),
        },
        duration,
        connections,
      )
      await stopProcess(gh)
      const row = { scenario, size, cpuUs: s.cpuUs, p99: s.p99, rps: s.rps, rss: s.rss }
      rows.push(row)
      process.stderr.write(
        `bench:scale ${scenario} ${size}: ${s.cpuUs.toFixed(1)} µs/request, p99 ${s.p99} ms, ${s.rps.toFixed(0)} req/s, ${(s.rss / 1048576).toFixed(0)} MiB${s.errors ? `, ${s.errors} non-2xx/errors` : ''}\n`,
      )
      if (s.errors > 0) process.exitCode = 1
    }
  }
  await stopProcess(upstream)
  return rows
}

/** Load, reload and the stall of a reload, in this process, for each route count. */
async function reloadRows(counts: readonly number[]): Promise<string[]> {
  const lines: string[] = []
  for (const n of counts) {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-scale-'))
    const file = join(dir, 'gatehouse.yaml')
    const text = scaleConfig(n)
    writeFileSync(file, text)
    // Start-up loads on the main thread (nothing to serve yet); a reload as the CLI wires it, parsed
    // and validated on a worker thread (docs/reliability.md, "Large configurations").
    const load = () => loadConfigSourcesOffThread([file], { env: {} })
    let t = performance.now()
    const source = await loadConfigSources([file], { env: {} })
    const loadMs = performance.now() - t
    const gh = await startGatehouse({
      config: source.config,
      source,
      loadConfig: load,
      ephemeralPorts: true,
      logging: createLogging({ filter: 'error' }),
    })
    writeFileSync(file, scaleConfig(n, 61))
    const stall = monitorEventLoopDelay({ resolution: 10 })
    stall.enable()
    t = performance.now()
    const record = await gh.reload()
    const reloadMs = performance.now() - t
    stall.disable()
    const rss = process.memoryUsage().rss / 1024 / 1024
    const peak = process.resourceUsage().maxRSS / 1024
    await gh.stop('bench finished')
    lines.push(
      `| ${n} | ${(text.length / 1024 / 1024).toFixed(1)} MiB | ${loadMs.toFixed(0)} ms | ${reloadMs.toFixed(0)} ms (${record.result}) | ${(stall.max / 1e6).toFixed(0)} ms | ${rss.toFixed(0)} MiB | ${peak.toFixed(0)} MiB |`,
    )
    console.log(lines.at(-1))
  }

  return lines
}

const loadBefore = loadavg()
  .map((l) => l.toFixed(2))
  .join(', ')
const sections: string[] = []
const date = new Date().toISOString().slice(0, 10)
const rows = values.scenarios === '' ? [] : await growthRows().finally(stopProcesses)
if (rows.length > 0) {
  sections.push(`## bench:scale, per request — ${date}, Node ${values.node}, ${cpus().length} cores

Shared 2-core machine: absolute times move with whatever else runs on it (its load average is given here):
compare the ratios within this run (each size against its scenario's smallest). Load average (1, 5, 15 min) before:
${loadBefore}; after: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(
      ', ',
    )}. ${values.duration} s of ${values.connections} connections per size${values.pin === '1' ? ', gatehouse on CPU 0, load and upstream on CPU 1' : ', nothing pinned'};
access log off (what grows is measured, not the log). CPU is gatehouse's process tree's.

${growthTable(rows).join('\n')}

\`\`\`text
${textPlot(rows).join('\n')}
\`\`\`

Reload time and request stall for the same route counts: bench/reload-stall.ts (row to be filled
from its run).
`)
}
if (values.reload) {
  const lines = await reloadRows(numbers(values.routes).filter((n) => n > 1))
  const load = loadavg()[0]?.toFixed(0)
  sections.push(`## bench:scale — ${date}, Node ${process.version}, ${cpus().length} cores (shared machine, load average ${load})

| routes | file | load | reload | longest event-loop stall during the reload | RSS after | peak RSS so far |
|---|---|---|---|---|---|---|
${lines.join('\n')}
`)
}
for (const section of sections) {
  console.log(section)
  if (values.write) {
    appendFileSync(new URL('RESULTS.md', import.meta.url), `\n${section}`)
    writeReadmeParagraph()
  }
}
