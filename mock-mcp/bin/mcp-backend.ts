#!/usr/bin/env node
/**
 * `mcp-backend [--port 8090] [--host 127.0.0.1] [--json] [--allow-non-loopback-fetch]`:
 * runs the demo MCP backend until SIGINT/SIGTERM.
 */
import { parseArgs } from 'node:util'
import { onShutdownSignals } from '@gatehouse/support'
import { startMcpBackend } from '../src/index.js'

const USAGE = `usage: mcp-backend [--port <port>] [--host <address>] [--json] [--allow-non-loopback-fetch]

  --port <port>                 port to listen on (default 8090; 0 picks a free one)
  --host <address>              address to bind (default 127.0.0.1)
  --json                        answer POSTs with JSON instead of SSE streams
  --allow-non-loopback-fetch    let the fetch tool reach hosts beyond loopback
  -h, --help                    show this help
`

let values: ReturnType<typeof parse>['values']
function parse() {
  return parseArgs({
    options: {
      port: { type: 'string', default: '8090' },
      host: { type: 'string', default: '127.0.0.1' },
      json: { type: 'boolean', default: false },
      'allow-non-loopback-fetch': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })
}
try {
  values = parse().values
} catch (err) {
  process.stderr.write(`mcp-backend: ${(err as Error).message}\n\n${USAGE}`)
  process.exit(2)
}
if (values.help) {
  process.stdout.write(USAGE)
  process.exit(0)
}
const port = Number(values.port)
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`mcp-backend: --port: expected an integer 0-65535, got "${values.port}"\n`)
  process.exit(2)
}
try {
  const backend = await startMcpBackend({
    port,
    host: values.host,
    jsonResponse: values.json,
    allowNonLoopbackFetch: values['allow-non-loopback-fetch'],
  })
  process.stdout.write(`mcp-backend listening: ${backend.url}\n`)
  onShutdownSignals(() => backend.stop(), { name: 'mcp-backend' })
} catch (err) {
  const e = err as NodeJS.ErrnoException
  const hint = e.code === 'EADDRINUSE' ? ` (port ${port} is in use; pick another with --port)` : ''
  process.stderr.write(
    `mcp-backend: cannot listen on ${values.host}:${port}: ${e.message}${hint}\n`,
  )
  process.exit(1)
}
