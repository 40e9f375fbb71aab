/**
 * The admin UI's browser tests' stack: the demo of `npm start` (scripts/demo.ts: mock-idp,
 * mcp-backend, gatehouse running examples/standalone/gatehouse.yaml in broker mode) on free
 * loopback ports, with the admin interface on `127.0.0.1:0` and the configuration in a file the
 * proxy reloads (as `gatehouse -f` does), plus Chromium. Screenshots go to docs/images/.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type MockIdp, startMockIdp } from '@gatehouse/mock-idp'
import { type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { DEMO_CONFIG, demoConfig } from '@gatehouse/peers/stack'
import { freePort } from '@gatehouse/support'
import type { Browser, Page } from 'playwright-core'
import { stringify } from 'yaml'
import { launchChromium } from '../../../../../ci/chromium.js'
import type { GatehouseConfigInput } from '../../../../src/config/schema.js'
import { loadConfigSources } from '../../../../src/config/sources.js'
import { type Gatehouse, startGatehouse } from '../../../../src/index.js'
import { capturedLogging } from '../../../helpers.js'

/** Where the screenshots of the UI are checked in (docs/admin-api.md shows them). */
export const IMAGES = fileURLToPath(new URL('../../../../../docs/images/', import.meta.url))

/** A running stack. */
export interface UiStack {
  idp: MockIdp
  backend: McpBackend
  gatehouse: Gatehouse
  /** `http://127.0.0.1:<port>` of the admin interface. */
  admin: string
  /** `http://127.0.0.1:<port>` of the gateway. */
  gateway: string
  /** The configuration as written to the file the proxy reloads. */
  config: GatehouseConfigInput
  /** Rewrites the configuration file (the next reload reads it). */
  write(config: GatehouseConfigInput | string): void
  /** Chromium (throws when the stack was started without it). */
  browser: Browser
  stop(): Promise<void>
}

/**
 * Starts the stack. `configure` changes the demo's configuration before the start (e.g. `ui`).
 * The gateway's port is part of the configuration (its resource and issuer URLs name it), so it
 * is picked free and the start is retried when another process took it meanwhile.
 */
export async function startUiStack(
  configure: (config: GatehouseConfigInput) => void = () => undefined,
  options: { browser?: boolean } = {},
): Promise<UiStack> {
  const idp = await startMockIdp({ testMode: true })
  const backend = await startMcpBackend()
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-ui-'))
  const file = join(dir, 'gatehouse.yaml')
  const write = (config: GatehouseConfigInput | string) =>
    writeFileSync(file, typeof config === 'string' ? config : stringify(config))
  const load = () => loadConfigSources([file], { env: {} })
  let gatehouse: Gatehouse | undefined
  let config: GatehouseConfigInput | undefined
  for (let attempt = 1; gatehouse === undefined; attempt++) {
    const gatewayPort = await freePort()
    config = demoConfig(readFileSync(DEMO_CONFIG, 'utf8'), { gatewayPort, idp, backend })
    config.config = { ...config.config, adminAddr: '127.0.0.1:0' }
    configure(config)
    write(config)
    try {
      const source = await load()
      gatehouse = await startGatehouse({
        config: source.config,
        source,
        loadConfig: load,
        logging: capturedLogging([]),
      })
    } catch (err) {
      if (!String((err as Error).message).includes('EADDRINUSE') || attempt >= 5) {
        await backend.stop()
        await idp.stop()
        throw err
      }
    }
  }
  const started = gatehouse
  const browser = options.browser === false ? undefined : await launchChromium()
  return {
    idp,
    backend,
    gatehouse: started,
    admin: started.adminUrl ?? '',
    gateway: started.gateways[0]?.url ?? '',
    config: config as GatehouseConfigInput,
    write,
    get browser(): Browser {
      if (!browser) throw new Error('this stack was started without a browser')
      return browser
    },
    async stop() {
      await browser?.close()
      await started.stop('done')
      await backend.stop()
      await idp.stop()
    },
  }
}

/** A screenshot into docs/images/<name>.png: the page's whole length, or the window (`full: false`). */
export async function screenshot(page: Page, name: string, full = true): Promise<void> {
  await page.screenshot({ path: join(IMAGES, `${name}.png`), fullPage: full })
}
