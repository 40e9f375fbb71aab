/**
 * `npm run bench:profile`: what gatehouse spends its CPU on under `npm run bench`'s load. For
 * each of gatehouse without auth and with RS256 JWT + one CEL rule, a gatehouse of its own runs
 * under `node --cpu-prof` (pinned to CPU 0; load and upstream on CPU 1), takes `--duration`
 * seconds of load after a warm-up, is stopped, and its profile is read: the top `--top` functions
 * by self time (idle left out), printed and, with `--write`, appended to bench/RESULTS.md. The
 * `.cpuprofile` files stay in the directory printed, for Chrome DevTools or speedscope.
 *
 * gatehouse runs on `--node` (a major version of the node-lts packages, default 22, or `current`)
 * directly, so that the profile is the gateway's, not a launcher's; `--flags` adds V8/Node flags
 * (`--flags=--max-semi-space-size=16`) to compare a runtime setting.
 *
 * Options: --duration <s> (default 10), --connections <n> (default 50), --top <n> (default 15),
 * --pin <0|1>, --node <major>, --flags <flags>, --write.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '@gatehouse/support'
import { stringify } from 'yaml'
import { type CpuProfile, selfTimeByModule, topSelfTime } from './cpuprofile.js'
import { gatehouseConfig, measure } from './load.js'
import { nodeBinary, parseList } from './matrix.js'
import { startProcess, stopProcess, stopProcesses } from './processes.js'
import { benchOptions, report } from './report.js'
import { benchSigner } from './token.js'

const values = benchOptions(
  { duration: 10, connections: 50, top: 15, pin: availableParallelism() >= 2 ? 1 : 0 },
  { node: '22', flags: '' },
)
const pinned = values.pin === 1
const here = new URL('.', import.meta.url).pathname
const root = new URL('..', import.meta.url).pathname

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
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-profile-'))
  const lines: string[] = []
  for (const [name, path, auth] of [
    ['gatehouse, no auth', '/mcp', undefined],
    ['gatehouse, RS256 JWT + 1 CEL rule', '/auth', token],
  ] as const) {
    const port = await freePort()
    const profDir = join(dir, path.slice(1))
    mkdirSync(profDir)
    const file = join(profDir, 'gatehouse.yaml')
    writeFileSync(file, stringify(gatehouseConfig(port, up, signer.jwk)))
    const gh = await startProcess(
      nodeBinary(values.node, root, process.execPath),
      [
        ...parseList(values.flags.replaceAll(' ', ',')),
        '--cpu-prof',
        '--cpu-prof-dir',
        profDir,
        join(root, 'proxy/bin/gatehouse.js'),
        '-f',
        file,
      ],
      /gatehouse listening/,
      { cpus: pinned ? '0' : undefined },
    )
    const s = await measure(
      { name, url: `http://127.0.0.1:${port}${path}`, token: auth, pid: gh.pid as number },
      values.duration,
      values.connections,
    )
    await stopProcess(gh)
    const prof = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'))
    if (!prof) throw new Error(`no .cpuprofile in ${profDir}: gatehouse did not exit cleanly`)
    const profile = JSON.parse(readFileSync(join(profDir, prof), 'utf8')) as CpuProfile
    lines.push(
      `### ${name}: ${s.cpuUs.toFixed(1)} µs/request, ${s.rps.toFixed(0)} req/s (profiled)`,
      '',
      '| function (self time, idle left out) | share |',
      '|---|---:|',
      ...topSelfTime(profile, values.top).map(
        (f) => `| \`${f.fn}\` | ${(f.share * 100).toFixed(1)} % |`,
      ),
      '',
      `By origin: ${selfTimeByModule(profile)
        .slice(0, 8)
        .map((m) => `${m.fn} ${(m.share * 100).toFixed(0)} %`)
        .join(', ')}`,
      '',
    )
  }
  process.stderr.write(`bench:profile: profiles in ${dir}\n`)
  report(
    `profile: top ${values.top} functions by self time under ${values.connections} connections for ${values.duration}s, gatehouse on Node ${values.node}${values.flags ? ` ${values.flags}` : ''}`,
    'Sampled with `node --cpu-prof` (which itself costs some CPU per request); shares of the non-idle samples of the whole process life (start-up and a 2 s warm-up included).',
    lines,
    values.write,
  )
}

try {
  await main()
} finally {
  stopProcesses()
}
