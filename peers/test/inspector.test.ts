/**
 * MCP Inspector's web UI (pinned; its server on Node 22) driven in Chromium against the demo
 * stack. In the seed's pass-through mode it refuses the gateway as its authorization server
 * (RFC 8414 §3.3; docs/design/broker.md) and shows only "Failed".
 */
import { expect, it } from 'vitest'
import { runInspectorWeb, startInspectorWeb } from '../src/inspector.js'
import { describeWithChromium } from './chromium-rig.js'
import { broker, passThrough } from './modes.js'

describeWithChromium("MCP Inspector's web UI", (rig) => {
  it('lists the tools and runs echo on a server without auth (the backend itself)', async () => {
    const stack = await rig.stack()
    const inspector = rig.stopAfter(await startInspectorWeb(stack.backend.url))
    const outcome = await runInspectorWeb({ inspector, browser: rig.browser, user: 'alice' })
    expect(outcome.error).toBeUndefined()
    expect(outcome.authorizations).toBe(0)
    expect(outcome.tools).toEqual(expect.arrayContaining(['echo', 'fetch', 'progress']))
    expect(outcome.echo).toBe('hello from MCP Inspector')
  }, 180_000)

  it('broker mode: alice connects (consent, IdP form), Tools lists echo, echo runs; bob is refused (insufficient_scope)', async () => {
    const stack = await rig.stack({ configure: broker })
    const inspector = rig.stopAfter(await startInspectorWeb(stack.mcpUrl))
    const alice = await runInspectorWeb({ inspector, browser: rig.browser, user: 'alice' })
    expect(alice.error).toBeUndefined()
    expect(alice.authorizations).toBe(1)
    // The demo's mcp-tools policy hides fetch from everyone outside "admins".
    expect(alice.tools).toEqual(['echo', 'progress'])
    expect(alice.echo).toBe('hello from MCP Inspector')
    // A fresh Inspector: its server keeps the OAuth tokens it got (alice's) for the next session.
    const forBob = rig.stopAfter(await startInspectorWeb(stack.mcpUrl))
    const bob = await runInspectorWeb({ inspector: forBob, browser: rig.browser, user: 'bob' })
    expect(bob.tools).toEqual([])
    expect(bob.authorizations).toBe(1)
    expect(bob.error).toMatch(/^Inspector: Failed\. .*insufficient_scope/)
  }, 240_000)

  it('pass-through, issuerMode Provider: shows Failed without a sign-in (RFC 8414 §3.3)', async () => {
    const stack = await rig.stack({ configure: passThrough('Provider') })
    const inspector = rig.stopAfter(await startInspectorWeb(stack.mcpUrl))
    const outcome = await runInspectorWeb({ inspector, browser: rig.browser, user: 'alice' })
    expect(outcome.error).toMatch(/^Inspector: Failed/)
    expect(outcome.authorizations).toBe(0)
    expect(outcome.tools).toEqual([])
  }, 180_000)
})
