/**
 * The traffic page (proxy/src/admin/ui/app/traffic-view.ts) in Chromium: requests made with curl
 * against the demo stack's gateway appear in the timeline with their auth decision (no token;
 * alice allowed by the rule; bob denied by it), the filters narrow it, credentials never show,
 * and the metrics charts read the counts from /metrics.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { promisify } from 'node:util'
import { initializeBody } from '@gatehouse/mock-mcp'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, hasChromium } from '../../../../../ci/chromium.js'
import { screenshot, startUiStack, type UiStack } from './ui-stack.js'

const SUITE = hasChromium()
  ? 'traffic page of the admin UI (Chromium, demo stack)'
  : `traffic page of the admin UI (skipped: no Chromium at ${chromiumPath()})`

/** POST /mcp initialize with curl, as the demo prints it (the gateway runs in this process: async). */
async function curlInitialize(gateway: string, token?: string): Promise<number> {
  const args = ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-X', 'POST', `${gateway}/mcp`]
  args.push(
    '-H',
    'content-type: application/json',
    '-H',
    'accept: application/json, text/event-stream',
  )
  if (token) args.push('-H', `authorization: Bearer ${token}`)
  args.push('-d', initializeBody('curl'))
  return Number((await promisify(execFile)('curl', args, { encoding: 'utf8' })).stdout)
}

describe.skipIf(!hasChromium() || !existsSync('/usr/bin/curl'))(SUITE, () => {
  let stack: UiStack
  let page: Page
  const tokens: Record<string, string> = {}
  beforeAll(async () => {
    stack = await startUiStack()
    for (const sub of ['alice', 'bob']) {
      const res = await fetch(`${stack.idp.orgUrl}/__control/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sub }),
      })
      tokens[sub] = ((await res.json()) as { access_token: string }).access_token
    }
    page = await stack.browser.newPage({ viewport: { width: 1280, height: 800 } })
    await page.goto(`${stack.admin}/ui#traffic`)
    await page.locator('#trace-state', { hasText: 'live' }).waitFor()
  }, 60_000)
  afterAll(async () => {
    await stack?.stop()
  })

  const row = (n: number) => page.locator('#timeline tbody tr').nth(n)

  it('shows a curl request without a token, with its auth decision: no token, 401', async () => {
    expect(await curlInitialize(stack.gateway)).toBe(401)
    await expect
      .poll(() => row(0).innerText())
      .toMatch(/POST \/mcp[\s\S]*mcp\[0\][\s\S]*no token[\s\S]*401/)
  })

  it("shows alice allowed and bob denied by the route's rule, with the rule, and never a token", async () => {
    expect(await curlInitialize(stack.gateway, tokens.alice)).toBe(200)
    await expect.poll(() => page.locator('#timeline tbody tr').count()).toBe(2)
    expect(await curlInitialize(stack.gateway, tokens.bob)).toBe(403)
    await expect.poll(() => page.locator('#timeline tbody tr').count()).toBe(3)
    await expect.poll(() => row(0).innerText()).toMatch(/403/)
    const bob = await row(0).innerText()
    expect(bob).toContain('bob: denied by mcp-auth rule "AI-Users" in jwt.groups')
    const alice = await row(1).innerText()
    expect(alice).toContain('alice: allowed by mcp-auth rule "AI-Users" in jwt.groups')
    expect(alice).toContain('initialize')
    expect(alice).toContain('mcp-backend')
    expect(alice).toMatch(/\b200\b/)
    const all = await page.locator('#timeline').innerText()
    for (const token of Object.values(tokens)) expect(all).not.toContain(token.slice(-20))
  })

  it('filters by user, status and path', async () => {
    await page.getByLabel('User (sub)').fill('bob')
    await expect.poll(() => page.locator('#timeline tbody tr').count()).toBe(1)
    await page.getByLabel('User (sub)').fill('')
    await page.getByLabel('Status', { exact: true }).fill('4xx')
    await expect.poll(() => page.locator('#timeline tbody tr').count()).toBe(2)
    await page.getByLabel('Status', { exact: true }).fill('')
    await page.getByLabel('Path', { exact: true }).fill('/.well-known')
    await expect.poll(() => page.locator('#timeline tbody tr').count()).toBe(0)
    await page.getByLabel('Path', { exact: true }).fill('')
  })

  it('charts the request counts from /metrics', async () => {
    await expect
      .poll(() => page.locator('#metrics-totals').innerText(), { timeout: 15_000 })
      .toMatch(/Since start: 3 requests, 2 with status ≥ 400/)
    expect(await page.locator('#charts svg[role="img"]').count()).toBe(4)
    await screenshot(page, 'admin-ui-traffic')
  })
})
