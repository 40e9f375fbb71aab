/**
 * The OAuth flow debugger (proxy/src/admin/ui/app/debugger-view.ts) in Chromium against the demo
 * stack's gateway (broker mode): it walks 401 → protected-resource metadata → authorization-server
 * metadata (issuer check) → its own registration → sign-in in a new tab (the gateway's consent
 * page, then the mock IdP's form) → token → MCP initialize and tools/list. As alice every step
 * holds; as bob the last step shows the 403 the route's rule answers. Screenshots of both go to
 * docs/images/.
 */

import { completeSignIn } from '@gatehouse/peers/sign-in'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, hasChromium } from '../../../../../ci/chromium.js'
import { IMAGES, screenshot, startUiStack, type UiStack } from './ui-stack.js'

/** What the test reads of an element in the page (this program has no DOM types). */
interface PageElement {
  getAttribute(name: string): string | null
}

const SUITE = hasChromium()
  ? 'OAuth flow debugger in the admin UI (Chromium, demo stack)'
  : `OAuth flow debugger in the admin UI (skipped: no Chromium at ${chromiumPath()})`

describe.skipIf(!hasChromium())(SUITE, () => {
  let stack: UiStack
  beforeAll(async () => {
    stack = await startUiStack()
  }, 60_000)
  afterAll(async () => {
    await stack?.stop()
  })

  /** Runs the debugger as `user` up to its last step; returns the page. */
  async function walk(user: string): Promise<Page> {
    const page = await stack.browser.newPage({ viewport: { width: 1100, height: 900 } })
    await page.goto(`${stack.admin}/ui#debugger`)
    await expect.poll(() => page.inputValue('#mcp-url')).toBe(`${stack.gateway}/mcp`)
    await page.getByRole('button', { name: 'Start the flow' }).click()
    const signIn = page.getByRole('link', { name: 'Open the sign-in page in a new tab' })
    await signIn.waitFor()
    const [tab] = await Promise.all([page.context().waitForEvent('page'), signIn.click()])
    await completeSignIn(tab, { user, done: (url) => url.pathname === '/ui/callback' })
    await page.locator('[data-step="mcp"]:not([data-verdict="waiting"])').waitFor()
    // The callback page handed the answer over and took the code out of its address bar.
    await expect.poll(() => new URL(tab.url()).search).toBe('')
    await tab.close()
    return page
  }

  const verdicts = (page: Page): Promise<string[][]> =>
    page
      .locator('[data-step]')
      .evaluateAll((els) =>
        (els as unknown as PageElement[]).map((e) => [
          e.getAttribute('data-step') ?? '',
          e.getAttribute('data-verdict') ?? '',
        ]),
      )

  it('completes the flow as alice: every step holds, tools/list lists the tools', async () => {
    const page = await walk('alice')
    expect(await verdicts(page)).toEqual([
      ['challenge', 'holds'],
      ['resource', 'holds'],
      ['as', 'holds'],
      ['registration', 'holds'],
      ['authorize', 'holds'],
      ['token', 'holds'],
      ['mcp', 'holds'],
    ])
    const as = page.locator('[data-step="as"]')
    await expect.poll(() => as.innerText()).toContain(`issuer is identical to ${stack.gateway}/mcp`)
    await expect.poll(() => as.innerText()).toContain('RFC 8414 §3.3')
    const mcp = await page.locator('[data-step="mcp"]').innerText()
    expect(mcp).toContain('tools/list answers with the tools this user may call')
    expect(mcp).toMatch(/seen: .*echo/)
    // The token is used, never shown: every Authorization header and token member is redacted.
    const text = await page.locator('#steps').innerText()
    expect(text).toContain('"access_token": "[redacted]"')
    expect(text).toContain('authorization: Bearer [redacted]')
    expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/)
    await page.evaluate('window.scrollTo(0, 0)')
    await screenshot(page, 'admin-ui-debugger', false)
    await page.close()
  })

  it("shows bob's 403 at the MCP step: valid token, refused by the route's rule", async () => {
    const page = await walk('bob')
    const mcp = page.locator('[data-step="mcp"]')
    expect(await mcp.getAttribute('data-verdict')).toBe('refused')
    const text = await mcp.innerText()
    expect(text).toContain('A valid token the rules refuse gets 403')
    expect(text).toContain('error="insufficient_scope"')
    expect(text).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/mcp → 403/)
    expect((await verdicts(page)).slice(0, 6).every(([, v]) => v === 'holds')).toBe(true)
    await mcp.scrollIntoViewIfNeeded()
    await mcp.screenshot({ path: `${IMAGES}admin-ui-debugger-bob.png` })
    await page.close()
  })
})
