/**
 * `mcp-backend`: the MCP server that Gatehouse protects in the demo stack, the tests and the
 * conformance suite. It is a real server on the official MCP TypeScript SDK (Streamable HTTP
 * transport with sessions, MCP spec 2025-06-18 "Transports"), with a `fetch` tool as the seed's
 * deployment prerequisites ask, and a few observation endpoints so tests can see what reached
 * the backend and when:
 *
 * - `GET /__requests`, `DELETE /__requests`: the requests received (authorization reduced to a
 *   boolean: the backend must never see the gateway's bearer token, and never logs one).
 * - `GET /__timeline`: what the backend did, in order (tool started, progress sent, tool finished),
 *   so streaming can be judged by order of events rather than by wall-clock thresholds.
 * - `POST /__release`: lets `progress` calls held with `holdAfterStep` continue.
 * - `GET /healthz`.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'

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

/** A request the backend received, as `/__requests` reports it. */
export interface RecordedRequest {
  at: string
  method: string
  path: string
  sessionId: string | null
  /** Whether an `Authorization` header reached the backend (its value is never kept). */
  hasAuthorization: boolean
  headers: Record<string, string>
}

/** One step of what the backend did, as `/__timeline` reports it. */
export interface TimelineEntry {
  seq: number
  at: string
  event: 'tool_started' | 'progress_sent' | 'held' | 'released' | 'tool_finished'
  tool: string
  step?: number
}

const MAX_RECORDED = 500
const MAX_BODY_BYTES = 1024 * 1024
const FETCH_MAX_BYTES = 64 * 1024
/** A held `progress` call continues by itself after this long, so nothing waits forever. */
const MAX_HOLD_MS = 30_000

/** Whether a hostname is a loopback name or literal (127.0.0.0/8, ::1, localhost). */
function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '')
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h)
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY_BYTES) throw new RangeError('request body too large')
    chunks.push(chunk as Buffer)
  }
  if (size === 0) return undefined
  return JSON.parse(Buffer.concat(chunks).toString('utf8'))
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  })
  res.end(text)
}

function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null })
}

/**
 * Starts the MCP backend.
 * @example
 * const backend = await startMcpBackend()
 * // point a gateway route at backend.origin; MCP clients use `${gateway}/mcp`
 */
export async function startMcpBackend(options: McpBackendOptions = {}): Promise<McpBackend> {
  const host = options.host ?? '127.0.0.1'
  const requests: RecordedRequest[] = []
  const timeline: TimelineEntry[] = []
  let seq = 0
  const note = (entry: Omit<TimelineEntry, 'seq' | 'at'>): void => {
    timeline.push({ seq: seq++, at: new Date().toISOString(), ...entry })
    if (timeline.length > MAX_RECORDED) timeline.shift()
  }
  const transports = new Map<string, StreamableHTTPServerTransport>()
  /** Resolvers of `progress` calls held until `POST /__release`. */
  const held = new Set<() => void>()

  /** One MCP server per session, as the SDK's server binds to a single transport. */
  const createMcpServer = (): McpServer => {
    const server = new McpServer({ name: 'mcp-backend', version: '0.1.0' })
    server.registerTool(
      'echo',
      { description: 'Returns the text it was given.', inputSchema: { text: z.string() } },
      async ({ text }) => {
        note({ event: 'tool_started', tool: 'echo' })
        note({ event: 'tool_finished', tool: 'echo' })
        return { content: [{ type: 'text', text }] }
      },
    )
    server.registerTool(
      'fetch',
      {
        description:
          'Fetches a URL and returns its body as text (first 64 KiB). Loopback hosts only unless the backend was started with allowNonLoopbackFetch.',
        inputSchema: { url: z.string().url() },
      },
      async ({ url }, extra) => {
        note({ event: 'tool_started', tool: 'fetch' })
        try {
          const target = new URL(url)
          if (target.protocol !== 'http:' && target.protocol !== 'https:') {
            return {
              isError: true,
              content: [{ type: 'text', text: `unsupported scheme ${target.protocol}` }],
            }
          }
          if (!options.allowNonLoopbackFetch && !isLoopbackHost(target.hostname)) {
            return {
              isError: true,
              content: [
                {
                  type: 'text',
                  text: `refusing to fetch ${target.host}: only loopback hosts are allowed (start with allowNonLoopbackFetch to change this)`,
                },
              ],
            }
          }
          const response = await fetch(target, { signal: extra.signal, redirect: 'follow' })
          const body = (await response.text()).slice(0, FETCH_MAX_BYTES)
          return {
            isError: !response.ok,
            content: [{ type: 'text', text: `HTTP ${response.status}\n\n${body}` }],
          }
        } catch (err) {
          return {
            isError: true,
            content: [{ type: 'text', text: `fetch failed: ${(err as Error).message}` }],
          }
        } finally {
          note({ event: 'tool_finished', tool: 'fetch' })
        }
      },
    )
    server.registerTool(
      'progress',
      {
        description:
          'Sends `steps` progress notifications `delayMs` apart (MCP progress utility), then returns. With `holdAfterStep`, it stops after that step until `POST /__release` (at most 30 s), which lets a test prove that events stream instead of being buffered.',
        inputSchema: {
          steps: z.number().int().min(1).max(50),
          delayMs: z.number().int().min(0).max(10_000).default(50),
          holdAfterStep: z.number().int().min(1).optional(),
        },
      },
      async ({ steps, delayMs, holdAfterStep }, extra) => {
        note({ event: 'tool_started', tool: 'progress' })
        const token = extra._meta?.progressToken
        for (let step = 1; step <= steps; step++) {
          if (token !== undefined) {
            await extra.sendNotification({
              method: 'notifications/progress',
              params: {
                progressToken: token,
                progress: step,
                total: steps,
                message: `step ${step}`,
              },
            })
          }
          note({ event: 'progress_sent', tool: 'progress', step })
          if (step === holdAfterStep) {
            note({ event: 'held', tool: 'progress', step })
            await new Promise<void>((resolve) => {
              const release = (): void => {
                clearTimeout(timer)
                held.delete(release)
                resolve()
              }
              const timer = setTimeout(release, MAX_HOLD_MS)
              held.add(release)
            })
            note({ event: 'released', tool: 'progress', step })
          }
          if (step < steps) await new Promise((r) => setTimeout(r, delayMs))
        }
        note({ event: 'tool_finished', tool: 'progress' })
        return { content: [{ type: 'text', text: `done after ${steps} steps` }] }
      },
    )
    return server
  }

  const record = (req: IncomingMessage, path: string): void => {
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(req.headers)) {
      if (k === 'authorization' || k === 'cookie' || v === undefined) continue
      headers[k] = Array.isArray(v) ? v.join(', ') : v
    }
    const sid = req.headers['mcp-session-id']
    requests.push({
      at: new Date().toISOString(),
      method: req.method ?? 'GET',
      path,
      sessionId: typeof sid === 'string' ? sid : null,
      hasAuthorization: req.headers.authorization !== undefined,
      headers,
    })
    if (requests.length > MAX_RECORDED) requests.shift()
  }

  const handleMcp = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const sid = req.headers['mcp-session-id']
    const sessionId = typeof sid === 'string' ? sid : undefined
    if (req.method === 'POST') {
      let body: unknown
      try {
        body = await readJson(req)
      } catch (err) {
        rpcError(res, 400, -32700, `Parse error: ${(err as Error).message}`)
        return
      }
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
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: options.jsonResponse ?? false,
          onsessioninitialized: (id) => {
            transports.set(id, created)
          },
        })
        created.onclose = () => {
          if (created.sessionId) transports.delete(created.sessionId)
        }
        await createMcpServer().connect(created)
        transport = created
      }
      await transport.handleRequest(req, res, body)
      return
    }
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
  }

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://backend').pathname
    const route = async (): Promise<void> => {
      if (path === '/healthz') return sendJson(res, 200, { status: 'ok' })
      if (path === '/__requests') {
        if (req.method === 'DELETE') {
          requests.length = 0
          res.writeHead(204).end()
          return
        }
        return sendJson(res, 200, requests)
      }
      if (path === '/__release' && req.method === 'POST') {
        const count = held.size
        for (const release of [...held]) release()
        return sendJson(res, 200, { released: count })
      }
      if (path === '/__timeline') {
        if (req.method === 'DELETE') {
          timeline.length = 0
          res.writeHead(204).end()
          return
        }
        return sendJson(res, 200, timeline)
      }
      record(req, path)
      if (path === '/mcp' || path.startsWith('/mcp/')) return handleMcp(req, res)
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
      for (const release of [...held]) release()
      await Promise.allSettled([...transports.values()].map((t) => t.close()))
      transports.clear()
      server.closeAllConnections()
      await new Promise<void>((r) => server.close(() => r()))
    },
  }
}
