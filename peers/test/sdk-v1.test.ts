/**
 * The official MCP SDK 1.x client (pinned) against the demo stack (`npm start`'s configuration
 * on free ports), signing in in Chromium: consent at the gateway (broker mode) and mock-idp's form.
 */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, hasChromium, launchChromium } from '../../ci/chromium.js'
import { runSdkV1Client } from '../src/sdk-v1.js'
import { type DemoStack, startDemoStack } from '../src/stack.js'
import { broker, passThrough } from './modes.js'

const SUITE = hasChromium()
  ? 'the MCP SDK 1.x client against the demo stack in broker mode'
  : `the MCP SDK 1.x client (skipped: no Chromium at ${chromiumPath()}; npm run setup:test-tools)`

describe.skipIf(!hasChromium())(SUITE, () => {
  let stack: DemoStack
  let browser: Browser

  beforeAll(async () => {
    stack = await startDemoStack({ configure: broker })
    browser = await launchChromium()
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await stack?.stop()
  })

  it('signs alice in, lists the tools and calls echo', async () => {
    const outcome = await runSdkV1Client({ mcpUrl: stack.mcpUrl, user: 'alice', browser })
    expect(outcome.error).toBeUndefined()
    expect(outcome.tools).toContain('echo')
    expect(outcome.echo).toBe('hello from the SDK 1.x client')
    expect(outcome.authorizations).toBe(1)
    expect(outcome.mcpStatuses[0]).toBe(401)
  }, 60_000)

  it('signs bob in, but the gateway refuses him with 403 and he gets no tools', async () => {
    const outcome = await runSdkV1Client({
      mcpUrl: stack.mcpUrl,
      user: 'bob',
      browser,
      maxAuthorizations: 2,
    })
    expect(outcome.error).toBeDefined()
    expect(outcome.tools).toEqual([])
    expect(outcome.echo).toBeUndefined()
    expect(outcome.mcpStatuses).toContain(403)
    expect(outcome.mcpStatuses.every((s) => s === 401 || s === 403)).toBe(true)
    expect(outcome.error).toContain('403')
  }, 60_000)

  it("pass-through, issuerMode Provider: gets through too, as it does not check the metadata's issuer", async () => {
    const seed = await startDemoStack({ configure: passThrough('Provider') })
    try {
      const outcome = await runSdkV1Client({ mcpUrl: seed.mcpUrl, user: 'alice', browser })
      expect(outcome.error).toBeUndefined()
      expect(outcome.echo).toBe('hello from the SDK 1.x client')
    } finally {
      await seed.stop()
    }
  }, 60_000)
})
