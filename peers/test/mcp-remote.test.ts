/**
 * mcp-remote (pinned) run as a stdio MCP host runs it, against the demo stack, its sign-in
 * completed in Chromium. In the seed's pass-through mode it refuses the gateway as its
 * authorization server (RFC 8414 §3.3; docs/design/broker.md).
 */
import { expect, it } from 'vitest'
import { runMcpRemote } from '../src/mcp-remote.js'
import { describeWithChromium } from './chromium-rig.js'
import { broker, passThrough } from './modes.js'

describeWithChromium('mcp-remote over stdio', (rig) => {
  it('broker mode: alice signs in (consent, IdP form) and lists the tools and calls echo over stdio; bob gets 403', async () => {
    const stack = await rig.stack({ configure: broker })
    const alice = await runMcpRemote({ mcpUrl: stack.mcpUrl, user: 'alice', browser: rig.browser })
    expect(alice.error).toBeUndefined()
    expect(alice.tools).toContain('echo')
    expect(alice.echo).toBe('hello through mcp-remote')
    expect(alice.authorizations).toBe(1)
    const bob = await runMcpRemote({ mcpUrl: stack.mcpUrl, user: 'bob', browser: rig.browser })
    expect(bob.tools).toEqual([])
    expect(bob.authorizations).toBeGreaterThanOrEqual(1)
    expect(bob.error).toContain('status: 403')
    expect(bob.error).toContain('insufficient_scope')
  }, 240_000)

  it("pass-through, issuerMode Provider: exits refusing the metadata, whose issuer is the IdP's (RFC 8414 §3.3)", async () => {
    const stack = await rig.stack({ configure: passThrough('Provider') })
    const outcome = await runMcpRemote({
      mcpUrl: stack.mcpUrl,
      user: 'alice',
      browser: rig.browser,
    })
    expect(outcome.error).toContain('IssuerMismatchError')
    expect(outcome.error).toContain('RFC 8414 §3.3')
    expect(outcome.authorizations).toBe(0)
    expect(outcome.tools).toEqual([])
  }, 180_000)
})
