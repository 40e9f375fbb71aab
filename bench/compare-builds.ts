/**
 * `npm run bench:compare -- --baseline <dir>`: gatehouse's CPU time per request, this checkout's
 * build against the build of another checkout (`<dir>`, e.g. a worktree of an older commit with
 * its own `npm ci && npm run build`), in one run. Both serve the same configuration in front of
 * one upstream: `/mcp` without auth, `/auth` with RS256 JWT validation and one CEL rule. Each
 * round measures every (route, build) pair in turn (interleaved), after a 2 s warm-up, for a fixed
 * number of requests; the figure is the median over rounds, and the ratio this / baseline is
 * what to read (absolute CPU times move with the machine). Loopback only; every process stopped.
 *
 * Both run on `--node` (a node-lts major version, default 22, or `current`) directly, and the
 * CPU read is that of each one's process tree (bench/cpu.ts): on Node 20, proxy/bin/gatehouse.js
 * relaunches itself as a child on Node 22, whose CPU a read of the launcher alone left out. With
 * `--flags` (Node/V8 flags for this checkout only, e.g. `--flags=--max-semi-space-size=16`) and
 * `--baseline .`, the comparison is of a runtime setting on the same build.
 *
 * Options: --baseline <dir> (required), --rounds <n> (default 4), --requests <n> per measurement
 * (default 20000), --connections <n> (default 20), --node <major>, --flags <flags>.
 */
import type { ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { freePort } from '@gatehouse/support'
import autocannon from 'autocannon'
import { stringify } from 'yaml'
import { treeCpuUs } from './cpu.js'
import { nodeBinary, parseList } from './matrix.js'
import { startProcess, stopProcesses } from './processes.js'
import { BENCH_ISSUER, benchToken } from './token.js'

const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '4' },
    requests: { type: 'string', default: '20000' },
    connections: { type: 'string', default: '20' },
    node: { type: 'string', default: '22' },
    flags: { type: 'string', default: '' },
  },
})
const root = new URL('..', import.meta.url).pathname
const here = new URL('.', import.meta.url).pathname
const baseline = values.baseline ? resolve(values.baseline) : undefined
if (!baseline || !existsSync(join(baseline, 'proxy/bin/gatehouse.js'))) {
  process.stderr.write(
    'bench:compare: --baseline <dir> must name a checkout with a build (proxy/bin/gatehouse.js)\n',
  )
  process.exit(2)
}
const rounds = Number(values.rounds)
const requests = Number(values.requests)
const connections = Number(values.connections)

/** CPU time (user + system) of a process and its descendants so far, in µs. */
function cpuTimeUs(pid: number | undefined): number {
  return treeCpuUs(pid ?? Number.NaN)
}
const node = nodeBinary(values.node ?? '22', root, process.execPath)

async function main(baselineDir: string): Promise<void> {
  const upstreamPort = await freePort()
  await startProcess(
    join(root, 'node_modules/.bin/tsx'),
    [join(here, 'upstream.ts'), String(upstreamPort)],
    /listening/,
  )
  const { jwk, token } = await benchToken({ groups: ['AI-Users'] })
  const issuer = BENCH_ISSUER

  const builds: Array<{
    name: string
    dir: string
    port: number
    flags: string[]
    process?: ChildProcess
  }> = [
    {
      name: 'this checkout',
      dir: root,
      port: await freePort(),
      flags: parseList((values.flags ?? '').replaceAll(' ', ',')),
    },
    { name: 'baseline', dir: baselineDir, port: await freePort(), flags: [] },
  ]
  const route = (path: string) => ({
    rules: [
      {
        matches: [{ path: { type: 'PathPrefix', value: path } }],
        backendRefs: [{ name: 'upstream' }],
      },
    ],
  })
  for (const build of builds) {
    const config = {
      config: { adminAddr: 'off', logLevel: 'info' },
      gateways: { default: { port: build.port, address: '127.0.0.1' } },
      backends: { upstream: { static: { host: '127.0.0.1', port: upstreamPort } } },
      // open: the unauthenticated baseline, public on purpose.
      routes: { open: { ...route('/mcp'), allowUnauthenticated: true }, authed: route('/auth') },
      policies: {
        jwt: {
          targetRefs: [{ name: 'authed' }],
          traffic: {
            jwtAuthentication: {
              mode: 'Strict',
              providers: [
                { issuer, audiences: ['api://default'], jwks: { inline: { keys: [jwk] } } },
              ],
            },
            authorization: {
              action: 'Allow',
              policy: { matchExpressions: ['"AI-Users" in jwt.groups'] },
            },
          },
        },
      },
    }
    const file = join(mkdtempSync(join(tmpdir(), 'gatehouse-compare-')), 'gatehouse.yaml')
    writeFileSync(file, stringify(config))
    build.process = await startProcess(
      node,
      [...build.flags, join(build.dir, 'proxy/bin/gatehouse.js'), '-f', file],
      /gatehouse listening/,
    )
  }

  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: 'hi' } },
  })
  const paths = ['/mcp', '/auth']
  const figures = new Map<string, number[]>()
  for (let round = 0; round < rounds; round++) {
    for (const path of paths) {
      for (const build of builds) {
        const opts = {
          url: `http://127.0.0.1:${build.port}${path}`,
          method: 'POST' as const,
          body,
          connections,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        }
        await autocannon({ ...opts, duration: 2 })
        const before = cpuTimeUs(build.process?.pid)
        const r = await autocannon({ ...opts, amount: requests })
        if (r.non2xx + r.errors > 0) throw new Error(`${build.name} ${path}: failed requests`)
        const us = (cpuTimeUs(build.process?.pid) - before) / r.requests.total
        const key = `${path} ${build.name}`
        figures.set(key, [...(figures.get(key) ?? []), us])
        process.stdout.write(`round ${round + 1} ${key}: ${us.toFixed(0)} µs/request\n`)
      }
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
  process.stdout.write(
    `\n| route | this checkout µs/request | baseline µs/request | this / baseline | per round |\n|---|---:|---:|---:|---|\n`,
  )
  for (const path of paths) {
    const mine = figures.get(`${path} this checkout`) ?? []
    const base = figures.get(`${path} baseline`) ?? []
    const perRound = mine.map((m, i) => (m / (base[i] ?? Number.NaN)).toFixed(2)).join(', ')
    process.stdout.write(
      `| ${path}${values.flags ? ` (${values.flags})` : ''} | ${median(mine).toFixed(0)} | ${median(base).toFixed(0)} | ${(median(mine) / median(base)).toFixed(2)}× | ${perRound} |\n`,
    )
  }
}

try {
  await main(baseline)
} finally {
  stopProcesses()
}
