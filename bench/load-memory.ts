/**
 * `npm run bench:load-memory`: docs/design/performance.md's two memory goals under request load,
 * on gatehouse alone (the peers' CPU is `npm run bench`'s): RSS under `npm run bench`'s load (50
 * connections, `POST /mcp` through no auth, RS256 JWT + CEL, the MCP-aware policy, and JWT + CEL
 * with a new token on each request out of 12,000, more than the verification cache holds; goal
 * ≤ 150 MiB on Node 22), and the RSS read every second for `--settle` s after the load stops
 * (goal: back within 10 % of the RSS before the load within 30 s).
 *
 * `--flags "<node flags>"` runs the gateway with V8/Node flags (`--max-semi-space-size=…`,
 * `--max-old-space-size=…`) to weigh them; `--node <major>` (22); `--pin 1` puts the gateway on
 * CPU 0 and the load and upstream on CPU 1. RSS is the gateway process tree's (bench/rss.ts); V8's
 * heap before and after comes from the admin interface's `GET /memory`.
 * Options also `--duration <s>` per target (default 10), `--connections <n>` (50), `--settle <s>`
 * (30), `--write`. Speed is not judged here; nothing asserts.
 */

import { mkdtempSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '@gatehouse/support'
import { stringify } from 'yaml'
import { BODY, gatehouseConfig, MODERN_BODY, MODERN_HEADERS, measure, type Target } from './load.js'
import { nodeBinary } from './matrix.js'
import { startProcess, stopProcess, stopProcesses } from './processes.js'
import { benchOptions, report } from './report.js'
import { type RssSample, recovered, treeRss } from './rss.js'
import { benchSigner } from './token.js'

const values = benchOptions(
  {
    duration: 10,
    connections: 50,
    settle: 30,
    node: 22,
    pin: availableParallelism() >= 2 ? 1 : 0,
  },
  { flags: '' },
)
const root = new URL('..', import.meta.url).pathname
const here = new URL('.', import.meta.url).pathname
const MIB = 1024 * 1024
const mib = (b: number) => (b / MIB).toFixed(1)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const FRESH_TOKENS = 12_000

async function main(): Promise<void> {
  const node = nodeBinary(String(values.node), root, process.execPath)
  const pinned = values.pin === 1
  const proxy = { cpus: pinned ? '0' : undefined }
  const load = { cpus: pinned ? '1' : undefined }
  const signer = benchSigner()
  const token = signer.sign({ groups: ['AI-Users'], scp: ['openid'] })
  process.stderr.write(`bench:load-memory: signing ${FRESH_TOKENS} tokens\n`)
  const pool = Array.from({ length: FRESH_TOKENS }, (_, i) =>
    signer.sign({ groups: ['AI-Users'], sub: `user-${i}` }),
  )
  let next = 0
  const up = await freePort()
  await startProcess(
    node,
    ['--import', 'tsx', join(here, 'upstream.ts'), String(up)],
    /listening/,
    load,
  )
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-loadmem-'))
  const file = join(dir, 'gatehouse.yaml')
  // The admin interface on, for `GET /memory` (V8's heap against the RSS) before and after.
  const admin = `127.0.0.1:${await freePort()}`
  const config = gatehouseConfig(port, up, signer.jwk) as { config: Record<string, unknown> }
  config.config.adminAddr = admin
  writeFileSync(file, stringify(config))
  const heap = async () => {
    const r = (await (await fetch(`http://${admin}/memory`)).json()) as {
      process: { heapUsed: number; heapTotal: number; external: number }
    }
    return r.process
  }
  const flags = values.flags.split(/\s+/).filter(Boolean)
  const gh = await startProcess(
    node,
    [...flags, join(root, 'proxy/bin/gatehouse.js'), '-f', file],
    /gatehouse listening/,
    proxy,
  )
  const pid = gh.pid as number
  const at = (path: string) => `http://127.0.0.1:${port}${path}`
  const targets: Target[] = [
    { name: 'no auth', url: at('/mcp'), pid },
    { name: 'RS256 JWT + 1 CEL rule', url: at('/auth'), token, pid },
    { name: 'JWT + CEL + MCP policy', url: at('/aware'), token, pid },
    {
      name: 'MCP policy, 2026-07-28 headers',
      url: at('/aware'),
      token,
      pid,
      body: MODERN_BODY,
      headers: { ...MODERN_HEADERS },
    },
    {
      name: 'JWT + CEL, new token per request',
      url: at('/auth'),
      token: () => pool[next++ % pool.length] as string,
      pid,
      body: BODY,
    },
  ]
  await sleep(5000)
  const load0 = loadavg()
  const before = treeRss(pid)
  const heapBefore = await heap()
  const under: Array<[string, number]> = []
  const cpu: number[] = []
  for (const t of targets) {
    const s = await measure(t, values.duration, values.connections)
    under.push([t.name, s.rss])
    cpu.push(s.cpuUs)
    process.stderr.write(
      `bench:load-memory: ${t.name}: ${mib(s.rss)} MiB, ${s.rps.toFixed(0)} req/s, ${s.cpuUs.toFixed(1)} µs/request\n`,
    )
  }
  const stopped = performance.now()
  const after: RssSample[] = []
  for (let s = 1; s <= values.settle; s++) {
    await sleep(stopped + s * 1000 - performance.now())
    after.push({ at: s, rss: treeRss(pid) })
  }
  const heapAfter = await heap()
  const load1 = loadavg()
  await stopProcess(gh)
  const peak = Math.max(...under.map(([, r]) => r))
  const back = recovered(after, before, 0.1)
  const last = after.at(-1)?.rss ?? Number.NaN
  const lines = [
    `| gatehouse RSS (MiB), Node ${values.node}${flags.length ? ` ${flags.join(' ')}` : ''} | value | CPU µs/request |`,
    '|---|---:|---:|',
    `| before the load (5 s after start) | ${mib(before)} | |`,
    ...under.map(
      ([name, rss], i) => `| as the ${name} load ended | ${mib(rss)} | ${cpu[i]?.toFixed(1)} |`,
    ),
    ...after
      .filter((s) => [1, 5, 10, 20, 30].includes(s.at) || s === back)
      .map((s) => `| ${s.at} s after the load | ${mib(s.rss)} | |`),
    '',
    '| V8 (`GET /memory`, MiB) | heap used | heap total | external |',
    '|---|---:|---:|---:|',
    `| before the load | ${mib(heapBefore.heapUsed)} | ${mib(heapBefore.heapTotal)} | ${mib(heapBefore.external)} |`,
    `| ${values.settle} s after it | ${mib(heapAfter.heapUsed)} | ${mib(heapAfter.heapTotal)} | ${mib(heapAfter.external)} |`,
    '',
    `- under ${values.connections} connections ≤ 150 MiB: ${peak <= 150 * MIB ? '**met**' : '**missed**'} (highest ${mib(peak)} MiB)`,
    `- back within 10 % of ${mib(before)} MiB within ${values.settle} s: ${back ? `**met** (${mib(back.rss)} MiB after ${back.at} s)` : `**missed** (${mib(last)} MiB after ${values.settle} s, +${((last / before - 1) * 100).toFixed(0)} %)`}`,
    `- load average before / after: ${load0.map((l) => l.toFixed(2)).join(', ')} / ${load1.map((l) => l.toFixed(2)).join(', ')}`,
  ]
  report(
    `memory under load and after: gatehouse alone, ${values.duration} s per target, ${values.connections} connections${pinned ? ', gatehouse on CPU 0, load and upstream on CPU 1' : ', unpinned'}`,
    'Shared 2-core machine: RSS moves with the load the machine allows (more requests, more garbage between collections).',
    lines,
    values.write,
  )
}

try {
  await main()
} finally {
  stopProcesses()
}
