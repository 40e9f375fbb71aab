/**
 * mcp-remote (pinned) run as a stdio MCP host runs it, against the demo stack, its sign-in
 * completed in Chromium. In the seed's pass-through mode it refuses the gateway as its
 * authorization server (RFC 8414 §3.3; docs/design/broker.md).
 */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, hasChromium, launchChromium } from '../../ci/chromium.js'
import { runMcpRemote } from '../src/mcp-remote.js'
import { type DemoStack, startDemoStack } from '../src/stack.js'
import { broker, passThrough } from './modes.js'

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

  it('broker mode: alice signs in (consent, IdP form) and lists the tools and calls echo over stdio; bob gets 403', async () => {
    const stack = await startDemoStack({ configure: broker })
    stacks.push(stack)
    const alice = await runMcpRemote({ mcpUrl: stack.mcpUrl, user: 'alice', browser })
    expect(alice.error).toBeUndefined()
    expect(alice.tools).toContain('echo')
    expect(alice.echo).toBe('hello through mcp-remote')
    expect(alice.authorizations).toBe(1)
    const bob = await runMcpRemote({ mcpUrl: stack.mcpUrl, user: 'bob', browser })
    expect(bob.tools).toEqual([])
    expect(bob.authorizations).toBeGreaterThanOrEqual(1)
    expect(bob.error).toContain('status: 403')
    expect(bob.error).toContain('insufficient_scope')
  }, 240_000)

  it("pass-through, issuerMode Provider: exits refusing the metadata, whose issuer is the IdP's (RFC 8414 §3.3)", async () => {
    const stack = await startDemoStack({ configure: passThrough('Provider') })
    stacks.push(stack)
    const outcome = await runMcpRemote({ mcpUrl: stack.mcpUrl, user: 'alice', browser })
    expect(outcome.error).toContain('IssuerMismatchError')
    expect(outcome.error).toContain('RFC 8414 §3.3')
    expect(outcome.authorizations).toBe(0)
    expect(outcome.tools).toEqual([])
  }, 180_000)
})
