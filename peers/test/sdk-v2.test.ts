/**
 * The official MCP SDK v2 client (`@modelcontextprotocol/client`, pinned) against the demo
 * stack, signing in in Chromium. In the seed's pass-through mode it refuses the gateway as its
 * authorization server, as RFC 8414 §3.3 and RFC 9207 tell it to (docs/design/broker.md).
 */
import { expect, it } from 'vitest'
import { runSdkV2Client } from '../src/sdk-v2.js'
import { describeWithChromium } from './chromium-rig.js'
import { broker, passThrough } from './modes.js'

describeWithChromium('the MCP SDK v2 client', (rig) => {
  it('broker mode: signs alice in (consent, IdP form), lists the tools and calls echo', async () => {
    const stack = await rig.stack({ configure: broker })
    const outcome = await runSdkV2Client({
      mcpUrl: stack.mcpUrl,
      user: 'alice',
      browser: rig.browser,
    })
    expect(outcome.error).toBeUndefined()
    expect(outcome.tools).toContain('echo')
    expect(outcome.echo).toBe('hello from the SDK v2 client')
    expect(outcome.authorizations).toBe(1)
    const bob = await runSdkV2Client({
      mcpUrl: stack.mcpUrl,
      user: 'bob',
      browser: rig.browser,
      maxAuthorizations: 2,
    })
    expect(bob.tools).toEqual([])
    expect(bob.mcpStatuses).toContain(403)
    expect(bob.error).toContain('403 insufficient_scope')
  }, 90_000)

  it("pass-through, issuerMode Provider: refuses the metadata, whose issuer is the IdP's (RFC 8414 §3.3), before any sign-in", async () => {
    const stack = await rig.stack({ configure: passThrough('Provider') })
    const outcome = await runSdkV2Client({
      mcpUrl: stack.mcpUrl,
      user: 'alice',
      browser: rig.browser,
    })
    expect(outcome.error).toContain('IssuerMismatchError')
    expect(outcome.error).toContain('RFC 8414 §3.3')
    expect(outcome.error).toContain(stack.idp.issuer)
    expect(outcome.authorizations).toBe(0)
    expect(outcome.tools).toEqual([])
  }, 60_000)

  it("pass-through, issuerMode Gateway: signs in, then refuses the response whose iss is the IdP's (RFC 9207)", async () => {
    const stack = await rig.stack({ configure: passThrough('Gateway') })
    const outcome = await runSdkV2Client({
      mcpUrl: stack.mcpUrl,
      user: 'alice',
      browser: rig.browser,
    })
    expect(outcome.error).toContain('IssuerMismatchError')
    expect(outcome.error).toContain('RFC 9207')
    expect(outcome.authorizations).toBe(1)
    expect(outcome.tools).toEqual([])
  }, 60_000)
})
