#!/usr/bin/env node
/**
 * MCP Inspector's CLI (`mcp-inspector --cli`, pinned; on Node 22) wrapped for
 * `npm run conformance -- client --command` (server URL last): `tools/list`, then
 * `tools/call echo`, each one Inspector CLI run as a developer runs it. Its interactive OAuth
 * listens on a free loopback callback port (`--callback-url`), keeps its state in a temporary
 * HOME, and opens the authorization URL through `BROWSER` = headless-browser.mjs (the harness's
 * IdP signs in by itself). Exit 0 when both runs exit 0.
 *
 *   npm run conformance -- client --command "npx tsx peers/bin/conformance/inspector-cli.ts"
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from '@gatehouse/support'
import { INSPECTOR_BIN } from '../../src/inspector.js'
import { ensureNode22 } from '../../src/node22.js'

const HEADLESS = fileURLToPath(new URL('../headless-browser.mjs', import.meta.url))
const serverUrl = process.argv.at(-1) ?? ''
const home = mkdtempSync(join(tmpdir(), 'gatehouse-inspector-cli-'))
const node = ensureNode22()
const callbackUrl = `http://127.0.0.1:${await freePort()}/oauth/callback`
const env = {
  PATH: process.env.PATH ?? '',
  HOME: home,
  BROWSER: HEADLESS,
  // Without a TTY it refuses interactive OAuth unless told it may open the browser.
  MCP_AUTO_OPEN_ENABLED: 'true',
  MCP_INSPECTOR_SECRET_STORE: 'file',
  MCP_STORAGE_DIR: join(home, 'storage'),
}

/** `auth/pre-registration`: the given client, through the Inspector's own flags for it. */
function staticClientArgs(): string[] {
  if (process.env.MCP_CONFORMANCE_SCENARIO !== 'auth/pre-registration') return []
  const ctx = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, string>
  if (!ctx.client_id) return []
  return [
    '--client-id',
    ctx.client_id,
    ...(ctx.client_secret ? ['--client-secret', ctx.client_secret] : []),
  ]
}

function inspector(args: string[]): number {
  const r = spawnSync(
    node,
    // The URL first: --tool-arg takes every value after it.
    [
      INSPECTOR_BIN,
      '--cli',
      serverUrl,
      '--transport',
      'http',
      '--callback-url',
      callbackUrl,
      ...staticClientArgs(),
      ...args,
    ],
    { env, stdio: ['ignore', 'inherit', 'inherit'], timeout: 25_000 },
  )
  return r.status ?? 1
}

let code = inspector(['--method', 'tools/list'])
if (code === 0) {
  code = inspector([
    '--method',
    'tools/call',
    '--tool-name',
    'echo',
    '--tool-arg',
    'text=conformance',
  ])
}
rmSync(home, { recursive: true, force: true })
process.exit(code)
