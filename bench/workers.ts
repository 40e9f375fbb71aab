/**
 * `npm run bench:workers`: how gatehouse's throughput scales from 1 to 2 data-plane processes
 * (`config.workers`, docs/design/performance.md), without auth and with RS256 JWT + one CEL rule, in
 * interleaved rounds (figures: medians; the scaling ratio is taken within each round). Both
 * gatehouses run from the start on their own ports, may use CPUs 0 and 1; this process (autocannon,
 * the load) and the upstream are pinned to CPU 1 (`taskset`). On a 2-core machine the second
 * worker therefore shares CPU 1 with the load generator: 2× is out of reach by construction, and
 * what the figure shows is what a second core buys when the load generator also needs one.
 *
 * A build whose configuration does not accept `config.workers` (before docs/design/performance.md) makes
 * this say so and exit 2, measuring nothing. Options: --duration <s> (default 10),
 * --connections <n> (default 50), --rounds <n> (default 3), --pin <0|1>, --write.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '@gatehouse/support'
import { stringify } from 'yaml'
import { median, roundRatio } from './cpu.js'
import { checkRefusals, gatehouseConfig, measure, type Sample, type Target } from './load.js'
import { startProcess, stopProcesses } from './processes.js'
import { benchOptions, report } from './report.js'
import { benchSigner } from './token.js'

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

/** Starts gatehouse with `workers` data-plane processes; undefined if the config refuses it. */
async function startGatehouse(
  workers: number,
  upstreamPort: number,
  jwk: unknown,
): Promise<{ port: number; pid: number } | undefined> {
  const port = await freePort()
  const file = join(mkdtempSync(join(tmpdir(), 'gatehouse-bench-workers-')), 'gatehouse.yaml')
  writeFileSync(file, stringify(gatehouseConfig(port, upstreamPort, jwk, workers)))
  const check = spawnSync(
    process.execPath,
    [join(root, 'proxy/bin/gatehouse.js'), '--validate', '-f', file],
    { encoding: 'utf8' },
  )
  if (check.status !== 0 && /workers/.test(`${check.stdout}${check.stderr}`)) return undefined
  // With workers, the primary's line comes once every worker listens ("…; 2 workers").
  const ready = workers === 1 ? /gatehouse listening/ : /gatehouse listening[^\n]*\d+ workers/
  const gh = await startProcess(
    process.execPath,
    [join(root, 'proxy/bin/gatehouse.js'), '-f', file],
    ready,
    { cpus: pinned ? '0,1' : undefined },
  )
  return { port, pid: gh.pid as number }
}

async function main(): Promise<void> {
  if (pinned)
    spawnSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' })
  const signer = benchSigner()
  const token = signer.sign({ groups: ['AI-Users'], scp: ['openid'] })
  const up = await freePort()
  await startProcess(
    join(root, 'node_modules/.bin/tsx'),
    [join(here, 'upstream.ts'), String(up)],
    /listening/,
    { cpus: pinned ? '1' : undefined },
  )
  const one = await startGatehouse(1, up, signer.jwk)
  const two = await startGatehouse(2, up, signer.jwk)
  if (!one || !two) {
    process.stderr.write(
      'bench:workers: this build does not accept config.workers (docs/design/performance.md not merged yet); nothing measured\n',
    )
    process.exitCode = 2
    return
  }
  await checkRefusals(signer, [
    `http://127.0.0.1:${one.port}/auth`,
    `http://127.0.0.1:${two.port}/auth`,
  ])
  const targets: Target[] = [
    { name: 'no auth, 1 worker', url: `http://127.0.0.1:${one.port}/mcp`, pid: one.pid },
    { name: 'no auth, 2 workers', url: `http://127.0.0.1:${two.port}/mcp`, pid: two.pid },
    { name: 'JWT + CEL, 1 worker', url: `http://127.0.0.1:${one.port}/auth`, token, pid: one.pid },
    { name: 'JWT + CEL, 2 workers', url: `http://127.0.0.1:${two.port}/auth`, token, pid: two.pid },
  ]
  const samples = new Map<string, Sample[]>(targets.map((t) => [t.name, []]))
  for (let round = 0; round < rounds; round++) {
    for (const t of targets) {
      const s = await measure(t, duration, connections)
      samples.get(t.name)?.push(s)
      process.stderr.write(
        `round ${round + 1}/${rounds} ${t.name}: ${s.rps.toFixed(0)} req/s, ${s.cpuUs.toFixed(1)} µs/request\n`,
      )
    }
  }
  const of = (name: string, f: (s: Sample) => number) => median((samples.get(name) ?? []).map(f))
  const rps = (name: string) => (samples.get(name) ?? []).map((s) => s.rps)
  const errors = [...samples.values()].flat().reduce((n, s) => n + s.errors, 0)
  const lines = [
    '| gatehouse | req/s | CPU µs/request (process tree) | p50 ms | p99 ms | non-2xx/errors |',
    '|---|---:|---:|---:|---:|---:|',
    ...targets.map(
      ({ name }) =>
        `| ${name} | **${of(name, (s) => s.rps).toFixed(0)}** | ${of(name, (s) => s.cpuUs).toFixed(1)} | ${of(name, (s) => s.p50)} | ${of(name, (s) => s.p99)} | ${(samples.get(name) ?? []).reduce((n, s) => n + s.errors, 0)} |`,
    ),
    '',
    `- 2 workers / 1 worker, req/s within each round: **${roundRatio(rps('no auth, 2 workers'), rps('no auth, 1 worker')).toFixed(2)}×** without auth, **${roundRatio(rps('JWT + CEL, 2 workers'), rps('JWT + CEL, 1 worker')).toFixed(2)}×** with JWT + CEL`,
  ]
  report(
    `workers: 1 against 2, ${duration}s per target × ${rounds} interleaved rounds (medians), ${connections} connections${pinned ? ', gatehouse on CPUs 0-1, load and upstream on CPU 1' : ''}`,
    'Shared 2-core machine: the second worker shares CPU 1 with the load generator, so 2× is out of reach here; compare within the run.',
    lines,
    values.write,
  )
  if (errors > 0) process.exitCode = 1
}

try {
  await main()
} finally {
  stopProcesses()
}
