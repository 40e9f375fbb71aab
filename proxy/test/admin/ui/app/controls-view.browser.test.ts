/**
 * The controls page (proxy/src/admin/ui/app/controls-view.ts) in Chromium: the log filter is read
 * and set, a reload runs, the heap profile downloads. Then the same controls from a page of
 * another site (http://localhost:<port>, while the admin is http://127.0.0.1:<port>): a form
 * POST and no-cors requests to /logging, /reload, the relay and the profiles change nothing — the
 * admin's browser guard refuses them — which the test checks by their effects.
 */
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, hasChromium } from '../../../../../ci/chromium.js'
import { screenshot, startUiStack, type UiStack } from './ui-stack.js'

const SUITE = hasChromium()
  ? 'controls page of the admin UI, and the same controls from another site (Chromium)'
  : `controls page of the admin UI (skipped: no Chromium at ${chromiumPath()})`

/** A page of another site that fires every control of the admin at `admin`. */
function attackerPage(admin: string, gateway: string): string {
  const relay = JSON.stringify({ method: 'POST', url: `${gateway}/mcp`, headers: {}, body: '{}' })
  return `<!doctype html><title>evil</title>
<form id="f" method="POST" action="${admin}/logging?level=trace" target="sink"></form>
<iframe name="sink"></iframe>
<script>
  const opts = { mode: 'no-cors', credentials: 'include' }
  Promise.allSettled([
    fetch('${admin}/reload', { ...opts, method: 'POST' }),
    fetch('${admin}/logging?level=debug', { ...opts, method: 'POST' }),
    fetch('${admin}/ui/relay', { ...opts, method: 'POST', body: ${JSON.stringify(relay)} }),
    fetch('${admin}/debug/pprof/heap', opts),
    fetch('${admin}/debug/pprof/profile?seconds=1', opts),
    fetch('${admin}/debug/trace?follow=1', opts),
  ]).then(() => { document.getElementById('f').submit(); document.title = 'fired' })
</script>`
}

describe.skipIf(!hasChromium())(SUITE, () => {
  let stack: UiStack
  let evil: Server
  beforeAll(async () => {
    stack = await startUiStack()
    evil = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(attackerPage(stack.admin, stack.gateway))
    })
    evil.listen(0, '127.0.0.1')
    await once(evil, 'listening')
  }, 60_000)
  afterAll(async () => {
    evil?.close()
    await stack?.stop()
  })

  const level = async () => (await (await fetch(`${stack.admin}/logging`)).text()).trim()
  const requestsTotal = async () => {
    const text = await (await fetch(`${stack.admin}/metrics`)).text()
    return text
      .split('\n')
      .filter((l) => l.startsWith('gatehouse_requests_total'))
      .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0)
  }

  it('reads and sets the log filter, reloads, and downloads a heap profile', async () => {
    const page = await stack.browser.newPage({ viewport: { width: 1000, height: 700 } })
    await page.goto(`${stack.admin}/ui#controls`)
    await expect
      .poll(() => page.locator('#log-result').innerText())
      .toBe('current log level is info')
    await page.getByLabel('Log filter').fill('info,proxy::httpproxy=debug')
    await page.getByRole('button', { name: 'Apply' }).click()
    await expect.poll(level).toBe('current log level is info,proxy::httpproxy=debug')
    await page.getByLabel('Log filter').fill('loud')
    await page.getByRole('button', { name: 'Apply' }).click()
    await expect
      .poll(() => page.locator('#log-result').innerText())
      .toContain('invalid log filter "loud"')
    await page.getByRole('button', { name: 'Reload configuration' }).click()
    await expect
      .poll(() => page.locator('#reload-result').innerText())
      .toContain('Reload: unchanged')
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download heap profile' }).click(),
    ])
    expect(download.suggestedFilename()).toMatch(/^gatehouse-heap-.*\.pb\.gz$/)
    await screenshot(page, 'admin-ui-controls')
    await page.close()
  })

  it('refuses every control fired from a page of another site: nothing changes', async () => {
    const before = {
      level: await level(),
      reload: await fetch(`${stack.admin}/config_dump`).then((r) => r.json()),
      requests: await requestsTotal(),
    }
    const page = await stack.browser.newPage()
    const port = (evil.address() as AddressInfo).port
    // localhost and 127.0.0.1 are different sites: the admin page's origin is not the attacker's.
    await page.goto(`http://localhost:${port}/`)
    await expect.poll(() => page.title()).toBe('fired')
    await page.frameLocator('iframe[name="sink"]').locator('body').waitFor()
    const sink = await page.frameLocator('iframe[name="sink"]').locator('body').innerText()
    expect(sink).toContain('refused')
    expect(await level()).toBe(before.level)
    const after = (await fetch(`${stack.admin}/config_dump`).then((r) => r.json())) as {
      reload?: { at: string }
    }
    expect(after.reload?.at).toBe((before.reload as { reload?: { at: string } }).reload?.at)
    // The relay would have sent a request through the gateway: none was counted.
    expect(await requestsTotal()).toBe(before.requests)
    await page.close()
  })
})
