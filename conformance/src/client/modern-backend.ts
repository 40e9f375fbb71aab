/**
 * The MCP server behind the gateway in a client-mode scenario, serving both protocol eras on one
 * endpoint as MCP 2026-07-28 (Streamable HTTP §Backward Compatibility) describes: a request that
 * claims 2026-07-28 (`_meta["io.modelcontextprotocol/protocolVersion"]` or the
 * `MCP-Protocol-Version` header, without a 2025 session) is answered here — `server/discover`,
 * `tools/list`, `tools/call echo`, statelessly — and everything else goes on to `mcp-backend`
 * (the 2025-11-25 server on the official SDK), unchanged.
 *
 * The client mode judges what the client sends; this answers just enough for a 2026-07-28 client
 * to get through. Header/body validation is the gateway's and a real server's business, not this
 * stand-in's: a client's mismatched headers are judged by the checks, not refused here.
 */
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { sendJson } from '@gatehouse/support'

/** The revision answered here. */
export const MODERN_REVISION = '2026-07-28'

/** A running dual-era backend. */
export interface DualEraBackend {
  port: number
  stop(): Promise<void>
}

type Json = Record<string, unknown>

/** The era a POST claims: 2026-07-28 (answered here) or not (forwarded). */
function claimsModern(req: IncomingMessage, body: Json | undefined): boolean {
  if (req.headers['mcp-session-id']) return false
  const meta = (body?.params as Json | undefined)?._meta as Json | undefined
  const version =
    meta?.['io.modelcontextprotocol/protocolVersion'] ?? req.headers['mcp-protocol-version']
  return version === MODERN_REVISION
}

/** The result of a 2026-07-28 request, or undefined for a method this server does not have. */
function resultOf(method: string, params: Json | undefined): Json | undefined {
  const serverInfo = { name: 'gatehouse client-mode backend', version: '0.1.0' }
  const complete = {
    resultType: 'complete',
    _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo },
  }
  if (method === 'server/discover')
    return {
      ...complete,
      supportedVersions: [MODERN_REVISION, '2025-11-25'],
      capabilities: { tools: {} },
      serverInfo,
    }
  if (method === 'tools/list')
    return {
      ...complete,
      tools: [
        {
          name: 'echo',
          description: 'Echoes its text',
          inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
        },
      ],
      ttlMs: 0,
      cacheScope: 'private',
    }
  if (method === 'tools/call' && params?.name === 'echo') {
    const text = String((params.arguments as Json | undefined)?.text ?? '')
    return { ...complete, content: [{ type: 'text', text }] }
  }
  return undefined
}

/** Answers one 2026-07-28 message (MCP 2026-07-28 Streamable HTTP §Sending Messages). */
function answerModern(res: ServerResponse, body: Json): void {
  if (body.id === undefined) {
    res.writeHead(202).end()
    return
  }
  const result = resultOf(String(body.method), body.params as Json | undefined)
  if (result) {
    sendJson(res, 200, { jsonrpc: '2.0', id: body.id, result })
    return
  }
  // "If the server does not implement the requested RPC method, it MUST respond with 404 Not
  // Found and a JSON-RPC error with code -32601".
  sendJson(res, 404, {
    jsonrpc: '2.0',
    id: body.id,
    error: { code: -32601, message: `Method not found: ${String(body.method)}` },
  })
}

/** Sends a request on to the 2025 backend and its answer back, streams included. */
function toLegacy(req: IncomingMessage, res: ServerResponse, port: number, raw: Buffer): void {
  const up = request(
    { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    },
  )
  up.once('error', () => {
    if (!res.headersSent) sendJson(res, 502, { error: 'mcp-backend unreachable' })
    else res.destroy()
  })
  res.once('close', () => up.destroy())
  up.end(raw)
}

/** Starts `mcp-backend` and the 2026-07-28 responder in front of it, on a free loopback port. */
export async function startDualEraBackend(): Promise<DualEraBackend> {
  const legacy: McpBackend = await startMcpBackend()
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks)
      let body: Json | undefined
      try {
        const parsed = JSON.parse(raw.toString('utf8')) as unknown
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Json
      } catch {}
      if (req.method === 'POST' && body && claimsModern(req, body)) answerModern(res, body)
      else toLegacy(req, res, legacy.port, raw)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    async stop() {
      server.closeAllConnections()
      await new Promise<void>((r) => server.close(() => r()))
      await legacy.stop()
    },
  }
}
