/**
 * A browser-based MCP client's view of the reference proxy, in real Chromium: what the CORS
 * filter must make readable for a web client (MCP Inspector and the like) to run the MCP
 * authorization flow, judged by the browser's own CORS enforcement rather than by reading
 * headers. The page is served from another loopback origin, so every request is cross-origin, and
 * it sends credentials, so the seed's `allowOrigins: *` with `allowCredentials: true` only works
 * if the origin is reflected.
 *
 * Needs Chromium (`npm run setup:test-tools` installs Debian's where it can); without one the suite
 * is reported as skipped and says why.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mutant } from '@gatehouse/mutation/mutants'
import { prepareMutant } from '@gatehouse/mutation/proxy-copy'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, hasChromium, launchChromium } from '../../ci/chromium.js'
import { INITIALIZE } from '../src/catalogue/util.js'
import { type Fixtures, type RunningGateway, startFixtures, startGateway } from '../src/stack.js'

/** What the page reports of one cross-origin fetch. */
interface Seen {
  /** The browser refused to hand over the response (a CORS failure): its error message. */
  blocked?: string
  status?: number
  /** Response headers as the page can read them (only CORS-safelisted or exposed ones). */
  headers?: Record<string, string>
  body?: string
}

/** Runs `fetch` inside the page, as a web client would, and reports what the page could read. */
function pageFetch(
  page: Page,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Seen> {
  return page.evaluate(
    async ({ url, init }) => {
      try {
        const res = await fetch(url, { ...init, credentials: 'include', mode: 'cors' })
        const headers: Record<string, string> = {}
        res.headers.forEach((value, name) => {
          headers[name] = value
        })
        return { status: res.status, headers, body: await res.text() }
      } catch (err) {
        return { blocked: String(err) }
      }
    },
    { url, init },
  )
}

const JSON_RPC = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
}

/** A browser page on its own loopback origin, with the embedded stack behind it. */
interface ClientPage {
  fixtures: Fixtures
  gateway: RunningGateway
  page: Page
  close(): Promise<void>
}

/** Starts the stack (the reference proxy, or a mutant of it) and a Chromium page to call it from. */
async function openClientPage(options: { mutant?: string } = {}): Promise<ClientPage> {
  const copy = options.mutant ? prepareMutant(mutant(options.mutant)) : undefined
  const fixtures = await startFixtures()
  const pageServer: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end('<!doctype html><title>browser MCP client</title>')
  })
  await new Promise<void>((r) => pageServer.listen(0, '127.0.0.1', r))
  const pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`
  // The harness's routes validate Origin (TRN-005): the page's origin is one they accept.
  const gateway = await startGateway(fixtures, {
    ...(copy ? { proxyDir: copy.proxyDir } : {}),
    extraOrigins: [pageOrigin],
  })
  const browser: Browser = await launchChromium()
  const page = await browser.newPage()
  await page.goto(`${pageOrigin}/`)
  return {
    fixtures,
    gateway,
    page,
    async close() {
      await browser.close()
      await new Promise<void>((r) => pageServer.close(() => r()))
      await gateway.stop()
      await fixtures.stop()
      copy?.remove()
    },
  }
}

const SUITE = hasChromium()
  ? 'a browser MCP client against the reference proxy (Chromium)'
  : `a browser MCP client against the reference proxy (skipped: no Chromium at ${chromiumPath()}; npm run setup:test-tools)`

describe.skipIf(!hasChromium())(SUITE, () => {
  let client: ClientPage
  let fixtures: Fixtures
  let gateway: RunningGateway
  let page: Page
  let base: string

  beforeAll(async () => {
    client = await openClientPage()
    ;({ fixtures, gateway, page } = client)
    base = gateway.target.base
  }, 60_000)

  afterAll(async () => {
    await client?.close()
  })

  it('reads the 401 challenge: the preflight passes before auth and WWW-Authenticate is exposed', async () => {
    const seen = await pageFetch(page, `${base}/mcp`, {
      method: 'POST',
      headers: JSON_RPC,
      body: INITIALIZE,
    })
    expect(seen.blocked).toBeUndefined()
    expect(seen.status).toBe(401)
    expect(seen.headers?.['www-authenticate']).toBe(
      // The harness's metadata lists scopes_supported, which the challenge names (AUTH-023).
      `Bearer resource_metadata="${gateway.target.configuredBase}/.well-known/oauth-protected-resource/mcp", scope="openid profile"`,
    )
  })

  it('follows discovery: protected-resource and authorization-server metadata are readable', async () => {
    const prm = await pageFetch(page, `${base}/.well-known/oauth-protected-resource/mcp`)
    expect(prm.status).toBe(200)
    expect(JSON.parse(prm.body ?? '{}')).toMatchObject({
      resource: `${gateway.target.configuredBase}/mcp`,
      authorization_servers: [`${gateway.target.configuredBase}/mcp`],
    })
    const asm = await pageFetch(page, `${base}/.well-known/oauth-authorization-server/mcp`)
    expect(asm.status).toBe(200)
    const metadata = JSON.parse(asm.body ?? '{}') as Record<string, string>
    expect(metadata.registration_endpoint).toBe(
      `${gateway.target.configuredBase}/.well-known/oauth-authorization-server/mcp/client-registration`,
    )
    expect(new URL(metadata.authorization_endpoint ?? '').searchParams.get('audience')).toBe(
      fixtures.idp.audience,
    )
  })

  it("registers at the gateway, which the IdP's own registration endpoint (no CORS) would refuse", async () => {
    const registration = {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'browser MCP client',
        redirect_uris: ['http://127.0.0.1:6274/oauth/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
      }),
    }
    const atGateway = await pageFetch(
      page,
      `${base}/.well-known/oauth-authorization-server/mcp/client-registration`,
      registration,
    )
    expect(atGateway.status).toBe(201)
    expect(JSON.parse(atGateway.body ?? '{}')).toMatchObject({
      client_id: fixtures.idp.publicClientId,
      token_endpoint_auth_method: 'none',
    })
    // The gap the gateway bridges: the org-level endpoint sends no CORS headers, so the browser
    // withholds its answer from the page whatever it was.
    const atIdp = await pageFetch(page, `${fixtures.idp.orgUrl}/oauth2/v1/clients`, registration)
    expect(atIdp.blocked).toMatch(/Failed to fetch/)
    // Without mcp.clientId the gateway proxies to the org URL; the provider's 401 (no API token)
    // still reaches the page, with the hint, because the gateway adds CORS to it.
    const proxied = await pageFetch(
      page,
      `${gateway.target.proxiedBase}/.well-known/oauth-authorization-server/mcp/client-registration`,
      registration,
    )
    expect(proxied.blocked).toBeUndefined()
    expect(proxied.status).toBe(401)
    expect(proxied.body).toContain('mcp.clientId')
  })

  it('calls MCP with a token and reads Mcp-Session-Id; a token failing the rule reads 403 insufficient_scope', async () => {
    const { access_token: alice } = await gateway.target.idp.control.token({ sub: 'alice' })
    const ok = await pageFetch(page, `${base}/mcp`, {
      method: 'POST',
      headers: { ...JSON_RPC, authorization: `Bearer ${alice}` },
      body: INITIALIZE,
    })
    expect(ok.blocked).toBeUndefined()
    expect(ok.status).toBe(200)
    expect(ok.headers?.['mcp-session-id']).toMatch(/\S+/)
    expect(ok.body).toContain('"serverInfo"')

    const { access_token: bob } = await gateway.target.idp.control.token({ sub: 'bob' })
    const denied = await pageFetch(page, `${base}/mcp`, {
      method: 'POST',
      headers: { ...JSON_RPC, authorization: `Bearer ${bob}` },
      body: INITIALIZE,
    })
    expect(denied.status).toBe(403)
    expect(denied.headers?.['www-authenticate']).toContain('error="insufficient_scope"')
    expect(JSON.parse(denied.body ?? '{}')).toMatchObject({ error: 'insufficient_scope' })
  })
})

describe.skipIf(!hasChromium())(
  "the same client behind a gateway that answers '*' to a credentialed request",
  () => {
    it('is blind: the browser withholds every answer (the mutant cors-wildcard-with-credentials)', async () => {
      const client = await openClientPage({ mutant: 'cors-wildcard-with-credentials' })
      try {
        const base = client.gateway.target.base
        const prm = await pageFetch(client.page, `${base}/.well-known/oauth-protected-resource/mcp`)
        expect(prm.blocked).toMatch(/Failed to fetch/)
        const challenge = await pageFetch(client.page, `${base}/mcp`, {
          method: 'POST',
          headers: JSON_RPC,
          body: INITIALIZE,
        })
        expect(challenge.blocked).toMatch(/Failed to fetch/)
      } finally {
        await client.close()
      }
    }, 60_000)
  },
)
