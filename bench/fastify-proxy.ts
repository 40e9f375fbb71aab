/** The comparison: a bare @fastify/http-proxy forwarding /mcp to the upstream, nothing else. */
import proxy from '@fastify/http-proxy'
import { onShutdownSignals } from '@gatehouse/support'
import Fastify from 'fastify'

const [upstreamPort, port] = process.argv.slice(2).map(Number)
const app = Fastify({ logger: false })
await app.register(proxy, {
  upstream: `http://127.0.0.1:${upstreamPort}`,
  prefix: '/mcp',
  rewritePrefix: '/mcp',
})
await app.listen({ host: '127.0.0.1', port: port ?? 0 })
const addr = app.server.address()
process.stdout.write(`listening ${typeof addr === 'object' && addr ? addr.port : ''}\n`)
onShutdownSignals(() => app.close(), { name: 'fastify-proxy', announce: false })
