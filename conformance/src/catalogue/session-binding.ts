/**
 * Profile `transport`, sessions: an MCP session id the backend issued to one user is not served
 * to another user's token. Sources: MCP Security Best Practices "Session Hijacking"; MCP
 * 2025-06-18 Transports "Session Management".
 */
import { CheckSkipped, must, type Requirement } from '../types.js'
import { connectSdkClient } from './sdk-client.js'
import { token } from './util.js'

/** Profile `transport`: sessions bound to the user who opened them. */
export const sessionBinding: Requirement[] = [
  {
    id: 'TRN-050',
    level: 'SHOULD',
    profile: 'transport',
    quote: 'MCP servers SHOULD bind session IDs to user specific information.',
    source:
      'MCP Security Best Practices, "Session Hijacking" ("MCP servers SHOULD bind session IDs to user-specific information"); MCP 2025-06-18 Transports, "Session Management" (404 for a session the server does not hold)',
    text: "Another user's token (same group, same rules) on alice's Mcp-Session-Id is refused with a 4xx and never served in her session, which goes on for her.",
    async check(ctx) {
      const alice = await token(ctx, { sub: 'alice' })
      const { client, transport } = await connectSdkClient(
        ctx,
        alice,
        'alice to initialize through the gateway',
      )
      try {
        const session = transport.sessionId
        if (!session) throw new CheckSkipped('the backend issued no session id (stateless)')
        // carol passes the same rules as alice (the AI-Users group): only the session differs.
        const carol = await token(ctx, { sub: 'carol', claims: { groups: ['AI-Users'] } })
        const res = await ctx.http(`${ctx.target.base}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${carol}`,
            'mcp-session-id': session,
            'mcp-protocol-version': transport.protocolVersion ?? '2025-06-18',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
        })
        must(
          res.status >= 400 && res.status < 500,
          "a 4xx for another user's session (404: a session this user does not hold)",
          `${res.status}${res.status === 200 ? ": carol was served in alice's session" : ''}`,
        )
        const tools = await client.listTools()
        must(tools.tools.length > 0, "alice's session to go on", 'no tools')
      } finally {
        await client.close()
      }
    },
  },
]
