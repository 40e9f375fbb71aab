/**
 * The flow debugger's walk (proxy/src/admin/ui/app/oauth-flow.ts) against the demo stack's gateway
 * through the real relay, without a person: discovery and registration hold, and an authorization
 * response that does not carry the request's state stops the flow there (RFC 6749 §4.1.2) before
 * any code reaches the token endpoint. The whole walk with a sign-in: debugger-view.browser.test.ts.
 * A URL that is no MCP endpoint fails the first step (no 401).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OAuthFlow } from '../../../../src/admin/ui/app/oauth-flow.js'
import { relay } from '../../../../src/admin/ui/relay.js'
import { startUiStack, type UiStack } from './ui-stack.js'

describe('OAuthFlow', () => {
  let stack: UiStack
  beforeAll(async () => {
    stack = await startUiStack(undefined, { browser: false })
  }, 60_000)
  afterAll(async () => {
    await stack?.stop()
  })

  const flow = (mcpUrl: string, answer: (url: string, state: string) => URLSearchParams) =>
    new OAuthFlow(mcpUrl, 'http://127.0.0.1:1/ui/callback', {
      send: (ask) => relay({ headers: {}, ...ask }),
      signIn: async (url, state) => answer(url, state),
      changed: () => undefined,
    })

  it('walks discovery and registration, and stops at a redirect with another state', async () => {
    let authorizeUrl = ''
    const f = flow(`${stack.gateway}/mcp`, (url) => {
      authorizeUrl = url
      return new URLSearchParams({ code: 'c', state: 'forged', iss: `${stack.gateway}/mcp` })
    })
    await f.run()
    expect(f.steps.map((s) => [s.id, s.verdict])).toEqual([
      ['challenge', 'holds'],
      ['resource', 'holds'],
      ['as', 'holds'],
      ['registration', 'holds'],
      ['authorize', 'fails'],
    ])
    const params = new URL(authorizeUrl).searchParams
    expect(params.get('resource')).toBe(`${stack.gateway}/mcp`)
    expect(params.get('code_challenge_method')).toBe('S256')
    expect(f.steps[4]?.checks.find((c) => c.text.includes('state'))?.ok).toBe(false)
    expect(f.hasToken).toBe(false)
  })

  it('fails the first step on a URL that is no MCP endpoint (405, not the 401 challenge)', async () => {
    const f = flow(
      `${stack.gateway}/.well-known/oauth-protected-resource/mcp`,
      () => new URLSearchParams(),
    )
    await f.run()
    expect(f.steps[0]?.verdict).toBe('fails')
    expect(f.steps[0]?.checks[0]).toMatchObject({ ok: false, seen: '405' })
  })
})
