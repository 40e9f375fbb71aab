/**
 * The streams benchmark's upstream, an MCP-shaped server reduced to what the gateway sees: a GET
 * with `Accept: text/event-stream` opens an event stream that stays open; a POST gets a small
 * JSON-RPC result with an `Mcp-Session-Id`; `POST /ping-all` writes one event on every open
 * stream and answers how many it wrote to (the benchmark checks that every stream is alive).
 * Every stream starts with an `open` event, and every event's data is `{"t":"<ns>"}`, the
 * monotonic clock (`process.hrtime`, CLOCK_MONOTONIC, the same in every process) when it was
 * written, so that a client can tell how long the event took to reach it.
 */
import { createServer, type ServerResponse } from 'node:http'
import { onShutdownSignals, sendJson } from '@gatehouse/support'

const streams = new Set<ServerResponse>()
const RESULT = {
  jsonrpc: '2.0',
  id: 1,
  result: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    serverInfo: { name: 'bench', version: '1' },
  },
}

/** An SSE event named `name` whose data carries the time it was written. */
function event(name: string): string {
  return `event: ${name}\ndata: {"t":"${process.hrtime.bigint()}"}\n\n`
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && String(req.headers.accept).includes('text/event-stream')) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    res.write(event('open'))
    streams.add(res)
    res.on('close', () => streams.delete(res))
    return
  }
  req.resume()
  req.on('end', () => {
    if (req.url === '/ping-all') {
      for (const s of streams) s.write(event('ping'))
      res.end(String(streams.size))
      return
    }
    sendJson(res, 200, RESULT, { 'mcp-session-id': 'bench-session' })
  })
})
server.keepAliveTimeout = 65_000
server.maxConnections = 100_000
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  const addr = server.address()
  process.stdout.write(`listening ${typeof addr === 'object' && addr ? addr.port : ''}\n`)
})
onShutdownSignals(
  () => {
    server.closeAllConnections()
    return new Promise((r) => server.close(() => r()))
  },
  { name: 'stream-upstream', announce: false },
)
