/**
 * `mcp-backend`: the MCP server that Gatehouse protects in the demo stack, the tests and the
 * conformance suite. It is a real server on the official MCP TypeScript SDK (Streamable HTTP
 * transport with sessions, MCP spec 2025-06-18 "Transports"; resumable streams, 2025-11-25
 * "Resumability and Redelivery"), with a `fetch` tool as the seed's deployment prerequisites
 * ask, and a few observation endpoints so tests can see what reached the backend and when:
 *
 * - `GET /__requests`, `DELETE /__requests`: the requests received (authorization reduced to a
 *   boolean: the backend must never see the gateway's bearer token, and never logs one).
 * - `GET /__timeline`: what the backend did, in order (tool started, progress sent, tool finished),
 *   so streaming can be judged by order of events rather than by wall-clock thresholds.
 * - `POST /__release`: lets `progress` calls held with `holdAfterStep` continue.
 * - `GET /healthz`.
 *
 * Modules: `sessions.ts` (the `/mcp` endpoint), `tools.ts` (the MCP server), `event-store.ts`
 * (replay), `observe.ts` (what the observation endpoints report), `http.ts` (JSON helpers).
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { sendJson } from '@gatehouse/support'
import { rpcError } from './http.js'
import { Observations } from './observe.js'
import { createSessions } from './sessions.js'
import { createMcpServer } from './tools.js'

export { MemoryEventStore } from './event-store.js'
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
      observations.record(req, path)
      if (path === '/mcp' || path.startsWith('/mcp/')) return sessions.handle(req, res)
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
      await sessions.closeAll()
      server.closeAllConnections()
      await new Promise<void>((r) => server.close(() => r()))
    },
  }
}
