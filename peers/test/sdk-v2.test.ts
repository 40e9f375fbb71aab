/**
 * The official MCP SDK v2 client (`@modelcontextprotocol/client`, pinned) against the demo
 * stack, signing in in Chromium. In the seed's pass-through mode it refuses the gateway as its
 * authorization server, as RFC 8414 §3.3 and RFC 9207 tell it to (docs/design/broker.md).
 */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, hasChromium, launchChromium } from '../../ci/chromium.js'
import { runSdkV2Client } from '../src/sdk-v2.js'
import { type DemoStack, startDemoStack } from '../src/stack.js'
import { broker, passThrough } from './modes.js'

const SUITE = hasChromium()
  ? 'the MCP SDK v2 client'
  : `the MCP SDK v2 client (skipped: no Chromium at ${chromiumPath()}; npm run setup:test-tools)`

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

  it('broker mode: signs alice in (consent, IdP form), lists the tools and calls echo', async () => {
    const stack = await startDemoStack({ configure: broker })
    stacks.push(stack)
    const outcome = await runSdkV2Client({ mcpUrl: stack.mcpUrl, user: 'alice', browser })
    expect(outcome.error).toBeUndefined()
    expect(outcome.tools).toContain('echo')
    expect(outcome.echo).toBe('hello from the SDK v2 client')
    expect(outcome.authorizations).toBe(1)
    const bob = await runSdkV2Client({
      mcpUrl: stack.mcpUrl,
      user: 'bob',
      browser,
      maxAuthorizations: 2,
    })
    expect(bob.tools).toEqual([])
    expect(bob.mcpStatuses).toContain(403)
    expect(bob.error).toContain('403 insufficient_scope')
  }, 90_000)

  it("pass-through, issuerMode Provider: refuses the metadata, whose issuer is the IdP's (RFC 8414 §3.3), before any sign-in", async () => {
    const stack = await startDemoStack({ configure: passThrough('Provider') })
    stacks.push(stack)
    const outcome = await runSdkV2Client({ mcpUrl: stack.mcpUrl, user: 'alice', browser })
    expect(outcome.error).toContain('IssuerMismatchError')
    expect(outcome.error).toContain('RFC 8414 §3.3')
    expect(outcome.error).toContain(stack.idp.issuer)
    expect(outcome.authorizations).toBe(0)
    expect(outcome.tools).toEqual([])
  }, 60_000)

  it("pass-through, issuerMode Gateway: signs in, then refuses the response whose iss is the IdP's (RFC 9207)", async () => {
    const stack = await startDemoStack({ configure: passThrough('Gateway') })
    stacks.push(stack)
    const outcome = await runSdkV2Client({ mcpUrl: stack.mcpUrl, user: 'alice', browser })
    expect(outcome.error).toContain('IssuerMismatchError')
    expect(outcome.error).toContain('RFC 9207')
    expect(outcome.authorizations).toBe(1)
    expect(outcome.tools).toEqual([])
  }, 60_000)
})
