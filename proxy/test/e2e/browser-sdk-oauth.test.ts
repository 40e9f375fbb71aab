/**
 * The whole MCP authorization flow from a web page, in real Chromium: the official MCP SDK
 * client (bundled for the browser with esbuild) is given only the gateway's URL, gets the 401,
 * reads the protected-resource and authorization-server metadata, registers at the gateway
 * (answered with `mcp.clientId`), navigates the page to the IdP's authorization endpoint (mock-idp
 * signs alice in from `login_hint`), comes back to the page's callback with a code, exchanges it at
 * the IdP's token endpoint (a CORS request the IdP allows for trusted origins), and calls a tool
 * through the gateway. Every cross-origin step is subject to Chromium's CORS enforcement.
 *
 * Needs Chromium (`npm run setup:test-tools` installs Debian's where it can).
 */

import { controlClient, type MockIdp, startMockIdp } from '@gatehouse/mock-idp'
import { type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { freePort } from '@gatehouse/support'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, hasChromium, launchChromium } from '../../../ci/chromium.js'
import { MCP_TRANSPORT_REQUEST_HEADERS } from '../../src/config/warnings.js'
import { authConfig } from '../auth/config.js'
import {
  type FinishResult,
  startWebApp,
  type WebApp,
  signIn as webSignIn,
} from '../browser/web-app.js'
import { startTestGatehouse, type TestGatehouse } from '../helpers.js'

/** The scope of the first authorization request (what a step-up without `scope` asks again). */
function authorizeScope(result: FinishResult): string | null {
  return new URL(result.authorizationUrl ?? '').searchParams.get('scope')
}

const SUITE = hasChromium()
  ? 'the MCP SDK client in a web page, through gatehouse, signing in at the bridged IdP (Chromium)'
  : `the MCP SDK client in a web page (skipped: no Chromium at ${chromiumPath()}; npm run setup:test-tools)`

describe.skipIf(!hasChromium())(SUITE, () => {
  let app: WebApp
  let idp: MockIdp
  let backend: McpBackend
  let gh: TestGatehouse
  let browser: Browser
  let mcpUrl: string

  beforeAll(async () => {
    app = await startWebApp()
    // The IdP lets the app's origin call its token endpoint, as its "Trusted Origins" would.
    idp = await startMockIdp({ trustedOrigins: [app.origin] })
    backend = await startMcpBackend()
    const port = await freePort()
    mcpUrl = `http://127.0.0.1:${port}/mcp`
    gh = await startTestGatehouse(
      {
        ...authConfig({
          idpPort: idp.port,
          backendPort: backend.port,
          issuer: idp.issuer,
          resource: mcpUrl,
          // The seed's headers plus the MCP transport's own (docs/auth.md, browser MCP clients).
          allowHeaders: [
            'Origin',
            'Authorization',
            'Content-Type',
            ...MCP_TRANSPORT_REQUEST_HEADERS,
          ],
        }),
        gateways: { default: { port, address: '127.0.0.1' } },
      },
      { ephemeralPorts: false },
    )
    browser = await launchChromium()
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await gh?.stop('done')
    await backend?.stop()
    await idp?.stop()
    await app?.close()
  })

  function signIn(page: Page, login: string): Promise<FinishResult> {
    return webSignIn(page, app, mcpUrl, login)
  }

  it('alice: 401 → metadata → registration → sign-in at the IdP → token → initialize → tools/call', async () => {
    const page = await browser.newPage()
    const result = await signIn(page, 'alice')
    expect(result.error).toBeUndefined()
    expect(result.client).toMatchObject({ client_id: 'gatehouse-demo-client' })
    const authorize = new URL(result.authorizationUrl ?? '')
    expect(authorize.origin).toBe(idp.orgUrl)
    expect(authorize.searchParams.get('audience')).toBe('api://default')
    expect(result.server).toBe('mcp-backend')
    expect(result.tool).toContain('from the browser')
    expect(result.mcp.map((a) => a.status).every((s) => s >= 200 && s < 300)).toBe(true)
    expect(result.stepUps).toEqual([])
    // Registration was answered by the gateway; nothing reached the IdP's org endpoint.
    expect(await controlClient(idp.controlUrl).registrations()).toHaveLength(0)
    await page.close()
  })

  it('bob signs in but the rule refuses him: the page reads 403 insufficient_scope without a scope', async () => {
    const page = await browser.newPage()
    const result = await signIn(page, 'bob')
    expect(result.server).toBeUndefined()
    expect(result.error).toBeDefined()
    expect(result.mcp).toHaveLength(1)
    expect(result.mcp[0]?.status).toBe(403)
    const challenge = result.mcp[0]?.wwwAuthenticate ?? ''
    expect(challenge).toContain('error="insufficient_scope"')
    expect(challenge).toContain(
      `resource_metadata="${gh.url}/.well-known/oauth-protected-resource/mcp"`,
    )
    expect(challenge).not.toContain('scope="')
    // No scope to step up to (MCP 2025-11-25): the SDK asks at most once more for what it had.
    expect(result.stepUps.length).toBeLessThanOrEqual(1)
    for (const url of result.stepUps) {
      expect(new URL(url).searchParams.get('scope')).toBe(authorizeScope(result))
    }
    await page.close()
  })
})
