/**
 * MCP Inspector's web UI (`@modelcontextprotocol/inspector`, pinned in peers/package.json), the
 * way a developer uses it: `npx @modelcontextprotocol/inspector --transport http --server-url
 * <url>`, then the browser. Its server runs on Node 22 ({@link ensureNode22}); the UI is driven in
 * Debian's Chromium through playwright-core: switch the server on, sign in (the UI sends the
 * whole tab to the authorization server and takes it back at its own `/oauth/callback`; the code
 * exchange goes through the Inspector's server, so the IdP needs no CORS), open Tools, run `echo`.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '@gatehouse/support'
import type { Browser, Locator, Page } from 'playwright-core'
import { INSPECTOR_UI } from '../../scripts/demo-banner.js'
import { ensureNode22 } from './node22.js'
import type { PeerOutcome } from './outcome.js'
import { ROOT } from './paths.js'
import { completeSignIn } from './sign-in.js'

/** The Inspector's launcher (its `mcp-inspector` bin). */
export const INSPECTOR_BIN = join(
  ROOT,
  'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js',
)

/** A running Inspector web server. */
export interface InspectorWeb {
  /** `http://127.0.0.1:<port>`: the UI's origin (its OAuth redirect URI is `<origin>/oauth/callback`). */
  origin: string
  /** The URL to open: the origin with the session token the Inspector's API wants. */
  url: string
  /** What it printed so far. */
  output(): string
  stop(): Promise<void>
}

/** Options of {@link startInspectorWeb}. */
export interface InspectorWebOptions {
  /**
   * Its HOME and storage directory, kept by {@link InspectorWeb.stop} (the caller's: a second
   * Inspector on it finds the first one's servers and OAuth state). Default: a temporary one,
   * removed on stop.
   */
  home?: string
  /** Where it keeps OAuth secrets (`MCP_INSPECTOR_SECRET_STORE`). Default `memory`. */
  secretStore?: 'memory' | 'file'
}

/** The line the Inspector prints once it listens. */
const READY = 'MCP Inspector Web is up and running'

/**
 * Starts the Inspector's web UI for `serverUrl` (Streamable HTTP) on a free loopback port, with
 * its MCP Apps sandbox and app origin on OS-assigned ports, its API behind a random session
 * token (`MCP_INSPECTOR_API_TOKEN`, what its banner URL carries), no browser opened, secrets in
 * memory and its storage in a temporary directory.
 */
export async function startInspectorWeb(
  serverUrl: string | undefined,
  options: InspectorWebOptions = {},
): Promise<InspectorWeb> {
  const node = ensureNode22()
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'gatehouse-inspector-'))
  const owned = options.home === undefined
  // Without a server URL it starts with an empty list: the server is added in its UI.
  const server = serverUrl ? ['--transport', 'http', '--server-url', serverUrl] : []
  const token = randomBytes(24).toString('hex')
  for (let attempt = 1; ; attempt++) {
    const port = await freePort()
    const child = spawn(node, [INSPECTOR_BIN, '--web', ...server], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        CLIENT_PORT: String(port),
        HOST: '127.0.0.1',
        MCP_SANDBOX_PORT: '0',
        MCP_APP_ORIGIN_PORT: '0',
        MCP_AUTO_OPEN_ENABLED: 'false',
        MCP_INSPECTOR_API_TOKEN: token,
        MCP_INSPECTOR_SECRET_STORE: options.secretStore ?? 'memory',
        MCP_STORAGE_DIR: join(home, 'storage'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so stop() ends whatever it started too.
      detached: true,
    })
    let output = ''
    const ready = new Promise<boolean>((resolve) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString()
        if (output.includes(READY)) resolve(true)
      }
      child.stdout?.on('data', onData)
      child.stderr?.on('data', onData)
      child.once('exit', () => resolve(false))
    })
    if (await ready) {
      const origin = `http://127.0.0.1:${port}`
      return {
        origin,
        url: `${origin}/?MCP_INSPECTOR_API_TOKEN=${token}`,
        output: () => output,
        async stop() {
          await stopGroup(child)
          if (owned) rmSync(home, { recursive: true, force: true })
        },
      }
    }
    // Another process took the port between freePort() and the Inspector's listen: try another.
    if (!output.includes('PORT IS IN USE') || attempt >= 5) {
      if (owned) rmSync(home, { recursive: true, force: true })
      throw new Error(
        `MCP Inspector did not start (exit ${child.exitCode}): ${output.slice(-1500)}`,
      )
    }
  }
}

/** SIGTERM to the child's process group, SIGKILL if it is still there after 5 s. */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  process.kill(-child.pid, 'SIGTERM')
  const timer = setTimeout(() => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL')
  }, 5_000)
  await exited
  clearTimeout(timer)
}

/** Options of {@link runInspectorWeb}. */
export interface InspectorRunOptions {
  inspector: InspectorWeb
  browser: Browser
  /** The mock-idp user who signs in. */
  user: string
  /** How long to wait for each state of the UI; default 45 s (a loaded CI machine). */
  timeoutMs?: number
}

/** The server card's status once connecting settled, and the alert the UI showed, if any. */
async function connectionSettled(page: Page | Locator, timeout: number): Promise<string> {
  const connected = page.getByText('Connected', { exact: true })
  const failed = page.getByText('Failed', { exact: true })
  await connected.or(failed).first().waitFor({ timeout })
  return (await connected.count()) > 0 ? 'Connected' : 'Failed'
}

/**
 * Connects the Inspector's UI to its server as `user`, in a fresh browser context: switches the
 * server on, completes consent and sign-in when the tab is sent to the authorization server,
 * then lists tools and runs `echo`. Never throws for the Inspector's own failures: the UI's
 * status and alert text are the outcome's `error`.
 */
export async function runInspectorWeb(options: InspectorRunOptions): Promise<PeerOutcome> {
  const timeout = options.timeoutMs ?? 45_000
  const origin = options.inspector.origin
  const context = await options.browser.newContext()
  let authorizations = 0
  const outcome = (rest: Partial<PeerOutcome>): PeerOutcome => ({
    tools: [],
    mcpStatuses: [],
    authorizations,
    ...rest,
  })
  try {
    // The UI loads web fonts from the Internet; this network has none.
    await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/]|localhost[:/])/, (route) => route.abort())
    const page = await context.newPage()
    page.setDefaultTimeout(timeout)
    await page.goto(options.inspector.url)
    const connected = await connectInspector(page, origin, options.user, timeout)
    authorizations += connected.authorizations
    const status = connected.status
    if (status !== 'Connected') {
      return outcome({ error: `Inspector: ${status}. ${connected.alert}`.trim() })
    }
    await page.getByText('Tools', { exact: true }).first().click()
    const heading = page.getByText(/^Tools \(\d+\)$/).first()
    await heading.waitFor()
    const list = heading.locator('xpath=ancestor::*[.//button][1]')
    const tools = (await list.getByRole('button').allInnerTexts())
      .map((t) => t.trim())
      .filter((t) => /^[\w.-]+$/.test(t))
    if (!tools.includes('echo')) return outcome({ tools })
    await list.getByRole('button', { name: 'echo', exact: true }).click()
    const text = 'hello from MCP Inspector'
    await page.getByRole('textbox', { name: 'text' }).fill(text)
    await page.getByRole('button', { name: 'Execute Tool' }).click()
    await page.getByText('Results', { exact: true }).waitFor()
    // The answer shows as text (the input's value is not text content).
    await page.getByText(text, { exact: true }).first().waitFor()
    return outcome({ tools, echo: text })
  } catch (err) {
    return outcome({ error: (err as Error).message.split('\n')[0] })
  } finally {
    await context.close()
  }
}

/**
 * Turns a server's Connect switch on (`server`: its id; default the first server's) and, when the
 * tab is sent to the authorization server, completes consent and sign-in as `user`; resolves with
 * the status that server's card settled on.
 */
export async function connectInspector(
  page: Page,
  origin: string,
  user: string,
  timeout: number,
  server?: string,
): Promise<{ status: string; authorizations: number; alert: string }> {
  const toggle = page
    .getByRole('switch', {
      name: server ? `Connect or disconnect "${server}"` : /Connect or disconnect/,
    })
    .first()
  // The card's header: the innermost element holding the server's switch and id (and its status).
  const card = server ? page.locator('div').filter({ has: toggle, hasText: server }).last() : page
  await switchOn(toggle)
  // Either the tab leaves for the authorization server, or connecting settles without it.
  const left = page
    .waitForURL((u) => u.origin !== origin, { timeout })
    .then(() => true)
    .catch(() => false)
  // A wait the navigation away interrupts is not a settled connection: it must not win the race.
  const settledFirst = connectionSettled(card, timeout).then(
    () => false,
    () => new Promise<boolean>(() => undefined),
  )
  let authorizations = 0
  if (await Promise.race([left, settledFirst])) {
    authorizations++
    await completeSignIn(page, { user, done: (u) => u.origin === origin })
  }
  const status = await connectionSettled(card, timeout)
  return { status, authorizations, alert: status === 'Connected' ? '' : await alertText(page) }
}

/**
 * Adds a Streamable HTTP server in the UI the way the demo banner says (scripts/demo-banner.ts,
 * `INSPECTOR_UI`: the same labels, in the same order), instead of starting the Inspector with it.
 */
export async function addServerThroughUi(page: Page, url: string): Promise<void> {
  const ui = INSPECTOR_UI
  await page.getByText(ui.servers, { exact: true }).first().waitFor()
  await page.getByRole('button', { name: ui.addMenu }).click()
  await page.getByRole('menuitem', { name: ui.addManually }).click()
  await page.getByRole('textbox', { name: ui.serverId }).fill(ui.serverIdExample)
  await page.getByRole('textbox', { name: ui.transport }).click()
  await page.getByRole('option', { name: ui.transportChoice, exact: true }).click()
  await page.getByRole('textbox', { name: ui.url, exact: true }).fill(url)
  await page.getByRole('button', { name: ui.add, exact: true }).click()
  await page
    .getByRole('switch', { name: new RegExp(`^${ui.connect}`) })
    .first()
    .waitFor()
}

/** The text of the UI's alert (e.g. "Re-authentication required …"), if one shows. */
async function alertText(page: Page): Promise<string> {
  const alert = page.getByRole('alert')
  if ((await alert.count()) === 0) {
    return (await page.locator('body').innerText()).replace(/\s+/g, ' ').slice(0, 400)
  }
  return (await alert.first().innerText()).replace(/\s+/g, ' ').trim()
}

/**
 * Turns the Inspector's connect switch on. The UI hydrates after the page loads: a click that
 * lands before its handlers are attached changes nothing (Playwright: "did not change its
 * state"), so it is tried again, a few times; `check` does nothing once the switch is on.
 */
async function switchOn(toggle: Locator): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await toggle.check({ force: true })
      return
    } catch (err) {
      if (attempt >= 5 || !/did not change its state/.test((err as Error).message)) throw err
      await new Promise((r) => setTimeout(r, 500))
    }
  }
}
