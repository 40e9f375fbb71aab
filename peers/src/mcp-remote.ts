/**
 * mcp-remote (pinned in peers/package.json): the stdio bridge that lets a stdio-only MCP host
 * (Claude Desktop, Cursor, …) use a remote server with OAuth. It is run as such a host runs it —
 * `mcp-remote <server-url> <callback-port>` — and spoken to over its stdio with the official SDK
 * client's stdio transport: `initialize`, `tools/list`, `tools/call echo`.
 *
 * Its sign-in: mcp-remote registers, starts its callback server on the loopback port, prints
 * "Please authorize this client by visiting: <url>" and tries to open a browser. The browser it
 * would open is replaced (`BROWSER` names a command that does nothing; there is no desktop here)
 * and the printed URL is opened in Chromium instead, where {@link completeSignIn} approves
 * consent and signs in; Chromium then lands on mcp-remote's own callback, as a browser would.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '@gatehouse/support'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { Browser } from 'playwright-core'
import type { PeerOutcome } from './outcome.js'
import { resultText } from './outcome.js'
import { ROOT } from './paths.js'
import { completeSignIn } from './sign-in.js'

/** mcp-remote's entry point (its `mcp-remote` bin). */
export const MCP_REMOTE_BIN = join(ROOT, 'node_modules/mcp-remote/dist/proxy.js')

/** Options of {@link runMcpRemote}. */
export interface McpRemoteOptions {
  /** The gateway's MCP endpoint. */
  mcpUrl: string
  /** The mock-idp user who signs in. */
  user: string
  /** The browser the sign-in runs in. */
  browser: Browser
  /** How long the whole run may take before it is called stuck; default 60 s. */
  timeoutMs?: number
}

/** The line mcp-remote prints before the authorization URL. */
const AUTHORIZE_PROMPT = /Please authorize this client by visiting:\s*\n(\S+)/

/**
 * Runs mcp-remote against `mcpUrl` as `user`, signs in when it asks, and speaks MCP over its
 * stdio. Never throws for mcp-remote's own failures: they are the outcome's `error`, with the
 * end of what it printed.
 */
export async function runMcpRemote(options: McpRemoteOptions): Promise<PeerOutcome> {
  const configDir = mkdtempSync(join(tmpdir(), 'gatehouse-mcp-remote-'))
  const callbackPort = await freePort()
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_REMOTE_BIN, options.mcpUrl, String(callbackPort), '--host', '127.0.0.1'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: configDir,
      // Its tokens and client registrations: per run, never the user's ~/.mcp-auth.
      MCP_REMOTE_CONFIG_DIR: configDir,
      // The browser mcp-remote opens (through xdg-open) does nothing; Chromium gets the URL.
      BROWSER: 'true',
    },
    stderr: 'pipe',
  })
  let stderr = ''
  let authorizations = 0
  let signIn: Promise<void> = Promise.resolve()
  let signInError: Error | undefined
  const seen = new Set<string>()
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
    const url = AUTHORIZE_PROMPT.exec(stderr.slice(-4000))?.[1]
    if (!url || seen.has(url)) return
    seen.add(url)
    authorizations++
    signIn = signIn.then(() =>
      signInAt(options.browser, url, options.user, callbackPort).catch((err: Error) => {
        signInError = err
      }),
    )
  })
  const client = new Client({ name: 'gatehouse-peers-mcp-remote-host', version: '0.1.0' })
  const timeout = options.timeoutMs ?? 60_000
  const outcome = (rest: Partial<PeerOutcome>): PeerOutcome => ({
    tools: [],
    mcpStatuses: [],
    authorizations,
    ...rest,
  })
  try {
    await client.connect(transport, { timeout })
    const tools = (await client.listTools(undefined, { timeout })).tools.map((t) => t.name)
    if (!tools.includes('echo')) return outcome({ tools })
    const echo = resultText(
      await client.callTool(
        { name: 'echo', arguments: { text: 'hello through mcp-remote' } },
        undefined,
        { timeout },
      ),
    )
    return outcome({ tools, echo })
  } catch (err) {
    await signIn
    const cause = signInError ? `; sign-in: ${signInError.message}` : ''
    return outcome({
      error: `${(err as Error).message}${cause}; mcp-remote printed: …${stderr.slice(-1500)}`,
    })
  } finally {
    await client.close().catch(() => undefined)
    await signIn
    rmSync(configDir, { recursive: true, force: true })
  }
}

/** Opens `url` in a fresh browser context and signs in until mcp-remote's callback answers. */
async function signInAt(
  browser: Browser,
  url: string,
  user: string,
  callbackPort: number,
): Promise<void> {
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    await page.goto(url)
    await completeSignIn(page, {
      user,
      done: (u) => u.port === String(callbackPort) && u.pathname.startsWith('/oauth/callback'),
    })
  } finally {
    await context.close()
  }
}
