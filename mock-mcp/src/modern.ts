/**
 * The 2026-07-28 leg of `/mcp`: the official v2 SDK's `createMcpHandler` in modern-only mode
 * (`legacy: 'reject'`), with the 2025 sessions of `sessions.ts` kept for everything the SDK's
 * own classifier (`isLegacyRequest`) calls legacy — the dual-era server of MCP 2026-07-28
 * Versioning, "Backward Compatibility with Initialization-Based Versions": "A dual-era server
 * MAY serve both eras concurrently on the same endpoint".
 *
 * From the SDK: era classification, the per-request `_meta` envelope, `server/discover`,
 * header validation (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`;
 * `HeaderMismatch` -32020), `UnsupportedProtocolVersionError`, 404/-32601 for methods the
 * revision removed, MRTR, `subscriptions/listen` and the list results' `ttlMs`/`cacheScope`.
 * Written here: the bridge between `node:http` and the SDK's web-standard handler (the SDK's
 * `@modelcontextprotocol/node` adapter is not a dependency of this tree) and the tasks
 * extension (`tasks.ts`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  createMcpHandler,
  isLegacyRequest,
  type ServerNotifier,
} from '@modelcontextprotocol/server'
import { createModernServer, type ModernServerDeps } from './modern-server.js'

/** Options of {@link createModernEndpoint}. */
export interface ModernEndpointOptions extends ModernServerDeps {
  /** Answer with plain JSON, never SSE (listen streams are always SSE). */
  jsonResponse: boolean
}

/** The 2026-07-28 leg of one backend. */
export interface ModernEndpoint {
  /**
   * Whether the SDK routes this request to the 2026-07-28 leg (it carries the per-request
   * `_meta` claim, or a modern `MCP-Protocol-Version` header).
   * @param body - the parsed POST body (`undefined` for none)
   */
  claims(req: IncomingMessage, body: unknown): Promise<boolean>
  /** Serves one 2026-07-28 request. */
  handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void>
  /** Publishes change notifications to the open `subscriptions/listen` streams. */
  readonly notify: ServerNotifier
  /** Ends every open exchange (listen streams included). */
  close(): Promise<void>
}

/** Creates the 2026-07-28 leg. */
export function createModernEndpoint(options: ModernEndpointOptions): ModernEndpoint {
  const handler = createMcpHandler(() => createModernServer(options), {
    legacy: 'reject',
    responseMode: options.jsonResponse ? 'json' : 'auto',
  })
  return {
    claims(req, body) {
      return isLegacyRequest(toRequest(req), body).then((legacy) => !legacy)
    },
    async handle(req, res, body) {
      const aborted = new AbortController()
      res.on('close', () => {
        if (!res.writableFinished) aborted.abort()
      })
      const response = await handler.fetch(toRequest(req, aborted.signal), { parsedBody: body })
      await writeResponse(response, res, aborted.signal)
    },
    notify: handler.notify,
    close: () => handler.close(),
  }
}

/** A web `Request` with the Node request's method, URL and headers (the body goes separately). */
function toRequest(req: IncomingMessage, signal?: AbortSignal): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v)
  }
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'mcp-backend'}`)
  return new Request(url, { method: req.method ?? 'GET', headers, ...(signal ? { signal } : {}) })
}

/** Copies a web `Response` to the Node response, streaming its body as it comes. */
async function writeResponse(
  response: Response,
  res: ServerResponse,
  aborted: AbortSignal,
): Promise<void> {
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    headers[name] = value
  })
  res.writeHead(response.status, headers)
  if (!response.body) {
    res.end()
    return
  }
  const reader = response.body.getReader()
  const stop = () => void reader.cancel().catch(() => undefined)
  aborted.addEventListener('abort', stop, { once: true })
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      res.write(value)
    }
    res.end()
  } catch {
    res.destroy()
  } finally {
    aborted.removeEventListener('abort', stop)
  }
}
