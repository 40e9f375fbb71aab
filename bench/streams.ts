import { request } from 'node:http'
import { openEventStream, rssOf, startStreamStack, stopProcesses } from './processes.js'
import { benchOptions, report } from './report.js'

const values = benchOptions({ streams: 5000, requests: 200 })
const STREAMS = values.streams
const REQUESTS = values.requests
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'b', version: '1' },
  },
})

/** One POST initialize on a new connection; resolves with its latency in ms. */
function initialize(port: number): Promise<number> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/mcp', method: 'POST', agent: false },
      (res) => {
        res.resume()
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(performance.now() - started)
            : reject(new Error(`initialize answered ${res.statusCode}`)),
        )
      },
    )
    req.setHeader('content-type', 'application/json')
    req.setHeader('accept', 'application/json, text/event-stream')
    req.on('error', reject)
    req.end(INITIALIZE)
  })
}

async function latencies(port: number): Promise<{ p50: number; p99: number; max: number }> {
  for (let i = 0; i < 100; i++) await initialize(port) // warm-up: JIT, pools
  const xs: number[] = []
  for (let i = 0; i < REQUESTS; i++) xs.push(await initialize(port))
  xs.sort((a, b) => a - b)
  const at = (q: number) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0
  return { p50: at(0.5), p99: at(0.99), max: xs[xs.length - 1] ?? 0 }
}

/** Opens the streams, 200 at a time; each counts the `ping` events it receives. */
async function openStreams(port: number, pings: { count: number }): Promise<Array<() => void>> {
  const open = async () => {
    const { res, close } = await openEventStream(port)
    if (res.statusCode !== 200) {
      close()
      throw new Error(`stream answered ${res.statusCode}`)
    }
    res.on('data', (c: Buffer) => {
      if (c.includes('event: ping')) pings.count++
    })
    return close
  }
  const closers: Array<() => void> = []
  for (let i = 0; i < STREAMS; i += 200) {
    closers.push(...(await Promise.all(Array.from({ length: Math.min(200, STREAMS - i) }, open))))
  }
  return closers
}

async function pingAll(upstreamPort: number): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${upstreamPort}/ping-all`, { method: 'POST' })
  return Number(await res.text())
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function main(): Promise<void> {
  const { port, upstreamPort, pid } = await startStreamStack({ maxConnections: STREAMS + 1000 })

  const idle = await latencies(port)
  await sleep(1000)
  const rssIdle = rssOf(pid)
  const pings = { count: 0 }
  const opening = performance.now()
  const closers = await openStreams(port, pings)
  const openSeconds = (performance.now() - opening) / 1000
  await sleep(2000)
  const rssOpen = rssOf(pid)
  const busy = await latencies(port)
  const written = await pingAll(upstreamPort)
  const deadline = Date.now() + 10_000
  while (pings.count < STREAMS && Date.now() < deadline) await sleep(50)
  for (const close of closers) close()
  await sleep(2000)
  const after = await latencies(port)
  const rssAfter = rssOf(pid)

  const perStream = (rssOpen - rssIdle) / STREAMS / 1024
  const lines = [
    `| figure | before (no stream) | with ${STREAMS} streams open | after they closed |`,
    '|---|---:|---:|---:|',
    `| initialize p50 ms (new connection) | ${idle.p50.toFixed(2)} | ${busy.p50.toFixed(2)} | ${after.p50.toFixed(2)} |`,
    `| initialize p99 ms | ${idle.p99.toFixed(2)} | ${busy.p99.toFixed(2)} | ${after.p99.toFixed(2)} |`,
    `| initialize max ms | ${idle.max.toFixed(2)} | ${busy.max.toFixed(2)} | ${after.max.toFixed(2)} |`,
    `| gatehouse RSS MiB | ${mib(rssIdle)} | ${mib(rssOpen)} | ${mib(rssAfter)} |`,
    '',
    `- ${STREAMS} streams opened in ${openSeconds.toFixed(1)} s; every initialize answered 200 (${REQUESTS} per phase, sequential)`,
    `- RSS per open stream: **${perStream.toFixed(1)} KiB** (client and upstream connection, both in gatehouse)`,
    `- initialize p50 with streams / after they closed: **${(busy.p50 / after.p50).toFixed(2)}×**; p50 with ${STREAMS} streams: **${busy.p50.toFixed(1)} ms**, p99 ${busy.p99.toFixed(1)} ms (target < 50 ms)`,
    `- streams alive at the end: ${pings.count}/${STREAMS} got the event the upstream wrote to its ${written} open streams`,
  ]
  report(
    `streams: ${STREAMS} concurrent SSE sessions through one gateway`,
    'Shared 2-core machine (the client, gatehouse and the upstream share it): absolute figures move with other load; compare within the run.',
    lines,
    values.write,
  )
  if (pings.count < STREAMS) process.exitCode = 1
}

try {
  await main()
} finally {
  stopProcesses()
}
