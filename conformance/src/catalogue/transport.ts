/**
 * Profile `transport`: MCP Streamable HTTP through the gateway with a valid token, using the
 * official MCP SDK client, and by hand where the SDK hides what is judged (Origin, event ids,
 * many streams). Sources: seed Endpoints (POST /mcp), MCP 2025-06-18 and 2025-11-25 "Transports".
 */
import { type CheckContext, CheckFailure, CheckSkipped, must, type Requirement } from '../types.js'
import { connectSdkClient, type SdkConnection } from './sdk-client.js'
import { manyStreams, resumption } from './transport-streams.js'
import { postMcp, token } from './util.js'

/**
 * The one browser origin the harness's MCP routes accept besides their own (the CORS checks'
 * page): `mcp.originValidation.allowedOrigins`, so a foreign `Origin` gets 403 (TRN-005; MCP
 * 2025-06-18 Transports: servers MUST validate Origin). The seed's CORS `allowOrigins: *` alone
 * would accept any origin. A target configures it (harness-config.ts, conformance/README.md).
 */
export const APP_ORIGIN = 'http://conformance-app.example'

/** An origin no configuration accepts: a page an attacker serves (DNS rebinding). */
const FOREIGN_ORIGIN = 'http://rebind-attacker.example'

async function connect(ctx: CheckContext): Promise<SdkConnection> {
  const token = (await ctx.target.idp.control.token({ sub: 'alice' })).access_token
  return connectSdkClient(ctx, token)
}

/** Profile `transport`: MCP Streamable HTTP through the gateway, with the official SDK. */
export const transport: Requirement[] = [
  {
    id: 'TRN-001',
    level: 'MUST',
    quote: 'The proxy forwards MCP traffic at the path prefix /mcp to an MCP backend.',
    profile: 'transport',
    source: 'seed: Endpoints (POST /mcp, initialize); seed: What the service does 1',
    text: 'An MCP client with a valid token initializes a session through the gateway and calls a tool.',
    async check(ctx) {
      const { client } = await connect(ctx)
      try {
        const tools = await client.listTools()
        must(tools.tools.length > 0, "the backend's tools", 'none')
        const name = tools.tools.some((t) => t.name === 'echo') ? 'echo' : undefined
        if (name) {
          const result = await client.callTool({ name, arguments: { text: 'conformance' } })
          must(
            JSON.stringify(result.content).includes('conformance'),
            'the tool result',
            JSON.stringify(result.content).slice(0, 200),
          )
        }
      } finally {
        await client.close()
      }
    },
  },
  {
    id: 'TRN-002',
    level: 'MUST',
    quote: 'Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID and Accept pass through',
    profile: 'transport',
    source:
      'MCP 2025-06-18 Transports §Session Management (Mcp-Session-Id); docs/design/errors.md (headers pass through)',
    text: 'The Mcp-Session-Id header passes both ways: the session id reaches the client and follow-up requests in the session work.',
    async check(ctx) {
      const { client, transport } = await connect(ctx)
      try {
        must(
          typeof transport.sessionId === 'string' && transport.sessionId.length > 0,
          'an Mcp-Session-Id from the server',
          String(transport.sessionId),
        )
        const tools = await client.listTools().catch((err: Error) => {
          throw new CheckFailure('a follow-up request in the session to succeed', err.message)
        })
        must(tools.tools.length > 0, 'tools listed in the session', 'none')
      } finally {
        await client.close()
      }
    },
  },
  {
    id: 'TRN-003',
    level: 'MUST',
    quote:
      'an SSE response (text/event-stream) reaches the client event by event as the backend writes it',
    profile: 'transport',
    source:
      'MCP 2025-06-18 Transports §Sending Messages to the Server (SSE stream); docs/design/errors.md (no buffering)',
    text: 'An SSE response is streamed event by event, not buffered: a progress notification reaches the client while the backend still holds the call.',
    async check(ctx) {
      const origin = ctx.target.backendOrigin
      if (!origin)
        throw new CheckSkipped("the backend is not observable (needs mcp-backend's /__release)")
      const { client } = await connect(ctx)
      const seen: number[] = []
      try {
        await client.callTool(
          { name: 'progress', arguments: { steps: 2, delayMs: 0, holdAfterStep: 1 } },
          undefined,
          {
            timeout: 8000,
            onprogress: (p) => {
              seen.push(p.progress)
              if (p.progress === 1) void fetch(`${origin}/__release`, { method: 'POST' })
            },
          },
        )
      } catch (err) {
        await fetch(`${origin}/__release`, { method: 'POST' })
        throw new CheckFailure(
          'progress 1 before the call ends (the backend waits for it)',
          `${(err as Error).message}; progress seen: ${JSON.stringify(seen)}`,
        )
      } finally {
        await client.close()
      }
      must(JSON.stringify(seen) === '[1,2]', 'progress 1 then 2', JSON.stringify(seen))
    },
  },
  {
    id: 'TRN-004',
    level: 'SHOULD',
    quote:
      'Forwarding of /mcp (POST, GET, DELETE) to the MCP backend with streaming in both directions and no buffering',
    profile: 'transport',
    source:
      'MCP 2025-06-18 Transports §Session Management (DELETE ends a session); docs/design/errors.md (DELETE forwarded)',
    text: 'DELETE with the session id ends the session; a later request in it gets 404.',
    async check(ctx) {
      const { client, transport } = await connect(ctx)
      const sessionId = String(transport.sessionId)
      await transport.terminateSession()
      await client.close()
      const token = (await ctx.target.idp.control.token({ sub: 'alice' })).access_token
      const res = await ctx.http(`${ctx.target.base}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      })
      must(res.status === 404, '404', `${res.status}`)
    },
  },
  {
    id: 'TRN-005',
    level: 'MUST',
    quote:
      'If the Origin header is present and invalid, servers MUST respond with HTTP 403 Forbidden.',
    profile: 'transport',
    source:
      'MCP 2025-06-18 and 2025-11-25 Transports §Security Warning (servers MUST validate the Origin header: DNS rebinding)',
    text: `With a valid token, POST /mcp from a foreign Origin gets 403 while an allowed Origin (${APP_ORIGIN}, the configured one) is answered 200.`,
    async check(ctx) {
      const bearer = await token(ctx)
      const allowed = await postMcp(ctx, { token: bearer, headers: { origin: APP_ORIGIN } })
      must(
        allowed.status === 200,
        `200 for Origin ${APP_ORIGIN} (configure it in the accepted origins)`,
        `${allowed.status}`,
      )
      const foreign = await postMcp(ctx, { token: bearer, headers: { origin: FOREIGN_ORIGIN } })
      must(foreign.status === 403, `403 for Origin ${FOREIGN_ORIGIN}`, `${foreign.status}`)
    },
  },
  resumption,
  manyStreams,
]
