/**
 * mcp-remote (pinned) run as a stdio MCP host runs it, against the demo stack, its sign-in
 * completed in Chromium. In the seed's pass-through mode it refuses the gateway as its
 * authorization server (RFC 8414 §3.3; issue 22).
 */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, hasChromium, launchChromium } from '../../ci/chromium.js'
import { runMcpRemote } from '../src/mcp-remote.js'
import { type DemoStack, startDemoStack } from '../src/stack.js'
import { passThrough } from './modes.js'

const SUITE = hasChromium()
  ? 'mcp-remote over stdio'
  : `mcp-remote over stdio (skipped: no Chromium at ${chromiumPath()}; npm run setup:test-tools)`

describe.skipIf(!hasChromium())(SUITE, () => {
  let browser: Browser
  const stacks: DemoStack[] = []

  beforeAll(async () => {
    browser = await launchChromium()
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    for (const s of stacks) await s.stop()
  })

  it("pass-through, issuerMode Provider: exits refusing the metadata, whose issuer is the IdP's (RFC 8414 §3.3)", async () => {
    const stack = await startDemoStack({ configure: passThrough('Provider') })
    stacks.push(stack)
    const outcome = await runMcpRemote({ mcpUrl: stack.mcpUrl, user: 'alice', browser })
    expect(outcome.error).toContain('IssuerMismatchError')
    expect(outcome.error).toContain('RFC 8414 §3.3')
    expect(outcome.authorizations).toBe(0)
    expect(outcome.tools).toEqual([])
  }, 90_000)
})
