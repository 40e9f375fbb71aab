/**
 * The status page (proxy/src/admin/ui/app/status-view.ts) in Chromium: gateways, routes,
 * backends and policies with their conditions. After a reload (from the controls page) that the
 * proxy refuses, the page shows the failure with the file and the problem; after one that serves
 * a policy whose key set cannot be fetched (a wrong JWKS path, seed: "Policy accepted, not
 * programmed"), it shows that policy's `Programmed False` with its reason.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, hasChromium } from '../../../../../ci/chromium.js'
import type { GatehouseConfigInput } from '../../../../src/config/schema.js'
import { screenshot, startUiStack, type UiStack } from './ui-stack.js'

const SUITE = hasChromium()
  ? 'status page of the admin UI (Chromium, demo stack)'
  : `status page of the admin UI (skipped: no Chromium at ${chromiumPath()})`

/** The demo configuration with the mcp-auth policy changed by `change`. */
function withAuth(
  config: GatehouseConfigInput,
  change: (jwt: Record<string, unknown>) => void,
): GatehouseConfigInput {
  const copy = structuredClone(config)
  const traffic = copy.policies?.['mcp-auth']?.traffic as {
    jwtAuthentication: Record<string, unknown>
  }
  change(traffic.jwtAuthentication)
  return copy
}

describe.skipIf(!hasChromium())(SUITE, () => {
  let stack: UiStack
  let page: Page
  beforeAll(async () => {
    stack = await startUiStack()
    page = await stack.browser.newPage({ viewport: { width: 1200, height: 900 } })
  }, 60_000)
  afterAll(async () => {
    await stack?.stop()
  })

  /** The conditions of a policy as the page shows them. */
  const conditionsOf = (policy: string) =>
    page.locator(`tr:has([data-policy="${policy}"]) li[data-condition="Programmed"]`).innerText()

  async function reloadFromControls(): Promise<string> {
    await page.goto(`${stack.admin}/ui#controls`)
    await page.getByRole('button', { name: 'Reload configuration' }).click()
    await page.locator('#reload-result pre').waitFor()
    return page.locator('#reload-result').innerText()
  }

  it('shows every policy Programmed True with what it attaches to', async () => {
    await page.goto(`${stack.admin}/ui`)
    await page.locator('[data-policy="mcp-auth"]').waitFor()
    expect(await conditionsOf('mcp-auth')).toMatch(/Programmed\s+True\s+Programmed/)
    expect(await page.locator('tr:has([data-policy="mcp-tools"])').innerText()).toContain(
      'HTTPRoute/mcp',
    )
    expect(await page.locator('#reload-status').innerText()).toBe('No reload since start.')
    await screenshot(page, 'admin-ui-status')
  })

  it('shows a refused reload with the file and the problem; the running policies stay programmed', async () => {
    stack.write(withAuth(stack.config, (jwt) => (jwt.mode = 'Sloppy')))
    expect(await reloadFromControls()).toContain('Reload: failure')
    await page.goto(`${stack.admin}/ui#status`)
    const reload = page.locator('#reload-status')
    await expect.poll(() => reload.innerText()).toContain('failure')
    const text = await reload.innerText()
    expect(text).toContain('gatehouse.yaml')
    expect(text).toContain('policies.mcp-auth.traffic.jwtAuthentication.mode')
    expect(await conditionsOf('mcp-auth')).toMatch(/Programmed\s+True/)
  })

  it("shows a policy's Programmed False with its reason after a reload with a wrong JWKS path", async () => {
    stack.write(
      withAuth(stack.config, (jwt) => {
        const providers = jwt.providers as Array<{ jwks: { remote: { jwksPath: string } } }>
        ;(providers[0] as (typeof providers)[0]).jwks.remote.jwksPath = '/oauth2/wrong/v1/keys'
      }),
    )
    expect(await reloadFromControls()).toContain('Reload: success')
    await page.goto(`${stack.admin}/ui#status`)
    await expect
      .poll(() => conditionsOf('mcp-auth'), { timeout: 20_000 })
      .toMatch(/Programmed\s+False\s+JwksUnavailable/)
    expect(await conditionsOf('mcp-auth')).toContain('JWKS keyset is not available at')
    expect(await page.locator('#reload-status').innerText()).toContain('success')
    await screenshot(page, 'admin-ui-status-not-programmed')
  })
})
