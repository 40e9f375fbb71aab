/**
 * `mcp-backend`: the MCP server that Gatehouse protects in the demo stack, the tests and the
 * conformance suite. It is a dual-era server on one endpoint (MCP 2026-07-28 Versioning,
 * "Backward Compatibility with Initialization-Based Versions"): 2026-07-28 requests (per-request
 * `_meta`, no session) on the official v2 server SDK, and 2025 traffic (`initialize`, sessions,
 * MCP spec 2025-06-18 "Transports"; resumable streams, 2025-11-25 "Resumability and
 * Redelivery") on the official v1 SDK. It has a `fetch` tool as the seed's deployment
 * prerequisites ask, and a few observation endpoints so tests can see what reached the backend
 * and when:
 *
 * - `GET /__requests`, `DELETE /__requests`: the requests received (authorization reduced to a
 *   boolean: the backend must never see the gateway's bearer token, and never logs one).
 * - `GET /__timeline`: what the backend did, in order (tool started, progress sent, tool finished),
 *   so streaming can be judged by order of events rather than by wall-clock thresholds.
 * - `POST /__release`: lets `progress` calls held with `holdAfterStep` continue.
 * - `POST /__notify?list=tools`: a change notification on the open `subscriptions/listen` streams.
 * - `GET /healthz`.
 *
 * Modules: `modern.ts` (the 2026-07-28 leg of `/mcp`), `modern-server.ts` (its MCP server),
 * `tasks.ts` (the tasks extension), `sessions.ts` (the 2025 leg), `tools.ts` (its MCP server),
 * `event-store.ts` (replay), `observe.ts` (what the observation endpoints report),
 * `requests.ts`/`modern-requests.ts` (hand-built requests), `http.ts` (JSON helpers).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { sendJson } from '@gatehouse/support'
import { readJson, rpcError } from './http.js'
import { createModernEndpoint, type ModernEndpoint } from './modern.js'
import { Observations } from './observe.js'
import { createSessions, type Sessions } from './sessions.js'
import { TaskStore } from './tasks.js'
import { createMcpServer } from './tools.js'

export { MemoryEventStore } from './event-store.js'
export {
  headerValue,
  MODERN_PROTOCOL_VERSION,
  type ModernRequestOptions,
  modernBody,
  modernRequest,
} from './modern-requests.js'
export { LIST_TTL_MS } from './modern-server.js'
export type { RecordedRequest, TimelineEntry } from './observe.js'
export { type InitializeRequestOptions, initializeBody, initializeRequest } from './requests.js'

/** Options of {@link startMcpBackend}. */
export interface McpBackendOptions {
  /** Port to listen on; `0` (default) picks a free one. */
  port?: number
  /** Address to bind; default `127.0.0.1`. */
  host?: string
  /** Answer POSTs with plain JSON instead of an SSE stream (Streamable HTTP allows both). */
  jsonResponse?: boolean
  /**
   * Let the `fetch` tool reach non-loopback hosts. Off by default: the demo backend must not
   * become an open fetch proxy.
   */
  allowNonLoopbackFetch?: boolean
  /**
   * Resumable streams (default true): SSE events carry ids, and a GET with `Last-Event-ID`
   * replays the events of that stream after it (MCP 2025-11-25 Transports).
   */
  resumable?: boolean
}

/** A running backend. */
export interface McpBackend {
  /** The MCP endpoint, `<origin>/mcp`. */
  readonly url: string
  /** `http://host:port`. */
  readonly origin: string
  readonly port: number
  /** Closes every session and the listener. */
  stop(): Promise<void>
}

/**
 * Starts the MCP backend.
 * @example
 * const backend = await startMcpBackend()
 * // point a gateway route at backend.origin; MCP clients use `${gateway}/mcp`
 */
export async function startMcpBackend(options: McpBackendOptions = {}): Promise<McpBackend> {
  const host = options.host ?? '127.0.0.1'
  const observations = new Observations()
  const sessions = createSessions({
    jsonResponse: options.jsonResponse ?? false,
    resumable: options.resumable ?? true,
    newServer: () =>
      createMcpServer({
        observations,
        allowNonLoopbackFetch: options.allowNonLoopbackFetch ?? false,
      }),
  })

  const modern = createModernEndpoint({
    observations,
    allowNonLoopbackFetch: options.allowNonLoopbackFetch ?? false,
    tasks: new TaskStore(),
    jsonResponse: options.jsonResponse ?? false,
  })

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://backend').pathname
    const route = async (): Promise<void> => {
      if (path === '/healthz') return sendJson(res, 200, { status: 'ok' })
      if (path === '/__requests' || path === '/__timeline') {
        const list = path === '/__requests' ? observations.requests : observations.timeline
        if (req.method === 'DELETE') {
          list.length = 0
          res.writeHead(204).end()
          return
        }
        return sendJson(res, 200, list)
      }
      if (path === '/__release' && req.method === 'POST') {
        return sendJson(res, 200, { released: observations.releaseAll() })
      }
      if (path === '/__notify' && req.method === 'POST') return notify(modern, req, res)
      observations.record(req, path)
      if (path === '/mcp' || path.startsWith('/mcp/')) return serveMcp(req, res, sessions, modern)
      sendJson(res, 404, {
        error: 'not_found',
        error_description: `no such path ${path}; the MCP endpoint is /mcp`,
      })
    }
    route().catch((err: unknown) => {
      if (!res.headersSent) rpcError(res, 500, -32603, `Internal error: ${(err as Error).message}`)
      else res.destroy()
    })
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  return {
    url: `${origin}/mcp`,
    origin,
    port,
    async stop() {
      observations.releaseAll()
      await Promise.all([sessions.closeAll(), modern.close()])
      server.closeAllConnections()
      await new Promise<void>((r) => server.close(() => r()))
    },
  }
}

/**
 * `/mcp`: a POST the 2026-07-28 leg claims goes there, everything else to the 2025 sessions
 * (GET streams, DELETE, `initialize`, and requests in a session).
 */
async function serveMcp(
  req: IncomingMessage,
  res: ServerResponse,
  sessions: Sessions,
  modern: ModernEndpoint,
): Promise<void> {
  if (req.method !== 'POST') return sessions.handle(req, res)
  let body: unknown
  try {
    body = await readJson(req)
  } catch (err) {
    rpcError(res, 400, -32700, `Parse error: ${(err as Error).message}`)
    return
  }
  if (await modern.claims(req, body)) return modern.handle(req, res, body)
  return sessions.handle(req, res, body)
}

const NOTIFY_KINDS = ['tools', 'prompts', 'resources'] as const

/**
 * `POST /__notify?list=tools|prompts|resources` or `?updated=<uri>`: publishes a change
 * notification to the open `subscriptions/listen` streams (2026-07-28 leg).
 */
function notify(modern: ModernEndpoint, req: IncomingMessage, res: ServerResponse): void {
  const query = new URL(req.url ?? '/', 'http://backend').searchParams
  const list = query.get('list')
  const updated = query.get('updated')
  if (updated) modern.notify.resourceUpdated(updated)
  else if (list === 'tools') modern.notify.toolsChanged()
  else if (list === 'prompts') modern.notify.promptsChanged()
  else if (list === 'resources') modern.notify.resourcesChanged()
  else {
    sendJson(res, 400, {
      error: 'invalid_request',
      error_description: `give ?list= one of ${NOTIFY_KINDS.join(', ')}, or ?updated=<resource uri>`,
    })
    return
  }
  sendJson(res, 200, { notified: updated ? { updated } : { list } })
}
