/**
 * Broker mode end to end with real parts only (docs/design/broker.md, "Done when"): the official MCP
 * TypeScript SDK client (`@modelcontextprotocol/sdk` 1.x) with its OAuth client provider, given
 * only the gateway URL, against gatehouse in broker mode in front of the real MCP backend and the
 * real OpenID provider (mock-idp). The SDK discovers the gateway as its authorization server,
 * registers there (RFC 7591), sends the user to the gateway's /authorize; the user allows on the
 * consent page and signs in at mock-idp's form (played over HTTP by the test browser); the SDK
 * checks the `iss` of the response against the gateway's metadata (RFC 9207), exchanges the code
 * at the gateway's token endpoint, lists tools and calls `echo` as alice; bob is refused (403).
 */
import { MemoryOAuthClient } from '@gatehouse/support'
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signInThroughBroker, TestBrowser } from '../broker/browser.js'
import { type BrokerStack, startBrokerStack } from '../broker/stack.js'
import { sdkSignIn } from './sdk-sign-in.js'

let stack: BrokerStack

/** The test kit's in-memory provider, as a CLI MCP client keeps it; the test plays the browser. */
const testProvider = () =>
  new MemoryOAuthClient<OAuthDiscoveryState>({
    redirectUrl: 'http://127.0.0.1:33419/callback',
    clientName: 'gatehouse broker e2e',
  })

/** Statuses of the gateway's `/mcp` answers, as the SDK client received them. */
const mcpStatuses: number[] = []

/** The whole flow for a user; returns the connected client (or throws what connect threw). */
async function signInAndConnect(login: string) {
  const provider = testProvider()
  const { client } = await sdkSignIn({
    mcpUrl: new URL(stack.issuer),
    provider,
    // The user's browser: consent at the gateway, sign-in at mock-idp's form, back to the client.
    browser: async (url) => {
      const back = await signInThroughBroker(new TestBrowser(), url, login, provider.redirectUrl)
      expect(back.searchParams.get('iss')).toBe(stack.issuer)
      return back
    },
    statuses: mcpStatuses,
    clientName: 'broker-e2e',
  })
  return { client, provider }
}

beforeAll(async () => {
  stack = await startBrokerStack()
})
afterAll(async () => {
  await stack?.stop()
})

describe('MCP SDK 1.x client through gatehouse in broker mode', () => {
  it('alice: discovery → registration at the gateway → consent → IdP sign-in → token → tools/list → echo', async () => {
    const { client, provider } = await signInAndConnect('alice')
    const authorize = provider.authorizationUrl as URL
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${stack.issuer}/oauth/authorize`)
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256')
    expect(provider.clientInformation()?.client_id).toMatch(/^gh_/)
    expect(provider.tokens()?.refresh_token).toBeTruthy()
    const tools = await client.listTools()
    expect(tools.tools.map((t) => t.name)).toContain('echo')
    const result = await client.callTool({
      name: 'echo',
      arguments: { text: 'through the broker' },
    })
    expect(JSON.stringify(result.content)).toContain('through the broker')
    await client.close()
  })

  it('bob: the same flow, then 403 at the gateway (not in AI-Users)', async () => {
    mcpStatuses.length = 0
    await expect(signInAndConnect('bob')).rejects.toThrow()
    // 401 before sign-in; then only 403 (the SDK may refresh and retry once on insufficient_scope).
    expect(mcpStatuses[0]).toBe(401)
    expect(mcpStatuses.length).toBeGreaterThan(1)
    expect(mcpStatuses.slice(1).every((s) => s === 403)).toBe(true)
  })
})
