/**
 * MCP 2026-07-28 traffic through the gateway: no `initialize`, no session, the per-request
 * `_meta` envelope and the request metadata headers (`MCP-Protocol-Version`, `Mcp-Method`,
 * `Mcp-Name`, `Mcp-Param-*`), removed methods, error codes and cache hints of that revision. The
 * rules bind "servers" (the gateway with its backend, as a client sees them) and
 * "intermediaries" (the gateway itself: what it answers without forwarding, judged from the
 * backend's `/__requests` when the backend is the suite's own). Every check follows 2026-07-28
 * only (`specVersions`), so `--spec-version 2025-11-25` leaves them out.
 *
 * Requests are built by `modernRequest` of `@gatehouse/mock-mcp`, the same the backend's tests
 * use. The target's MCP policy (stack.ts `MCP_TOOLS_TRAFFIC`) denies the tool `fetch` and the
 * resource `mock://notes/readme` to users outside `admins`.
 */
import { randomUUID } from 'node:crypto'
import {
  headerValue,
  type ModernRequestOptions,
  modernRequest,
} from '@gatehouse/mock-mcp/modern-requests'
import type { SpecRevision } from '../spec-version.js'
import { type CheckContext, CheckSkipped, must, type Requirement } from '../types.js'
import { token } from './util.js'

/** Where 2026-07-28 sentences come from. */
const MCP26 = 'MCP 2026-07-28'
const ONLY_2026: readonly SpecRevision[] = ['2026-07-28']

/** The resource the target's MCP policy denies to users outside `admins` (stack.ts). */
export const DENIED_RESOURCE = 'mock://notes/readme'
const ADMIN = { sub: 'alice', claims: { groups: ['AI-Users', 'admins'] } }

type Message = Record<string, unknown> & {
  id?: unknown
  result?: Record<string, unknown>
  error?: { code?: unknown; message?: unknown; data?: Record<string, unknown> }
}

/** The JSON-RPC messages of a body, JSON or SSE (`[]` when it is neither). */
export function messagesOf(contentType: string | null, body: string): Message[] {
  try {
    if (!contentType?.includes('text/event-stream')) return body ? [JSON.parse(body)] : []
    return body
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:') && l.slice(5).trim() !== '')
      .map((l) => JSON.parse(l.slice(5)) as Message)
  } catch {
    return []
  }
}

/** A 2026-07-28 POST to the target's `/mcp` with a fresh token of `who`, recorded as evidence. */
async function post(
  ctx: CheckContext,
  method: string,
  options: ModernRequestOptions & { who?: Record<string, unknown> } = {},
): Promise<{ status: number; messages: Message[]; response: Message | undefined }> {
  const { who, ...rest } = options
  const bearer = await token(ctx, who ?? { sub: 'alice' })
  const res = await ctx.http(`${ctx.target.base}/mcp`, modernRequest(method, { ...rest, bearer }))
  const messages = messagesOf(res.headers.get('content-type'), res.text)
  const response = messages.find((m) => 'id' in m && ('result' in m || 'error' in m))
  return { status: res.status, messages, response }
}

const describe = (r: { status: number; response: Message | undefined }) =>
  `${r.status} ${JSON.stringify(r.response ?? '(no JSON-RPC response)').slice(0, 200)}`

/** A marker no other request carries, to find one request in the backend's `/__requests`. */
const marker = () => `conformance-${randomUUID()}`

/** Whether a request carrying `mark` (in an argument or a header) reached the backend. */
async function reachedBackend(ctx: CheckContext, mark: string): Promise<boolean> {
  const origin = ctx.target.backendOrigin
  if (!origin) throw new CheckSkipped('no backend origin given: what reached it cannot be told')
  const seen = (await (await fetch(`${origin}/__requests`)).json()) as Array<{
    headers: Record<string, string>
  }>
  return seen.some((r) => JSON.stringify(r.headers).includes(mark))
}

/** The 2026-07-28 requirements on a server and an intermediary. */
export const modern: Requirement[] = [
  {
    id: 'MOD-001',
    level: 'MUST',
    profile: 'transport',
    specVersions: ONLY_2026,
    source: `${MCP26} Streamable HTTP §Server Validation (HeaderMismatch, SEP-2243)`,
    quote:
      'When rejecting a request due to header validation failure, servers MUST return HTTP status 400 Bad Request and MUST include a JSON-RPC error response using the following error code:',
    text: 'A 2026-07-28 tools/call whose Mcp-Name header names another tool than its body is refused with 400 and the JSON-RPC error -32020 (HeaderMismatch), not the pre-renumbering -32001.',
    async check(ctx) {
      const r = await post(ctx, 'tools/call', {
        params: { name: 'echo', arguments: { text: 'x' } },
        headers: { 'mcp-name': 'fetch' },
      })
      must(r.status === 400, '400 for a contradicting Mcp-Name', describe(r))
      must(r.response?.error?.code === -32020, 'JSON-RPC error -32020', describe(r))
    },
  },
  {
    id: 'MOD-002',
    level: 'MUST',
    profile: 'mcp-policy',
    specVersions: ONLY_2026,
    source: `${MCP26} Streamable HTTP §Server Validation (missing required headers; intermediaries)`,
    quote:
      'Intermediaries MUST return an appropriate HTTP error status (e.g., 400 Bad Request) for validation failures but are not required to return a JSON-RPC error response.',
    text: 'A request with MCP-Protocol-Version 2026-07-28 that lacks Mcp-Method, or a tools/call that lacks Mcp-Name, is answered 400 by the gateway itself: it never reaches the backend.',
    async check(ctx) {
      for (const [missing, method] of [
        ['mcp-method', 'tools/list'],
        ['mcp-name', 'tools/call'],
      ] as const) {
        const mark = marker()
        const r = await post(ctx, method, {
          params: method === 'tools/call' ? { name: 'echo', arguments: { text: mark } } : {},
          headers: { [missing]: null, 'x-conformance-mark': mark },
        })
        must(r.status === 400, `400 for a ${method} without ${missing}`, describe(r))
        must(
          !(await reachedBackend(ctx, mark)),
          `the gateway to refuse the ${method} without ${missing} itself`,
          'it was forwarded to the backend',
        )
      }
    },
  },
  {
    id: 'MOD-003',
    level: 'MUST',
    profile: 'mcp-policy',
    specVersions: ONLY_2026,
    source: `${MCP26} Streamable HTTP §Server Behavior for Custom Headers (Mcp-Param-*, x-mcp-header)`,
    quote:
      'Any server that processes the message body MUST validate that encoded header values, after decoding if Base64-encoded, match the corresponding values in the request body.',
    text: "A tools/call of the backend's query tool whose Mcp-Param-Region header (its x-mcp-header parameter) differs from the region argument is refused with 400 by the gateway, which reads the body, and never reaches the backend; a matching one, Base64-encoded, is served.",
    async check(ctx) {
      // A client learns the x-mcp-header parameters from tools/list before it can send them
      // (Streamable HTTP §Client Behavior), and so may the gateway.
      const listed = await post(ctx, 'tools/list')
      const tools = (listed.response?.result?.tools ?? []) as Array<{ name?: unknown }>
      if (!tools.some((t) => t.name === 'query')) {
        throw new CheckSkipped(`the backend lists no query tool (${describe(listed)})`)
      }
      const mark = marker()
      const refused = await post(ctx, 'tools/call', {
        params: { name: 'query', arguments: { region: 'eu-west1', sql: mark } },
        headers: { 'mcp-param-region': 'us-east1', 'x-conformance-mark': mark },
      })
      must(refused.status === 400, '400 for a contradicting Mcp-Param-Region', describe(refused))
      must(
        !(await reachedBackend(ctx, mark)),
        'the gateway to refuse the contradicting Mcp-Param-Region itself',
        'it was forwarded to the backend',
      )
      const served = await post(ctx, 'tools/call', {
        params: { name: 'query', arguments: { region: 'Zürich', sql: 'select 1' } },
        headers: { 'mcp-param-region': headerValue('Zürich') },
      })
      must(
        served.status === 200 && served.response?.result !== undefined,
        'a matching, Base64-encoded Mcp-Param-Region to be served',
        describe(served),
      )
    },
  },
  {
    id: 'MOD-004',
    level: 'MUST',
    profile: 'transport',
    specVersions: ONLY_2026,
    source: `${MCP26} Streamable HTTP §Protocol Version Header; changelog (resources/subscribe removed)`,
    quote:
      'If the server does not implement the requested RPC method, it MUST respond with 404 Not Found and a JSON-RPC error with code -32601 (Method not found).',
    text: 'A 2026-07-28 resources/subscribe (removed in that revision, replaced by subscriptions/listen), sent without a uri as a 2026 client might, is answered 404 with -32601, not refused by 2025 parsing rules.',
    async check(ctx) {
      const r = await post(ctx, 'resources/subscribe', {})
      must(r.status === 404, '404 for a method 2026-07-28 removed', describe(r))
      must(r.response?.error?.code === -32601, 'JSON-RPC error -32601', describe(r))
    },
  },
  {
    id: 'MOD-005',
    level: 'MUST',
    profile: 'mcp-policy',
    specVersions: ONLY_2026,
    source: `${MCP26} Resources §Error Handling`,
    quote:
      'If the requested resource does not exist, servers MUST return a JSON-RPC error with code -32602 (Invalid Params).',
    text: `resources/read of a resource that does not exist is answered -32602; so is one the policy denies (${DENIED_RESOURCE} for a user outside admins), which must look like a missing one, not -32002; an admin reads it.`,
    async check(ctx) {
      const missing = await post(ctx, 'resources/read', {
        params: { uri: `mock://notes/${randomUUID()}` },
      })
      must(
        missing.response?.error?.code === -32602,
        '-32602 for a missing resource',
        describe(missing),
      )
      const denied = await post(ctx, 'resources/read', { params: { uri: DENIED_RESOURCE } })
      must(
        denied.response?.error?.code === -32602,
        `-32602 for ${DENIED_RESOURCE}, denied to alice`,
        describe(denied),
      )
      const allowed = await post(ctx, 'resources/read', {
        params: { uri: DENIED_RESOURCE },
        who: ADMIN,
      })
      must(
        Array.isArray(allowed.response?.result?.contents),
        `an admin to read ${DENIED_RESOURCE}`,
        describe(allowed),
      )
    },
  },
  {
    id: 'MOD-006',
    level: 'MUST',
    profile: 'mcp-policy',
    specVersions: ONLY_2026,
    source: `${MCP26} Caching §Cache Scope ("private" … for filtered list results that vary per user)`,
    quote:
      'Servers MUST be aware that responses with a "public" cacheScope may be shared between callers even if the Result is coming from an authenticated endpoint.',
    text: 'A tools/list the gateway filters per user (fetch hidden from a user outside admins) is marked cacheScope "private", although the backend marks its list "public"; the admin\'s list too.',
    async check(ctx) {
      for (const who of [{ sub: 'alice' }, ADMIN]) {
        const r = await post(ctx, 'tools/list', { who })
        const result = r.response?.result
        must(result !== undefined, 'a tools/list result', describe(r))
        must(
          result.cacheScope === 'private',
          `cacheScope "private" on the list filtered for ${JSON.stringify(who)}`,
          `cacheScope ${JSON.stringify(result.cacheScope)}`,
        )
      }
    },
  },
  {
    id: 'MOD-007',
    level: 'SHOULD',
    profile: 'mcp-policy',
    specVersions: ONLY_2026,
    source:
      'SEP-2663 (tasks extension) §Streamable HTTP binding ("so intermediaries can route every request for a task"); docs/auth.md',
    quote:
      'When tasks/get, tasks/update, or tasks/cancel is sent over the Streamable HTTP transport, the client MUST set the Mcp-Name header to the value of params.taskId.',
    levelNote:
      'The sentence binds the client; the intermediary must let such requests through for the extension to work at all, which no sentence states with a keyword: SHOULD.',
    text: 'A tasks/get whose Mcp-Name is the task id (io.modelcontextprotocol/tasks) passes an MCP-aware route: the backend answers it.',
    async check(ctx) {
      const capabilities = { extensions: { 'io.modelcontextprotocol/tasks': {} } }
      const created = await post(ctx, 'tools/call', {
        params: { name: 'report', arguments: { topic: 'conformance' } },
        capabilities,
      })
      const taskId = created.response?.result?.taskId
      if (typeof taskId !== 'string') {
        throw new CheckSkipped(`the backend made no task (${describe(created)})`)
      }
      const polled = await post(ctx, 'tasks/get', { params: { taskId }, capabilities })
      must(
        polled.status === 200 && polled.response?.result?.taskId === taskId,
        'tasks/get with Mcp-Name: <taskId> answered by the backend',
        describe(polled),
      )
    },
  },
]
