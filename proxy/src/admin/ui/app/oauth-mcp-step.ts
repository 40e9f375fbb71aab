/**
 * The OAuth flow debugger's last step: MCP `initialize`, `notifications/initialized` and
 * `tools/list` with the token the flow obtained — or, for a valid token the route's rules refuse,
 * the 403 with `error="insufficient_scope"` (RFC 6750 §3.1) that the spec expects there.
 */
import {
  header,
  initializeRequest,
  MCP_VERSION,
  mcpMessage,
  parseBearerChallenge,
  REV,
  type StepRunner,
} from './oauth-wire.js'

/** Runs the step. */
export async function mcpStep(
  run: StepRunner,
  mcpUrl: string,
  token: string | undefined,
): Promise<void> {
  const step = run.step(
    'mcp',
    '7. MCP initialize and tools/list with the token',
    'With a token the route admits, the server answers; with a valid token that its rules refuse, 403 with error="insufficient_scope".',
  )
  const init = await run.send(step, initializeRequest(mcpUrl, token))
  if (init?.status === 403) {
    const params = parseBearerChallenge(header(init, 'www-authenticate'))
    step.checks.push(
      {
        text: 'A valid token the rules refuse gets 403',
        cite: 'RFC 6750 §3.1: insufficient_scope "SHOULD respond with the HTTP 403 (Forbidden) status code"; seed: "Valid token failing the authorization rule: 403"',
        level: 'SHOULD',
        ok: true,
        seen: '403',
      },
      {
        text: 'The 403 says error="insufficient_scope"',
        cite: 'RFC 6750 §3.1: "insufficient_scope: The request requires higher privileges than provided by the access token"',
        level: 'SHOULD',
        ok: params?.error === 'insufficient_scope',
        seen: header(init, 'www-authenticate') ?? '(no WWW-Authenticate)',
      },
    )
    run.done(step, 'refused', "the token is valid, but the route's authorization refuses this user")
    return
  }
  const session = header(init, 'mcp-session-id')
  const common = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    'mcp-protocol-version': MCP_VERSION,
    ...(session ? { 'mcp-session-id': session } : {}),
  }
  step.checks.push({
    text: 'initialize succeeds with the token',
    cite: `${REV} Authorization: the access token is sent in the Authorization header of every request`,
    level: 'MUST',
    ok: init?.status === 200 && mcpMessage(init)?.result !== undefined,
    seen: String(init?.status ?? 'no answer'),
  })
  if (init?.status === 200) {
    await run.send(step, {
      method: 'POST',
      url: mcpUrl,
      headers: common,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    })
    const list = await run.send(step, {
      method: 'POST',
      url: mcpUrl,
      headers: common,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
    })
    const result = mcpMessage(list)?.result as { tools?: Array<{ name: string }> } | undefined
    step.checks.push({
      text: 'tools/list answers with the tools this user may call',
      cite: 'MCP 2026-07-28 Server Features §Tools: "To discover available tools, clients send a tools/list request"',
      level: 'MUST',
      ok: list?.status === 200 && Array.isArray(result?.tools),
      seen: result?.tools
        ? result.tools.map((t) => t.name).join(', ') || '(none)'
        : String(list?.status ?? 'no answer'),
    })
    if (session) {
      await run.send(step, { method: 'DELETE', url: mcpUrl, headers: common })
    }
  }
  run.done(step)
}
