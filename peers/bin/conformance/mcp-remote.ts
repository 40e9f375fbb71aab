#!/usr/bin/env node
/**
 * mcp-remote (pinned) wrapped for `npm run conformance -- client --command`: the official
 * convention puts the server URL last, so this is the stdio MCP host that mcp-remote needs —
 * it starts `mcp-remote <url> <free callback port> --host 127.0.0.1` with its own config
 * directory and `BROWSER` set to headless-browser.mjs (the harness's IdP signs in by itself), then
 * speaks `initialize`, `tools/list` and `tools/call echo` over mcp-remote's stdio. Exit 0 when all
 * of that worked, 1 otherwise (mcp-remote's output on stderr).
 *
 *   npm run conformance -- client --command "npx tsx peers/bin/conformance/mcp-remote.ts"
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from '@gatehouse/support'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { MCP_REMOTE_BIN } from '../../src/mcp-remote.js'

const HEADLESS = fileURLToPath(new URL('../headless-browser.mjs', import.meta.url))
const serverUrl = process.argv.at(-1) ?? ''
/** `auth/pre-registration`: the given client, through mcp-remote's own flag for it. */
function staticClientArgs(): string[] {
  if (process.env.MCP_CONFORMANCE_SCENARIO !== 'auth/pre-registration') return []
  const ctx = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, string>
  if (!ctx.client_id) return []
  const info = { client_id: ctx.client_id, client_secret: ctx.client_secret }
  return ['--static-oauth-client-info', JSON.stringify(info)]
}
const configDir = mkdtempSync(join(tmpdir(), 'gatehouse-mcp-remote-'))
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [
    MCP_REMOTE_BIN,
    serverUrl,
    String(await freePort()),
    '--host',
    '127.0.0.1',
    ...staticClientArgs(),
  ],
  env: {
    PATH: process.env.PATH ?? '',
    HOME: configDir,
    MCP_REMOTE_CONFIG_DIR: configDir,
    BROWSER: HEADLESS,
  },
  stderr: 'inherit',
})
const client = new Client({ name: 'gatehouse-peers-mcp-remote-host', version: '0.1.0' })
let code = 0
try {
  await client.connect(transport, { timeout: 25_000 })
  const { tools } = await client.listTools()
  if (tools.some((t) => t.name === 'echo')) {
    await client.callTool({ name: 'echo', arguments: { text: 'conformance' } })
  }
} catch (err) {
  process.stderr.write(`mcp-remote host: ${(err as Error).message}\n`)
  code = 1
} finally {
  await client.close().catch(() => undefined)
  rmSync(configDir, { recursive: true, force: true })
}
process.exit(code)
