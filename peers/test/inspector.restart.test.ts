/**
 * MCP Inspector's web UI (pinned) against the demo as `npm start` runs it — gatehouse as its own
 * process on examples/standalone/gatehouse.yaml (moved to free ports, written to a temporary
 * directory), with no store configured, so on the default store: SQLite in `.gatehouse/` beside
 * the file. The server is added by clicking through the UI as the banner says
 * (scripts/demo-banner.ts, INSPECTOR_UI), the Inspector connects (consent, IdP sign-in), then the
 * gateway restarts and the Inspector — restarted on the same home, its stored OAuth client kept,
 * nothing cleared — connects again without an "Unknown application" page and without signing in
 * again, although its access token was refused meanwhile (the IdP rotated its key): its refresh
 * grant is in the gateway's store.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { controlClient, type MockIdp, startMockIdp } from '@gatehouse/mock-idp'
import { type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { freePort, type Launched, launchGatehouse, writeGatehouseConfig } from '@gatehouse/support'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, hasChromium, launchChromium } from '../../ci/chromium.js'
import { INSPECTOR_UI } from '../../scripts/demo-banner.js'
import {
  addServerThroughUi,
  connectInspector,
  type InspectorWeb,
  startInspectorWeb,
} from '../src/inspector.js'
import { ensureNode22 } from '../src/node22.js'
import { ROOT } from '../src/paths.js'
import { DEMO_CONFIG, demoConfig } from '../src/stack.js'

const TIMEOUT = 45_000

/** The demo's gatehouse as a process of its own (on Node 22: node:sqlite), restartable. */
class GatehouseProcess {
  #process: Launched | undefined
  constructor(
    readonly node: string,
    readonly file: string,
  ) {}

  async start(): Promise<void> {
    this.#process = await launchGatehouse(this.file, { node: this.node, cwd: ROOT })
  }

  async stop(): Promise<void> {
    await this.#process?.stop()
  }
}

/** Every page text the tab showed, to look for the gateway's "Unknown application" page. */
function recordPages(page: Page, seen: string[]): void {
  page.on('load', () => {
    void page
      .locator('body')
      .innerText()
      .then(
        (t) => seen.push(t),
        () => undefined,
      )
  })
}

describe.skipIf(!hasChromium())(
  `MCP Inspector's web UI across a gateway restart on the default store${hasChromium() ? '' : ` (skipped: no Chromium at ${chromiumPath()})`}`,
  () => {
    let browser: Browser
    let idp: MockIdp
    let backend: McpBackend
    let gatehouse: GatehouseProcess
    let context: BrowserContext
    const inspectors: InspectorWeb[] = []
    const dirs: string[] = []
    let mcpUrl = ''
    let stateFile = ''

    beforeAll(async () => {
      browser = await launchChromium()
      idp = await startMockIdp({ testMode: true })
      backend = await startMcpBackend()
      const dir = mkdtempSync(join(tmpdir(), 'gatehouse-inspector-restart-'))
      dirs.push(dir)
      const gatewayPort = await freePort()
      const config = demoConfig(readFileSync(DEMO_CONFIG, 'utf8'), { gatewayPort, idp, backend })
      const file = writeGatehouseConfig(config, dir)
      stateFile = join(dir, '.gatehouse', 'state.sqlite')
      mcpUrl = `http://127.0.0.1:${gatewayPort}/mcp`
      gatehouse = new GatehouseProcess(ensureNode22(), file)
      await gatehouse.start()
      context = await browser.newContext()
      // The UI loads web fonts from the Internet; this network has none.
      await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/]|localhost[:/])/, (r) => r.abort())
    }, 120_000)

    afterAll(async () => {
      await context?.close()
      await browser?.close()
      for (const i of inspectors) await i.stop()
      await gatehouse?.stop()
      await backend?.stop()
      await idp?.stop()
      for (const d of dirs) rmSync(d, { recursive: true, force: true })
    })

    it("follows the banner's steps to add the gateway, connects, and connects again after the gateway restarts, nothing cleared", async () => {
      const home = mkdtempSync(join(tmpdir(), 'gatehouse-inspector-home-'))
      dirs.push(home)
      const seen: string[] = []

      const first = await startInspectorWeb(undefined, { home, secretStore: 'file' })
      inspectors.push(first)
      const page = await context.newPage()
      page.setDefaultTimeout(TIMEOUT)
      recordPages(page, seen)
      await page.goto(first.url)
      await addServerThroughUi(page, mcpUrl)
      const server = INSPECTOR_UI.serverIdExample
      const before = await connectInspector(page, first.origin, 'alice', TIMEOUT, server)
      expect(before.status, `${before.alert}\n${first.output().slice(-1500)}`).toBe('Connected')
      const body = (await page.locator('body').innerText()).replace(/\s+/g, ' ').slice(0, 1500)
      expect(
        before.authorizations,
        `${page.url()}\n${body}\n${seen.join('\n---\n').slice(0, 1500)}`,
      ).toBe(1)
      await page.close()
      await first.stop()
      // The default store: the state is in the file beside the configuration.
      expect(existsSync(stateFile)).toBe(true)

      await gatehouse.stop()
      // Meanwhile the IdP rotates its signing key, dropping the old one (as access tokens expire
      // in real use): the Inspector's stored access token is refused, so it must refresh (a grant
      // in the gateway's store) or authorize again with its stored client_id, which the gateway
      // must still know — on the memory store it answered "Unknown application".
      await controlClient(idp.controlUrl).rotateKeys({ keepOld: false })
      await gatehouse.start()

      // The same Inspector home (its server list, its registered client and tokens) and browser.
      const second = await startInspectorWeb(undefined, { home, secretStore: 'file' })
      inspectors.push(second)
      const again = await context.newPage()
      again.setDefaultTimeout(TIMEOUT)
      recordPages(again, seen)
      await again.goto(second.url)
      const after = await connectInspector(again, second.origin, 'alice', TIMEOUT, server)
      expect(seen.filter((t) => /Unknown application/i.test(t))).toEqual([])
      expect(after.status, `${after.alert}\n${second.output().slice(-1500)}`).toBe('Connected')
      // Without a sign-in: its refresh grant outlived the restart (on the memory store the
      // Inspector went through consent and the IdP's form again).
      expect(after.authorizations).toBe(0)
    }, 300_000)
  },
)
