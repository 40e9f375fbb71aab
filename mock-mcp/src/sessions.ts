/**
 * The 2025 leg of `/mcp`: Streamable HTTP sessions on the official v1 SDK's transport (MCP
 * 2025-06-18 Transports), one MCP server per session, each with a resumable event store unless
 * disabled. Serves every request the 2026-07-28 leg (`modern.ts`) does not claim.
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import { MemoryEventStore } from './event-store.js'
import { rpcError } from './http.js'

/** Options of {@link createSessions}. */
export interface SessionOptions {
  /** Answer POSTs with plain JSON instead of an SSE stream. */
  jsonResponse: boolean
  /** Give each session an event store (SSE event ids, `Last-Event-ID` replay). */
  resumable: boolean
  /** A new MCP server for a new session. */
  newServer(): McpServer
}

/** The sessions of one backend. */
export interface Sessions {
  /**
   * Handles a request to `/mcp` (POST, GET, DELETE; anything else 405).
   * @param body - a POST's body, already read and parsed
   */
  handle(req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void>
  /** Closes every session. */
  closeAll(): Promise<void>
}

/** Creates the session table of a backend. */
export function createSessions(options: SessionOptions): Sessions {
  const transports = new Map<string, StreamableHTTPServerTransport>()

  const open = async (): Promise<StreamableHTTPServerTransport> => {
    const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: options.jsonResponse,
      ...(options.resumable ? { eventStore: new MemoryEventStore() } : {}),
      onsessioninitialized: (id) => {
        transports.set(id, created)
      },
    })
    created.onclose = () => {
      if (created.sessionId) transports.delete(created.sessionId)
    }
    await options.newServer().connect(created)
    return created
  }

  const post = async (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    sessionId?: string,
  ) => {
    let transport = sessionId ? transports.get(sessionId) : undefined
    if (!transport) {
      if (sessionId) {
        rpcError(res, 404, -32001, `Session not found: ${sessionId}`)
        return
      }
      if (!isInitializeRequest(body)) {
        rpcError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id and not an initialize request')
        return
      }
      transport = await open()
    }
    await transport.handleRequest(req, res, body)
  }

  return {
    async handle(req, res, body) {
      const sid = req.headers['mcp-session-id']
      const sessionId = typeof sid === 'string' ? sid : undefined
      if (req.method === 'POST') return post(req, res, body, sessionId)
      if (req.method === 'GET' || req.method === 'DELETE') {
        const transport = sessionId ? transports.get(sessionId) : undefined
        if (!transport) {
          rpcError(
            res,
            sessionId ? 404 : 400,
            -32000,
            sessionId ? 'Session not found' : 'Missing Mcp-Session-Id',
          )
          return
        }
        await transport.handleRequest(req, res)
        return
      }
      res.writeHead(405, { allow: 'GET, POST, DELETE' })
      res.end()
    },
    async closeAll() {
      await Promise.allSettled([...transports.values()].map((t) => t.close()))
      transports.clear()
    },
  }
}
