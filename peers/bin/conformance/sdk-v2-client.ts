#!/usr/bin/env node
/**
 * The official MCP SDK v2 client (`@modelcontextprotocol/client`, pinned) wrapped for
 * `npm run conformance -- client --command` (the official convention: server URL last,
 * `MCP_CONFORMANCE_SCENARIO` and `MCP_CONFORMANCE_CONTEXT` in the environment). Its OAuth
 * provider is what an application writes around the SDK, no more: dynamic registration (or the
 * pre-registered client of `auth/pre-registration`), the headless sign-in (one GET of the
 * authorization URL, its `Location` read; the harness's IdP signs in by itself), `state` checked
 * (the SDK leaves that to the application) and the callback's parameters handed to
 * `finishAuth`, which checks `iss` (RFC 9207). Exit 0 after `tools/list` and `echo`, 1 otherwise.
 *
 *   npm run conformance -- client --command "npx tsx peers/bin/conformance/sdk-v2-client.ts"
 */
import {
  followAuthorizationRedirect,
  MemoryOAuthClient,
  preRegisteredFromEnvironment,
} from '@gatehouse/support'
import {
  Client,
  type OAuthDiscoveryState,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client'

const REDIRECT_URL = 'http://127.0.0.1:3000/callback'
/**
 * The client's metadata document (MCP 2025-11-25, Client ID Metadata Documents): the official
 * suite's URL, which `auth/basic-cimd` expects; the SDK uses it only where the server advertises
 * `client_id_metadata_document_supported`.
 */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json'
const MAX_AUTHORIZATIONS = 3

const serverUrl = new URL(process.argv.at(-1) ?? '')
/**
 * The revision the harness asks for (`MCP_CONFORMANCE_PROTOCOL_VERSION`): 2026-07-28 pins the
 * SDK's modern era (no initialize; `server/discover`, per-request `_meta` and headers); anything
 * else leaves it on its default, the 2025-era `initialize` handshake.
 */
const MODERN = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION === '2026-07-28'
/** The test kit's provider, headless; SDK v2 checks `iss` and `error` itself in `finishAuth`. */
const provider = new MemoryOAuthClient<OAuthDiscoveryState>({
  redirectUrl: REDIRECT_URL,
  clientName: 'MCP SDK v2 client (gatehouse peers)',
  clientMetadataUrl: CLIENT_METADATA_URL,
  preRegistered: preRegisteredFromEnvironment(REDIRECT_URL),
  authorize: followAuthorizationRedirect,
  sdkChecksResponse: true,
})

async function connect(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  for (;;) {
    const transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider })
    const client = new Client(
      { name: 'gatehouse-peers-sdk-v2', version: '0.1.0' },
      MODERN ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
    )
    try {
      await client.connect(transport)
      return { client, transport }
    } catch (err) {
      const params = provider.callbackParams
      if (!(err instanceof UnauthorizedError) || !params) throw err
      if (provider.authorizations >= MAX_AUTHORIZATIONS) {
        throw new Error(`gave up after ${MAX_AUTHORIZATIONS} authorizations`)
      }
      provider.callbackParams = undefined
      await transport.finishAuth(params)
    }
  }
}

/**
 * One request, authorizing again when the SDK asks for it mid-session (a 403 insufficient_scope
 * after initialize: it sends the user to the authorization URL, then throws UnauthorizedError).
 */
async function withReauthorization<T>(
  transport: StreamableHTTPClientTransport,
  call: () => Promise<T>,
): Promise<T> {
  for (;;) {
    try {
      return await call()
    } catch (err) {
      const params = provider.callbackParams
      if (!(err instanceof UnauthorizedError) || !params) throw err
      if (provider.authorizations >= MAX_AUTHORIZATIONS) {
        throw new Error(`gave up after ${MAX_AUTHORIZATIONS} authorizations`)
      }
      provider.callbackParams = undefined
      await transport.finishAuth(params)
    }
  }
}

try {
  const { client, transport } = await connect()
  const { tools } = await withReauthorization(transport, () => client.listTools())
  if (tools.some((t) => t.name === 'echo')) {
    await withReauthorization(transport, () =>
      client.callTool({ name: 'echo', arguments: { text: 'conformance' } }),
    )
  }
  await client.close()
  process.exit(0)
} catch (err) {
  process.stderr.write(`sdk-v2-client: ${(err as Error).name}: ${(err as Error).message}\n`)
  process.exit(1)
}
