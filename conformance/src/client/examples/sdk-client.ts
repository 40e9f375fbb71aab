#!/usr/bin/env node
/**
 * A conformance client built on the official MCP TypeScript SDK (`@modelcontextprotocol/sdk`):
 * its `Client`, `StreamableHTTPClientTransport` and OAuth machinery (`auth()`: discovery,
 * registration, PKCE, resource indicators, refresh, step-up) with an `OAuthClientProvider` the way
 * a command-line MCP client writes one. The parts the SDK leaves to the application are done here
 * as an application should: the sign-in (headless: the IdP signs a test user in and redirects at
 * once, so reading the `Location` of the authorization URL is the whole "browser"), and checking
 * the authorization response — `state` (RFC 6749 §10.12) and `iss` (RFC 9207) — before its code
 * is redeemed, and the authorization-server metadata's `issuer` (RFC 8414 §3.3), which the SDK
 * does not check: a strict client, so it refuses (and the suite counts the refusal as conformant)
 * where the gateway serves another issuer's metadata.
 *
 * A harness client: its "browser" is one GET whose redirect it reads, so it works only against an
 * IdP that signs a test user in without a page (mock-idp with `autoSignIn`, as every client-mode
 * scenario has). It is not a client for a deployment with a real sign-in page (`npm start`'s
 * demo, a real IdP); there, use a real MCP client (docs/client-testing.md).
 *
 * Calling convention of the official MCP conformance suite's client mode: the server URL is the
 * last argument; `MCP_CONFORMANCE_SCENARIO`, and `MCP_CONFORMANCE_CONTEXT` (JSON) for
 * `auth/pre-registration`, come from the environment.
 *
 *   npm run conformance -- client --command "npx tsx conformance/src/client/examples/sdk-client.ts"
 */
import {
  followAuthorizationRedirect,
  MemoryOAuthClient,
  preRegisteredFromEnvironment,
} from '@gatehouse/support/oauth-client'
import {
  type OAuthDiscoveryState,
  UnauthorizedError,
} from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

const REDIRECT_URL = 'http://localhost:3000/callback'
/** The client metadata document URL of the official suite's clients (CIMD, MCP 2025-11-25). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json'
/** Authorizations one operation may take (the first sign-in and at most two step-ups). */
const MAX_AUTHORIZATIONS = 3

const serverUrl = new URL(process.argv.at(-1) ?? '')
/**
 * The test kit's in-memory provider (@gatehouse/support), headless: its "browser" is one GET whose
 * redirect it reads; it checks `state`, `iss` and `error`, and the metadata's issuer
 * (`strictIssuer`), before a code is redeemed.
 */
const provider = new MemoryOAuthClient<OAuthDiscoveryState>({
  redirectUrl: REDIRECT_URL,
  clientName: 'gatehouse conformance SDK client',
  clientMetadataUrl: CLIENT_METADATA_URL,
  preRegistered: preRegisteredFromEnvironment(REDIRECT_URL),
  authorize: followAuthorizationRedirect,
  strictIssuer: true,
})

/**
 * Connects, completing authorization when the SDK asks for it (`UnauthorizedError` after it sent
 * the user to the authorization URL): `finishAuth(code)`, then a new connection.
 */
async function connect(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  for (let authorizations = 0; ; authorizations++) {
    const transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider })
    const client = new Client({ name: 'gatehouse-sdk-client', version: '0.1.0' })
    try {
      await client.connect(transport)
      return { client, transport }
    } catch (err) {
      const code = provider.code
      if (!(err instanceof UnauthorizedError) || !code) throw err
      if (authorizations + 1 >= MAX_AUTHORIZATIONS) {
        throw new Error(
          `gave up after ${MAX_AUTHORIZATIONS} authorizations: the server keeps refusing`,
        )
      }
      provider.code = undefined
      await transport.finishAuth(code)
    }
  }
}

/**
 * A request of the session, authorized again when the server challenges it at runtime (403
 * `insufficient_scope`: the SDK starts the step-up and throws `UnauthorizedError`): the code is
 * redeemed and the request sent again, within the same limit.
 */
async function request<T>(
  transport: StreamableHTTPClientTransport,
  send: () => Promise<T>,
): Promise<T> {
  for (let authorizations = 0; ; authorizations++) {
    try {
      return await send()
    } catch (err) {
      const code = provider.code
      if (!(err instanceof UnauthorizedError) || !code) throw err
      if (authorizations + 1 >= MAX_AUTHORIZATIONS)
        throw new Error(`gave up after ${MAX_AUTHORIZATIONS} step-up authorizations`)
      provider.code = undefined
      await transport.finishAuth(code)
    }
  }
}

try {
  const { client, transport } = await connect()
  const { tools } = await request(transport, () => client.listTools())
  for (const tool of tools.filter((t) => t.name === 'echo' || t.name === 'test-tool')) {
    await request(transport, () =>
      client.callTool({
        name: tool.name,
        arguments: tool.name === 'echo' ? { text: 'conformance' } : {},
      }),
    )
  }
  await client.close()
  process.exit(0)
} catch (err) {
  process.stderr.write(`sdk-client: ${(err as Error).message}\n`)
  process.exit(1)
}
