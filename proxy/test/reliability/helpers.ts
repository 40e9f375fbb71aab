/**
 * Helpers of the reliability suite: raw HTTP over a socket (for what fetch cannot send), an
 * SSE-capable backend that counts its connections, and the gateway's own view of its connections.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { connect, type Socket } from 'node:net'
import { sendJson } from '@gatehouse/support'

/** A response read off a raw socket. */
export interface RawResponse {
  status: number
  headers: Record<string, string>
  body: string
  /** Everything the server sent, `100 Continue` included. */
  raw: string
  /** Whether the server closed the connection. */
  closed: boolean
}

/** Parses the last response in `raw` (after any 1xx). */
function parseResponse(raw: string, closed: boolean): RawResponse | undefined {
  let rest = raw
  for (;;) {
    const end = rest.indexOf('\r\n\r\n')
    if (end === -1) return undefined
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n')
    const status = Number(statusLine.split(' ')[1])
    const headers: Record<string, string> = {}
    for (const l of lines) {
      const i = l.indexOf(':')
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim()
    }
    const bodyStart = end + 4
    if (status >= 100 && status < 200) {
      rest = rest.slice(bodyStart)
      continue
    }
    const length = headers['content-length']
    if (length === undefined)
      return closed ? { status, headers, body: rest.slice(bodyStart), raw, closed } : undefined
    const body = rest.slice(bodyStart, bodyStart + Number(length))
    if (Buffer.byteLength(body) < Number(length)) return undefined
    return { status, headers, body, raw, closed }
  }
}

/**
 * Writes `parts` to a fresh connection (a function part waits for the previous write to be read,
 * as a slow client would) and resolves with the first final response, or rejects after
 * `timeoutMs`.
 */
export function rawRequest(
  port: number,
  parts: Array<string | Buffer | ((socket: Socket) => Promise<void>)>,
  timeoutMs = 10_000,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let raw = ''
    let done = false
    const finish = (closed: boolean) => {
      const parsed = parseResponse(raw, closed)
      if (parsed && !done) {
        done = true
        clearTimeout(timer)
        socket.destroy()
        resolve(parsed)
      } else if (closed && !done) {
        done = true
        clearTimeout(timer)
        reject(
          new Error(
            `connection closed without a response; got ${JSON.stringify(raw.slice(0, 200))}`,
          ),
        )
      }
    }
    const timer = setTimeout(() => {
      done = true
      socket.destroy()
      reject(
        new Error(`no response within ${timeoutMs} ms; got ${JSON.stringify(raw.slice(0, 200))}`),
      )
    }, timeoutMs)
    socket.on('data', (c) => {
      raw += c.toString('latin1')
      finish(false)
    })
    socket.on('close', () => finish(true))
    socket.on('error', () => {})
    socket.once('connect', async () => {
      for (const part of parts) {
        if (done || socket.destroyed) return
        if (typeof part === 'function') await part(socket)
        else socket.write(part)
      }
    })
  })
}

/** A backend for stream tests: counts connections and open event streams. */
export interface StreamBackend {
  server: Server
  port: number
  /** Open TCP connections to the backend right now. */
  connections(): Promise<number>
  /** Event streams currently open. */
  readonly streams: number
  /** Resolves once `n` streams are open (or rejects after `timeoutMs`). */
  waitForStreams(n: number, timeoutMs: number): Promise<void>
  close(): Promise<void>
}

/**
 * Answers GET with `Accept: text/event-stream` with an event stream it keeps open, POST with a
 * JSON-RPC result (and an `Mcp-Session-Id`), or hands the request to `other`.
 */
export async function startStreamBackend(
  other?: (req: IncomingMessage, res: ServerResponse) => boolean,
): Promise<StreamBackend> {
  let streams = 0
  const waiters: Array<() => void> = []
  const server = createServer((req, res) => {
    if (other?.(req, res)) return
    if (req.method === 'GET' && String(req.headers.accept).includes('text/event-stream')) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      res.write(': open\n\n')
      streams++
      for (const w of waiters.splice(0)) w()
      res.on('close', () => streams--)
      return
    }
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      const id = /"id"\s*:\s*(\d+)/.exec(body)?.[1]
      sendJson(
        res,
        200,
        {
          jsonrpc: '2.0',
          id: id === undefined ? null : Number(id),
          result: { protocolVersion: '2025-06-18' },
        },
        { 'mcp-session-id': 'session-1' },
      )
    })
  })
  server.keepAliveTimeout = 65_000
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const sockets = new Set<Socket>()
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  return {
    server,
    port: (server.address() as { port: number }).port,
    connections: () =>
      new Promise((resolve, reject) =>
        server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
      ),
    get streams() {
      return streams
    },
    async waitForStreams(n, timeoutMs) {
      const deadline = Date.now() + timeoutMs
      while (streams < n) {
        if (Date.now() > deadline)
          throw new Error(`only ${streams} of ${n} streams open after ${timeoutMs} ms`)
        await new Promise<void>((r) => {
          waiters.push(r)
          setTimeout(r, 200)
        })
      }
    },
    async close() {
      for (const s of sockets) s.destroy()
      await new Promise((r) => server.close(r))
    },
  }
}

/** Waits until `check` holds, polling; rejects with `what` after `timeoutMs`. */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  what: string,
  timeoutMs = 10_000,
) {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not true after ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** A JSON-RPC initialize request body. */
export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'probe', version: '1' },
  },
})

/** An event stream held open by a client. */
export interface OpenStream {
  status: number
  /** Resolves when the stream ended or was cut. */
  ended: Promise<void>
  /** Cuts the stream from the client side (a tab closed, a network gone). */
  abort(): void
}

/**
 * Opens `n` event streams (`GET` + `Accept: text/event-stream`), each on its own connection;
 * rejects when one gets no response headers within `timeoutMs`.
 */
export async function openStreams(
  url: string,
  n: number,
  { batch = 100, timeoutMs = 20_000 } = {},
): Promise<OpenStream[]> {
  const { request } = await import('node:http')
  const open = (): Promise<OpenStream> =>
    new Promise((resolve, reject) => {
      const headers = { accept: 'text/event-stream' }
      const req = request(url, { agent: false, headers }, (res) => {
        clearTimeout(timer)
        res.on('error', () => {})
        res.resume()
        const ended = new Promise<void>((r) => res.once('close', () => r()))
        resolve({ status: res.statusCode ?? 0, ended, abort: () => req.destroy() })
      })
      const timer = setTimeout(() => {
        req.destroy()
        reject(new Error(`a stream got no response headers within ${timeoutMs} ms`))
      }, timeoutMs)
      req.on('error', reject)
      req.end()
    })
  const streams: OpenStream[] = []
  for (let i = 0; i < n; i += batch) {
    streams.push(...(await Promise.all(Array.from({ length: Math.min(batch, n - i) }, open))))
  }
  return streams
}

/** The gateway's client connections, from its own `/debug/tasks`. */
export async function gatewayConnections(adminUrl: string): Promise<number> {
  const report = (await (await fetch(`${adminUrl}/debug/tasks`)).json()) as {
    tree: Array<{ kind: string; children?: unknown[] }>
  }
  return report.tree
    .filter((n) => n.kind === 'listener')
    .reduce((sum, n) => sum + (n.children?.length ?? 0), 0)
}
