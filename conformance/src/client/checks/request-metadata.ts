/**
 * The per-request metadata of MCP 2026-07-28, which replaced the `initialize` handshake: every
 * request carries its protocol version and client capabilities in `_meta` (basic/index §_meta),
 * and every POST mirrors them in headers an intermediary can route on without parsing the body
 * (basic/transports/streamable-http §Request Metadata): `MCP-Protocol-Version`, `Mcp-Method`,
 * and `Mcp-Name` for `tools/call`, `resources/read`, `prompts/get`. Judged on every POST to the
 * MCP endpoint that claims 2026-07-28 (in its `_meta` or its header), in the 2026-07-28
 * scenarios; a client that spoke only an older revision there is skipped with that cause.
 */
import { CheckSkipped, must } from '../../types.js'
import { jsonOf, type Recorded } from '../traffic.js'
import { type ClientCheckContext, type ClientRequirement, current2026, MCP26 } from './types.js'

const REVISION = '2026-07-28'
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion'
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities'
const TRANSPORT = MCP26('Streamable HTTP')

/** One JSON-RPC request or notification POSTed to the MCP endpoint. */
interface McpPost {
  entry: Recorded
  body: Record<string, unknown>
  method: string
  isRequest: boolean
  meta: Record<string, unknown> | undefined
}

/** The methods whose `Mcp-Name` mirrors `params.name` or `params.uri`. */
const NAMED: Record<string, 'name' | 'uri'> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
}

/** A header value as the client meant it: the Base64 sentinel form decoded (§Value Encoding). */
function decodedHeader(value: string | undefined): string | undefined {
  const m = /^=\?base64\?(.*)\?=$/.exec(value ?? '')
  return m ? Buffer.from(m[1] ?? '', 'base64').toString('utf8') : value
}

/** The POSTs of the run that claim 2026-07-28, or skipped when there were none. */
function modernPosts(ctx: ClientCheckContext): McpPost[] {
  const posts = ctx.flow.mcp.flatMap((entry): McpPost[] => {
    if (entry.method !== 'POST') return []
    const body = jsonOf(entry.requestBody)
    if (!body || typeof body.method !== 'string') return []
    const params = body.params as Record<string, unknown> | undefined
    const meta = params?._meta as Record<string, unknown> | undefined
    return [{ entry, body, method: body.method, isRequest: body.id !== undefined, meta }]
  })
  const modern = posts.filter(
    (p) =>
      p.meta?.[VERSION_KEY] === REVISION ||
      p.entry.requestHeaders['mcp-protocol-version'] === REVISION,
  )
  if (modern.length === 0) {
    const spoke = posts.find((p) => p.method === 'initialize')?.body.params as
      | Record<string, unknown>
      | undefined
    throw new CheckSkipped(
      `not reached: the client sent no ${REVISION} request${spoke ? ` (it spoke ${String(spoke.protocolVersion)}, by initialize)` : ''}`,
    )
  }
  return modern
}

/** The per-request metadata requirements. */
export const requestMetadata: ClientRequirement[] = [
  {
    id: 'CLI-META-001',
    level: 'MUST',
    source: `${TRANSPORT} §Protocol Version Header`,
    quote: 'Every POST request to the MCP endpoint MUST include an MCP-Protocol-Version header.',
    text: 'Every 2026-07-28 POST to the MCP endpoint carries MCP-Protocol-Version.',
    appliesTo: current2026(),
    check(ctx) {
      for (const p of modernPosts(ctx)) {
        ctx.evidence(p.entry)
        must(
          p.entry.requestHeaders['mcp-protocol-version'] !== undefined,
          `MCP-Protocol-Version: ${REVISION}`,
          `no MCP-Protocol-Version header on ${p.method}`,
        )
      }
    },
  },
  {
    id: 'CLI-META-002',
    level: 'MUST',
    source: `${TRANSPORT} §Protocol Version Header`,
    quote:
      "The header value MUST match the io.modelcontextprotocol/protocolVersion field carried in the request body's _meta.",
    text: 'MCP-Protocol-Version is the protocol version the body’s _meta names.',
    appliesTo: current2026(),
    check(ctx) {
      for (const p of modernPosts(ctx)) {
        if (!p.isRequest) continue
        const header = p.entry.requestHeaders['mcp-protocol-version']
        ctx.evidence(p.entry)
        must(
          header === p.meta?.[VERSION_KEY],
          `MCP-Protocol-Version equal to _meta ${VERSION_KEY} (${String(p.meta?.[VERSION_KEY])})`,
          `MCP-Protocol-Version ${header ?? '(none)'} on ${p.method}`,
        )
      }
    },
  },
  {
    id: 'CLI-META-003',
    level: 'MUST',
    source: `${TRANSPORT} §Sending Messages, §Standard Request Headers`,
    quote: 'The client MUST include the request metadata headers on each POST request.',
    text: 'Every 2026-07-28 POST carries Mcp-Method equal to the body’s method, and a tools/call, resources/read or prompts/get carries Mcp-Name equal to its params.name or params.uri (Base64 sentinel form decoded).',
    appliesTo: current2026(),
    check(ctx) {
      for (const p of modernPosts(ctx)) {
        ctx.evidence(p.entry)
        const method = p.entry.requestHeaders['mcp-method']
        must(method === p.method, `Mcp-Method: ${p.method}`, `Mcp-Method ${method ?? '(none)'}`)
        const field = NAMED[p.method]
        if (!field) continue
        const value = (p.body.params as Record<string, unknown> | undefined)?.[field]
        const name = decodedHeader(p.entry.requestHeaders['mcp-name'])
        must(
          name === String(value),
          `Mcp-Name: ${String(value)} (params.${field})`,
          `Mcp-Name ${name ?? '(none)'}`,
        )
      }
    },
  },
  {
    id: 'CLI-META-004',
    level: 'MUST',
    source: `${MCP26('basic §_meta (Per-request protocol fields)')}; ${MCP26('changelog, major change 2')}`,
    quote: 'fields marked as required MUST be included on every request.',
    text: 'Every 2026-07-28 request carries _meta io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities.',
    appliesTo: current2026(),
    check(ctx) {
      for (const p of modernPosts(ctx)) {
        if (!p.isRequest) continue
        ctx.evidence(p.entry)
        const missing = [VERSION_KEY, CAPABILITIES_KEY].filter((k) => p.meta?.[k] === undefined)
        must(
          missing.length === 0,
          `_meta with ${VERSION_KEY} and ${CAPABILITIES_KEY}`,
          `${p.method} without ${missing.join(', ')}`,
        )
      }
    },
  },
]
