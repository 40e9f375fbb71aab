/**
 * The benchmark's upstream: answers every POST /mcp with a fixed small JSON-RPC result, as fast
 * as node:http allows, so what the benchmark measures is the proxy in front of it.
 */
import { createServer } from 'node:http'
import { onShutdownSignals, sendJson } from '@gatehouse/support'

const BODY = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'ok' }] } }
const server = createServer((req, res) => {
  req.resume()
  req.on('end', () => sendJson(res, 200, BODY))
})
server.keepAliveTimeout = 65_000
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  const addr = server.address()
  process.stdout.write(`listening ${typeof addr === 'object' && addr ? addr.port : ''}\n`)
})
onShutdownSignals(() => new Promise((r) => server.close(() => r())), {
  name: 'upstream',
  announce: false,
})
