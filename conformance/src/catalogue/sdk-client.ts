/**
 * The official MCP SDK client that the `transport`, `mcp-policy` and `session-binding` checks
 * connect through the gateway with. The SDK is loaded when a check first connects, not when the
 * catalogue is only listed or judged (the CLI's listing, the report, the traceability table).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { type CheckContext, CheckFailure } from '../types.js'

/** A connected SDK client and its transport (for `sessionId` and `protocolVersion`). */
export interface SdkConnection {
  client: Client
  transport: StreamableHTTPClientTransport
}

/**
 * Connects the SDK client to the target's `/mcp` with `bearer`, initialized.
 *
 * @param what - what the check expected, for the {@link CheckFailure} when initializing fails.
 */
export async function connectSdkClient(
  ctx: CheckContext,
  bearer: string,
  what = 'the MCP SDK client to initialize through the gateway',
): Promise<SdkConnection> {
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ])
  const client = new Client({ name: 'gatehouse-conformance', version: '0.1.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`${ctx.target.base}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${bearer}` } },
  })
  try {
    await client.connect(transport)
  } catch (err) {
    throw new CheckFailure(what, err instanceof Error ? err.message : String(err))
  }
  return { client, transport }
}

/** Whether `err` is the SDK's JSON-RPC error (`McpError`): the server answered with an error. */
export async function isMcpError(err: unknown): Promise<boolean> {
  const { McpError } = await import('@modelcontextprotocol/sdk/types.js')
  return err instanceof McpError
}
