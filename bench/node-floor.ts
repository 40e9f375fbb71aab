/**
 * The Node floor: the least a Node proxy does — node:http in, an undici Pool out (the client
 * gatehouse forwards with), hop-by-hop headers dropped, bodies streamed both ways, nothing else.
 * What gatehouse costs above this is gatehouse's own code. Arguments: upstream port, own port.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import { onShutdownSignals } from '@gatehouse/support'
import { Pool } from 'undici'

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
])

function endToEnd(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>) {
  const out: Record<string, string | string[]> = {}
  for (const [k, v] of Object.entries(headers))
    if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v
  return out
}

const [upstreamPort, port] = process.argv.slice(2).map(Number)
const pool = new Pool(`http://127.0.0.1:${upstreamPort}`, { connections: 256 })
const server = createServer((req, res) => {
  pool
    .request({
      method: req.method as 'GET',
      path: req.url ?? '/',
      headers: endToEnd(req.headers),
      body: req.method === 'GET' || req.method === 'HEAD' ? null : req,
    })
    .then(
      ({ statusCode, headers, body }) => {
        res.writeHead(statusCode, endToEnd(headers))
        body.pipe(res)
      },
      () => {
        res.statusCode = 502
        res.end()
      },
    )
})
server.keepAliveTimeout = 65_000
server.listen(port ?? 0, '127.0.0.1', () => {
  const addr = server.address()
  process.stdout.write(`listening ${typeof addr === 'object' && addr ? addr.port : ''}\n`)
})
onShutdownSignals(() => new Promise((r) => server.close(() => r())), {
  name: 'node-floor',
  announce: false,
})
