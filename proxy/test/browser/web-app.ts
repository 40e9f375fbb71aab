/**
 * A web MCP client for browser tests: a page served from the host that loads the official MCP
 * SDK client (sdk-client.ts, bundled for the browser with esbuild), and the sign-in it drives in
 * Chromium. Used by sdk-oauth.test.ts against in-process servers and by ci/compose-smoke.ts
 * against the composed stack.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import type { Page } from 'playwright-core'
import type { FinishResult } from './sdk-client.js'

export type { FinishResult } from './sdk-client.js'

const ENTRY = fileURLToPath(new URL('./sdk-client.ts', import.meta.url))

/** The SDK client module as one browser script exposing `gatehouseClient.start/finish`. */
async function bundleClient(): Promise<string> {
  const out = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: 'iife',
    globalName: 'gatehouseClient',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  })
  const file = out.outputFiles[0]
  if (!file) throw new Error('esbuild produced no output')
  return file.text
}

/** The running web app. */
export interface WebApp {
  /** The origin the browser loads it from (the IdP must trust it for its token endpoint). */
  origin: string
  /** Stops the server. */
  close(): Promise<void>
}

/** Options of {@link startWebApp}. */
export interface WebAppOptions {
  /** The port on 127.0.0.1; default 0 (any free port). */
  port?: number
  /** The host name in {@link WebApp.origin}; default `127.0.0.1`. */
  hostname?: string
}

/** Serves the web app on 127.0.0.1: `/` and `/callback` both load the client script. */
export async function startWebApp(options: WebAppOptions = {}): Promise<WebApp> {
  const script = await bundleClient()
  const server: Server = createServer((req, res) => {
    if (req.url === '/client.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' })
      res.end(script)
      return
    }
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end('<!doctype html><title>web MCP client</title><script src="/client.js"></script>')
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', resolve)
  })
  const port = (server.address() as AddressInfo).port
  return {
    origin: `http://${options.hostname ?? '127.0.0.1'}:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/**
 * Signs `login` in from the app's page: the SDK client gets the 401, reads the metadata,
 * registers, sends the page to the IdP (mock-idp signs the `login_hint` user in), and back at the
 * callback exchanges the code and calls the MCP server at `mcpUrl`. Throws when the client does
 * not go to the IdP.
 */
export async function signIn(
  page: Page,
  app: WebApp,
  mcpUrl: string,
  login: string,
): Promise<FinishResult> {
  await page.goto(`${app.origin}/`)
  const started = await page.evaluate(
    ([url, hint]) =>
      (
        globalThis as unknown as {
          gatehouseClient: { start(u: string, h: string): Promise<string> }
        }
      ).gatehouseClient.start(url, hint),
    [mcpUrl, login] as const,
  )
  if (started !== 'redirecting') throw new Error(`the client did not go to the IdP: ${started}`)
  // The page goes to the IdP, which signs the user in (login_hint) and sends the browser back
  // with a code. A broker gateway first shows its consent page ("Allow"), and its own IdP leg
  // carries no login_hint, so the IdP shows its form: the person picks the user there.
  const atCallback = (u: URL) => u.origin === app.origin && u.pathname === '/callback'
  for (let step = 0; !atCallback(new URL(page.url())); step++) {
    if (step === 8) throw new Error(`sign-in did not return to the client; at ${page.url()}`)
    const before = page.url()
    const approve = page.locator('button[name="decision"][value="approve"]')
    const users = page.locator('select[name="login"]')
    const next = page.waitForURL((u) => u.href !== before)
    if ((await approve.count()) > 0) await approve.first().click()
    else if ((await users.count()) > 0) {
      await users.selectOption(login)
      await page.locator('form button[type="submit"]').first().click()
    }
    await next
  }
  return page.evaluate(
    (url) =>
      (
        globalThis as unknown as {
          gatehouseClient: { finish(u: string): Promise<FinishResult> }
        }
      ).gatehouseClient.finish(url),
    mcpUrl,
  )
}
