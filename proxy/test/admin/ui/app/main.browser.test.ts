/**
 * The UI's shell (proxy/src/admin/ui/app/main.ts) in Chromium: the read-only view on a gateway
 * (`ui.gateway`: status and traffic only, no addresses, no controls, no debugger), the views
 * reached with the keyboard alone, a phone-width window without horizontal scrolling of the page,
 * and the dark theme (system preference and the theme switch).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, hasChromium } from '../../../../../ci/chromium.js'
import { screenshot, startUiStack, type UiStack } from './ui-stack.js'

const SUITE = hasChromium()
  ? 'admin UI shell: gateway view, keyboard, narrow window, dark theme (Chromium)'
  : `admin UI shell (skipped: no Chromium at ${chromiumPath()})`

describe.skipIf(!hasChromium())(SUITE, () => {
  let stack: UiStack
  beforeAll(async () => {
    stack = await startUiStack((config) => {
      config.ui = { gateway: 'default' }
    })
  }, 60_000)
  afterAll(async () => {
    await stack?.stop()
  })

  it('serves the read-only view on the gateway: status without addresses, no controls or debugger', async () => {
    const page = await stack.browser.newPage({ viewport: { width: 1100, height: 800 } })
    await page.goto(`${stack.gateway}/gatehouse/ui`)
    await page.locator('[data-policy="mcp-auth"]').waitFor()
    const nav = await page.getByRole('navigation', { name: 'Views' }).innerText()
    expect(nav).toContain('Status')
    expect(nav).not.toContain('Controls')
    expect(nav).not.toContain('OAuth flow debugger')
    const text = await page.locator('main').innerText()
    expect(text).toMatch(/Programmed\s+True\s+Programmed/)
    expect(text).not.toContain(`127.0.0.1:${stack.backend.port}`)
    expect(text).not.toContain(stack.idp.issuer)
    await screenshot(page, 'gateway-ui-status')
    await page.goto(`${stack.gateway}/gatehouse/ui#traffic`)
    await expect.poll(() => page.locator('main').innerText()).toContain('ui.showTrace is off')
    await page.close()
  })

  it('reaches every view with the keyboard alone, and marks the current one', async () => {
    const page = await stack.browser.newPage()
    await page.goto(`${stack.admin}/ui`)
    await page.locator('[data-policy]').first().waitFor()
    const visited: string[] = []
    for (const view of ['Traffic', 'OAuth flow debugger', 'Controls']) {
      // Tab until the link of the view has the focus, then Enter.
      for (let i = 0; i < 10; i++) {
        await page.keyboard.press('Tab')
        if ((await page.evaluate('document.activeElement?.textContent')) === view) break
      }
      await page.keyboard.press('Enter')
      await expect.poll(() => page.locator('#view-title').innerText()).toBe(view)
      visited.push(await page.locator('nav [aria-current="page"]').innerText())
      await page
        .locator('header')
        .focus()
        .catch(() => undefined)
      await page.evaluate('document.activeElement?.blur()')
    }
    expect(visited).toEqual(['Traffic', 'OAuth flow debugger', 'Controls'])
    // Every form field has a label.
    const unlabelled: unknown = await page
      .locator('input, select')
      .evaluateAll((els) =>
        (els as unknown as Array<{ id: string; labels: { length: number } | null }>)
          .filter((e) => !e.labels?.length)
          .map((e) => e.id),
      )
    expect(unlabelled).toEqual([])
    await page.close()
  })

  it('fits a phone-width window and follows a dark system theme, or the theme switch', async () => {
    const page = await stack.browser.newPage({
      viewport: { width: 390, height: 844 },
      colorScheme: 'dark',
    })
    await page.goto(`${stack.admin}/ui`)
    await page.locator('[data-policy="mcp-auth"]').waitFor()
    const background = () =>
      page.evaluate<string>('getComputedStyle(document.body).backgroundColor')
    expect(await background()).toBe('rgb(13, 17, 23)')
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      390,
    )
    await screenshot(page, 'admin-ui-narrow-dark', false)
    await page.getByLabel('Theme').selectOption('light')
    expect(await background()).toBe('rgb(255, 255, 255)')
    await page.close()
  })
})
