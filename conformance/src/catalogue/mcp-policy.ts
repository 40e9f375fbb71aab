/**
 * Profile `mcp-policy`: policy on MCP messages, not only on the route (docs/auth.md; seed:
 * "An MCP authorization policy can authorize individual tools"; "the claims … are available to
 * other route-level policies such as rate limiting"). The target denies the tool `fetch` to users
 * outside the group `admins` and limits subjects starting with `ratelimit-` to 3 `tools/call` a
 * minute (conformance/README.md, "Judging another gateway"). Checks use the official SDK client
 * where a client would, and raw requests where a status or header is judged.
 */
import { randomUUID } from 'node:crypto'
import { type CheckContext, CheckFailure, CheckSkipped, must, type Requirement } from '../types.js'
import { connectSdkClient, isMcpError, type SdkConnection } from './sdk-client.js'
import { token } from './util.js'

/** The tool the target denies to users outside `admins`. */
const DENIED_TOOL = 'fetch'
/** `tools/call` a `ratelimit-*` subject may send per minute. */
const RATE_LIMIT = 3

const ADMIN_CLAIMS = { claims: { groups: ['AI-Users', 'admins'] } }

async function connect(
  ctx: CheckContext,
  req: Record<string, unknown> = { sub: 'alice' },
): Promise<SdkConnection & { bearer: string }> {
  const bearer = await token(ctx, req)
  return { ...(await connectSdkClient(ctx, bearer)), bearer }
}

/** Runs `fn` with a connected client and closes it. */
async function withClient<T>(
  ctx: CheckContext,
  req: Record<string, unknown> | undefined,
  fn: (c: Awaited<ReturnType<typeof connect>>) => Promise<T>,
): Promise<T> {
  const c = await connect(ctx, req)
  try {
    return await fn(c)
  } finally {
    await c.client.close()
  }
}

async function backendRan(ctx: CheckContext, tool: string, since: number): Promise<boolean> {
  const origin = ctx.target.backendOrigin
  if (!origin) return false
  const timeline = (await (await fetch(`${origin}/__timeline`)).json()) as Array<{
    seq: number
    event: string
    tool: string
  }>
  return timeline.some((e) => e.seq >= since && e.event === 'tool_started' && e.tool === tool)
}

async function nextSeq(ctx: CheckContext): Promise<number> {
  const origin = ctx.target.backendOrigin
  if (!origin) return 0
  const timeline = (await (await fetch(`${origin}/__timeline`)).json()) as Array<{ seq: number }>
  return (timeline.at(-1)?.seq ?? -1) + 1
}

/** `POST /mcp` of one JSON-RPC message in an existing session, recorded as evidence. */
function postInSession(
  ctx: CheckContext,
  c: Pick<SdkConnection, 'transport'> & { bearer: string },
  message: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return ctx.http(`${ctx.target.base}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${c.bearer}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...(c.transport.sessionId ? { 'mcp-session-id': c.transport.sessionId } : {}),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  })
}

const callEcho = (id: number) => ({
  id,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text: `conformance ${id}` } },
})

/** Profile `mcp-policy`: per-tool authorization, list filtering, rate limits, header checks. */
export const mcpPolicy: Requirement[] = [
  {
    id: 'MCPP-001',
    level: 'MUST',
    quote:
      'An MCP authorization policy can authorize individual tools instead of the whole endpoint; its fields: not shown.',
    profile: 'mcp-policy',
    source:
      'seed: GatewayPolicy ("an MCP authorization policy can authorize individual tools"); MCP 2025-06-18 Tools §Error Handling',
    text: `A tools/call of a tool the policy denies (${DENIED_TOOL}, for a user outside admins) is answered with a JSON-RPC error and never reaches the backend; a user the policy allows calls it.`,
    async check(ctx) {
      const since = await nextSeq(ctx)
      await withClient(ctx, { sub: 'alice' }, async ({ client }) => {
        const outcome = await client
          .callTool({ name: DENIED_TOOL, arguments: { url: 'http://127.0.0.1:9/' } })
          .then(
            (result) => `a result: ${JSON.stringify(result).slice(0, 200)}`,
            (err: unknown) => err,
          )
        must(
          await isMcpError(outcome),
          `a JSON-RPC error for ${DENIED_TOOL} (the denied tool)`,
          outcome instanceof Error ? `${outcome.name}: ${outcome.message}` : String(outcome),
        )
      })
      must(
        !(await backendRan(ctx, DENIED_TOOL, since)),
        `the backend never to run ${DENIED_TOOL}`,
        `the backend ran ${DENIED_TOOL}`,
      )
      await withClient(ctx, { sub: 'alice', ...ADMIN_CLAIMS }, async ({ client }) => {
        const result = await client
          .callTool({ name: DENIED_TOOL, arguments: { url: 'http://127.0.0.1:9/' } })
          .catch((err: unknown) => {
            throw new CheckFailure(
              `an admin's ${DENIED_TOOL} call to reach the backend`,
              (err as Error).message,
            )
          })
        must(
          Array.isArray(result.content),
          'a tools/call result for the admin',
          JSON.stringify(result).slice(0, 200),
        )
      })
    },
  },
  {
    id: 'MCPP-002',
    level: 'MUST',
    quote:
      'An MCP authorization policy can authorize individual tools instead of the whole endpoint; its fields: not shown.',
    profile: 'mcp-policy',
    source:
      'seed: GatewayPolicy (MCP authorization policy); agentgateway mcpAuthorization (list filtering)',
    text: `tools/list through the gateway hides the tool the caller may not call (${DENIED_TOOL} for a user outside admins) and keeps the others; an admin sees it.`,
    async check(ctx) {
      const names = await withClient(ctx, { sub: 'alice' }, async ({ client }) =>
        (await client.listTools()).tools.map((t) => t.name),
      )
      must(!names.includes(DENIED_TOOL), `tools/list without ${DENIED_TOOL}`, JSON.stringify(names))
      must(names.includes('echo'), 'the allowed tools (echo) still listed', JSON.stringify(names))
      const adminNames = await withClient(
        ctx,
        { sub: 'alice', ...ADMIN_CLAIMS },
        async ({ client }) => (await client.listTools()).tools.map((t) => t.name),
      )
      must(
        adminNames.includes(DENIED_TOOL),
        `${DENIED_TOOL} listed for an admin`,
        JSON.stringify(adminNames),
      )
    },
  },
  {
    id: 'MCPP-003',
    level: 'MUST',
    quote:
      'The claims of the verified token are also available to other route-level policies such as rate limiting and transformations.',
    profile: 'mcp-policy',
    source:
      'seed: GatewayPolicy ("claims … available to other route-level policies such as rate limiting"); RFC 6585 §4; RFC 9110 §10.2.3',
    text: `A subject over its rate limit (${RATE_LIMIT} tools/call a minute for ratelimit-* subjects) gets 429 with Retry-After, and other subjects are not limited by its bucket.`,
    async check(ctx) {
      const sub = `ratelimit-${randomUUID()}`
      await withClient(ctx, { sub, claims: { groups: ['AI-Users'] } }, async (c) => {
        for (let i = 1; i <= RATE_LIMIT; i++) {
          const res = await postInSession(ctx, c, callEcho(i))
          must(res.status === 200, `call ${i} of ${RATE_LIMIT} admitted (200)`, String(res.status))
        }
        const limited = await postInSession(ctx, c, callEcho(RATE_LIMIT + 1))
        must(limited.status === 429, `429 for call ${RATE_LIMIT + 1}`, String(limited.status))
        const retry = limited.headers.get('retry-after') ?? ''
        must(
          /^[1-9]\d*$/.test(retry),
          'Retry-After with a positive number of seconds',
          retry || '(none)',
        )
      })
      const other = `ratelimit-${randomUUID()}`
      await withClient(ctx, { sub: other, claims: { groups: ['AI-Users'] } }, async (c) => {
        const res = await postInSession(ctx, c, callEcho(1))
        must(res.status === 200, "another subject's call admitted", String(res.status))
      })
    },
  },
  {
    id: 'MCPP-004',
    level: 'SHOULD',
    quote:
      'Rate limiting keyed by a CEL expression over claims and MCP fields (e.g. per jwt.sub per tool), local token buckets, 429 with Retry-After and RateLimit headers',
    profile: 'mcp-policy',
    source: 'draft-ietf-httpapi-ratelimit-headers-10 §3, §4; docs/observability.md',
    text: 'A 429 from a rate limit carries the RateLimit-Policy and RateLimit fields, the latter with r=0.',
    async check(ctx) {
      const sub = `ratelimit-${randomUUID()}`
      await withClient(ctx, { sub, claims: { groups: ['AI-Users'] } }, async (c) => {
        let res = await postInSession(ctx, c, callEcho(1))
        for (let i = 2; i <= RATE_LIMIT + 1 && res.status !== 429; i++) {
          res = await postInSession(ctx, c, callEcho(i))
        }
        must(res.status === 429, 'a 429 within the limit plus one', String(res.status))
        const policy = res.headers.get('ratelimit-policy') ?? ''
        const state = res.headers.get('ratelimit') ?? ''
        must(/;q=\d+/.test(policy), 'RateLimit-Policy with a quota (q=)', policy || '(none)')
        must(/;r=0\b/.test(state), 'RateLimit with r=0', state || '(none)')
      })
    },
  },
  {
    id: 'MCPP-005',
    level: 'MUST',
    quote:
      'Servers that process the request body MUST reject requests where the values specified in the headers do not match the corresponding values in the request body.',
    profile: 'mcp-policy',
    source:
      'MCP 2026-07-28 Streamable HTTP §Server Validation (Mcp-Method, Mcp-Name; SEP-2243), applied to a 2025-11-25 session',
    text: 'A request in a 2025-11-25 session whose Mcp-Name header names another tool than its body is refused with 400, and the body never reaches the backend (MOD-001 judges the same in 2026-07-28 traffic).',
    async check(ctx) {
      const since = await nextSeq(ctx)
      // An admin may call the tool the body names: only the header check can refuse it.
      await withClient(ctx, { sub: 'alice', ...ADMIN_CLAIMS }, async (c) => {
        const res = await postInSession(
          ctx,
          c,
          {
            id: 9,
            method: 'tools/call',
            params: { name: DENIED_TOOL, arguments: { url: 'http://127.0.0.1:9/' } },
          },
          { 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
        )
        must(res.status === 400, '400 for a contradicting Mcp-Name', String(res.status))
      })
      must(
        !(await backendRan(ctx, DENIED_TOOL, since)),
        'the backend not to run the tool the body names',
        `the backend ran ${DENIED_TOOL}`,
      )
    },
  },
  {
    id: 'MCPP-050',
    level: 'MUST',
    quote:
      'An MCP authorization policy can authorize individual tools instead of the whole endpoint; its fields: not shown.',
    profile: 'mcp-policy',
    source:
      'seed: GatewayPolicy ("an MCP authorization policy can authorize individual tools"); RFC 8615 §3 (a well-known URI names a document, not another endpoint)',
    text: `A tools/call of the denied tool (${DENIED_TOOL}, for a user outside admins) POSTed to a path under /.well-known/ that is no OAuth document is not forwarded: the policy holds on every path the route matches.`,
    async check(ctx) {
      const origin = ctx.target.backendOrigin
      if (!origin) throw new CheckSkipped('no backend origin given: what reached it cannot be told')
      const path = `/.well-known/oauth-protected-resource/mcp/${randomUUID()}`
      const bearer = await token(ctx, { sub: 'alice' })
      await ctx.http(`${ctx.target.base}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${bearer}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: DENIED_TOOL, arguments: { url: 'http://127.0.0.1:9/' } },
        }),
      })
      const seen = (await (await fetch(`${origin}/__requests`)).json()) as Array<{ path: string }>
      must(
        !seen.some((r) => r.path === path),
        `the backend never to receive the call sent to ${path}`,
        `the backend received POST ${path}`,
      )
    },
  },
]
