/**
 * MCP Inspector's web UI (pinned; its server on Node 22) driven in Chromium against the demo
 * stack. In the seed's pass-through mode it refuses the gateway as its authorization server
 * (RFC 8414 §3.3; docs/design/broker.md) and shows only "Failed".
 */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, hasChromium, launchChromium } from '../../ci/chromium.js'
import { type InspectorWeb, runInspectorWeb, startInspectorWeb } from '../src/inspector.js'
import { type DemoStack, startDemoStack } from '../src/stack.js'
import { broker, passThrough } from './modes.js'

const SUITE = hasChromium()
  ? "MCP Inspector's web UI"
  : `MCP Inspector's web UI (skipped: no Chromium at ${chromiumPath()}; npm run setup:test-tools)`

describe.skipIf(!hasChromium())(SUITE, () => {
  let browser: Browser
  const stacks: DemoStack[] = []
  const inspectors: InspectorWeb[] = []

  beforeAll(async () => {
    browser = await launchChromium()
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    for (const i of inspectors) await i.stop()
    for (const s of stacks) await s.stop()
  })

  it('lists the tools and runs echo on a server without auth (the backend itself)', async () => {
    const stack = await startDemoStack()
    stacks.push(stack)
    const inspector = await startInspectorWeb(stack.backend.url)
    inspectors.push(inspector)
    const outcome = await runInspectorWeb({ inspector, browser, user: 'alice' })
    expect(outcome.error).toBeUndefined()
    expect(outcome.authorizations).toBe(0)
    expect(outcome.tools).toEqual(expect.arrayContaining(['echo', 'fetch', 'progress']))
    expect(outcome.echo).toBe('hello from MCP Inspector')
  }, 180_000)

  it('broker mode: alice connects (consent, IdP form), Tools lists echo, echo runs; bob is refused (insufficient_scope)', async () => {
    const stack = await startDemoStack({ configure: broker })
    stacks.push(stack)
    const inspector = await startInspectorWeb(stack.mcpUrl)
    inspectors.push(inspector)
    const alice = await runInspectorWeb({ inspector, browser, user: 'alice' })
    expect(alice.error).toBeUndefined()
    expect(alice.authorizations).toBe(1)
    // The demo's mcp-tools policy hides fetch from everyone outside "admins".
    expect(alice.tools).toEqual(['echo', 'progress'])
    expect(alice.echo).toBe('hello from MCP Inspector')
    // A fresh Inspector: its server keeps the OAuth tokens it got (alice's) for the next session.
    const forBob = await startInspectorWeb(stack.mcpUrl)
    inspectors.push(forBob)
    const bob = await runInspectorWeb({ inspector: forBob, browser, user: 'bob' })
    expect(bob.tools).toEqual([])
    expect(bob.authorizations).toBe(1)
    expect(bob.error).toMatch(/^Inspector: Failed\. .*insufficient_scope/)
  }, 240_000)

  it('pass-through, issuerMode Provider: shows Failed without a sign-in (RFC 8414 §3.3)', async () => {
    const stack = await startDemoStack({ configure: passThrough('Provider') })
    stacks.push(stack)
    const inspector = await startInspectorWeb(stack.mcpUrl)
    inspectors.push(inspector)
    const outcome = await runInspectorWeb({ inspector, browser, user: 'alice' })
    expect(outcome.error).toMatch(/^Inspector: Failed/)
    expect(outcome.authorizations).toBe(0)
    expect(outcome.tools).toEqual([])
  }, 180_000)
})
