import { connect } from 'node:net'
import autocannon from 'autocannon'
import { openEventStream, rssOf, startStreamStack, stopProcesses } from './processes.js'
import { benchOptions, report } from './report.js'

const values = benchOptions({ duration: 60, connections: 20 })
const DURATION = values.duration
const CONNECTIONS = values.connections
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Opens 20 event streams, waits a moment, cuts them; repeats until `until`. */
async function churnStreams(port: number, until: number): Promise<number> {
  let opened = 0
  const open = () =>
    openEventStream(port).then(
      ({ res, close }) => {
        res.resume()
        return close
      },
      () => () => {},
    )
  while (Date.now() < until) {
    const closers = await Promise.all(Array.from({ length: 20 }, open))
    opened += closers.length
    await sleep(100)
    for (const close of closers) close()
  }
  return opened
}

/** One raw request on a new connection; resolves when the server answered or closed. */
function raw(port: number, text: string, body?: string): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.on('error', () => resolve())
    socket.on('close', () => resolve())
    socket.on('data', (c) => {
      if (body !== undefined && c.includes('100 Continue')) socket.write(body)
      else socket.end()
    })
    socket.setTimeout(5000, () => socket.destroy())
    socket.write(text)
  })
}

const HOSTILE = [
  'GET /x/../mcp HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
  'GET /%2e%2e/mcp%2fx HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
  'GET /nowhere HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
  'GET http://a/mcp HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
  'TRACE /mcp HTTP/1.1\r\nHost: a\r\n\r\n',
  'GARBAGE\r\n\r\n',
]

async function hostile(port: number, until: number): Promise<number> {
  let sent = 0
  while (Date.now() < until) {
    for (const text of HOSTILE) await raw(port, text)
    await raw(
      port,
      'POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n',
      'hello',
    )
    sent += HOSTILE.length + 1
  }
  return sent
}

async function run(
  port: number,
  pid: number,
): Promise<{ rss: number; requests: number; errors: number; streams: number; hostile: number }> {
  const until = Date.now() + DURATION * 1000
  const [load, streams, sent] = await Promise.all([
    autocannon({
      url: `http://127.0.0.1:${port}/mcp`,
      method: 'POST',
      body: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}',
      headers: { 'content-type': 'application/json' },
      connections: CONNECTIONS,
      duration: DURATION,
    }),
    churnStreams(port, until),
    hostile(port, until),
  ])
  await sleep(3000)
  return {
    rss: rssOf(pid),
    requests: load.requests.total,
    errors: load.non2xx + load.errors + load.timeouts,
    streams,
    hostile: sent,
  }
}

async function main(): Promise<void> {
  const { port, pid } = await startStreamStack()
  const rssStart = rssOf(pid)
  const first = await run(port, pid)
  const second = await run(port, pid)
  const ratio = second.rss / first.rss
  const mib = (b: number) => (b / 1024 / 1024).toFixed(1)
  const lines = [
    '| run | requests | non-2xx/errors | streams opened and cut | hostile requests | gatehouse RSS after, MiB |',
    '|---|---:|---:|---:|---:|---:|',
    `| start | | | | | ${mib(rssStart)} |`,
    ...[first, second].map(
      (r, i) =>
        `| ${i + 1} | ${r.requests} | ${r.errors} | ${r.streams} | ${r.hostile} | ${mib(r.rss)} |`,
    ),
    '',
    `- second run / first run RSS: **${((ratio - 1) * 100).toFixed(1)} %** (target ≤ +5 %): ${ratio <= 1.05 ? 'flat' : 'GROWING'}`,
  ]
  report(
    `soak: 2 × ${DURATION} s of mixed traffic (${CONNECTIONS} connections POST, stream churn, hostile requests)`,
    'Shared 2-core machine.',
    lines,
    values.write,
  )
  if (ratio > 1.05 || first.errors + second.errors > 0) process.exitCode = 1
}

try {
  await main()
} finally {
  stopProcesses()
}
