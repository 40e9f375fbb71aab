/**
 * A small recording reverse proxy. One stands in front of the gateway and one in front of the
 * IdP, so that every request of the client under test passes one of them: it is recorded whole
 * ({@link Traffic}) and forwarded unchanged, its answer streamed back (SSE included) while the
 * first 64 KiB are kept. A scenario may give it a {@link Shaper} to produce the real-world shapes
 * the reference proxy deliberately does not (a challenge without `resource_metadata`, PRM only at
 * the root), to hold a request (a token that must expire first) or to answer itself — so the
 * proxy itself carries no broken modes.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from 'node:http'
import type { AddressInfo } from 'node:net'
import { sendJson } from '@gatehouse/support'
import { BODY_LIMIT, type Recorded, type Side, type Traffic } from './traffic.js'

/** Hands out the ports of `--port-range`, in turn. */
export interface PortPicker {
  /** The next port; throws when the range is used up. */
  next(): number
}

/** A {@link PortPicker} over `from`–`to` (inclusive). */
export function portRange(from: number, to: number): PortPicker {
  let at = from
  return {
    next() {
      if (at > to) throw new Error(`--port-range ${from}-${to} is used up`)
      return at++
    },
  }
}

/** An answer the recorder gives itself. */
export interface Synthetic {
  status: number
  headers?: Record<string, string>
  body?: string
  /** What was done, in words (shown in evidence). */
  note: string
}

/** How a scenario reshapes what passes a recorder. */
export interface Shaper {
  /** Before forwarding: answer the request itself, or wait (resolve later), or let it pass. */
  request?(e: Recorded): Synthetic | undefined | Promise<Synthetic | undefined>
  /**
   * Before the answer's head goes back: change `headers` (lower-case names) in place and return
   * what was changed, in words; `undefined` when nothing was.
   */
  response?(e: Recorded, headers: Record<string, string>): string | undefined
  /** After the whole answer went back (e.g. to trigger a key rotation). */
  answered?(e: Recorded): void | Promise<void>
}

/** A running recorder. */
export interface Recorder {
  /** The origin clients address, `http://127.0.0.1:<port>`. */
  origin: string
  /** Where requests go (set once the upstream listens). */
  setUpstream(port: number): void
  setShaper(shaper: Shaper | undefined): void
  stop(): Promise<void>
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) are not forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
])

function flatten(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v
  }
  return out
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const c of req) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
}

/**
 * Starts a recorder on a free loopback port (or one `ports` hands out: `--port-range`, retried on
 * the next when taken), recording into `traffic` as `side`.
 */
export async function startRecorder(
  side: Side,
  traffic: Traffic,
  ports?: PortPicker,
): Promise<Recorder> {
  let upstream: number | undefined
  let shaper: Shaper | undefined
  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) {
        sendJson(res, 502, { error: 'recorder', error_description: (err as Error).message })
      } else res.destroy()
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readAll(req)
    const e = traffic.add({
      side,
      method: req.method ?? 'GET',
      url: new URL(req.url ?? '/', origin),
      requestHeaders: flatten(req.headers),
      requestBody: body.subarray(0, BODY_LIMIT).toString('utf8'),
      status: 0,
      responseHeaders: {},
      responseBody: '',
    })
    const synthetic = await shaper?.request?.(e)
    if (synthetic) {
      const text = synthetic.body ?? ''
      const headers = { 'content-length': String(Buffer.byteLength(text)), ...synthetic.headers }
      Object.assign(e, {
        status: synthetic.status,
        responseHeaders: headers,
        responseBody: text,
        reshaped: synthetic.note,
      })
      res.writeHead(synthetic.status, headers)
      res.end(text)
      await shaper?.answered?.(e)
      return
    }
    if (upstream === undefined) throw new Error('the recorder has no upstream yet')
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(e.requestHeaders)) if (!HOP_BY_HOP.has(k)) headers[k] = v
    headers['content-length'] = String(body.length)
    const up = request({
      host: '127.0.0.1',
      port: upstream,
      method: e.method,
      path: req.url,
      headers,
    })
    res.once('close', () => up.destroy())
    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      up.once('response', resolve)
      up.once('error', reject)
      up.end(body)
    })
    const out: Record<string, string> = {}
    for (const [k, v] of Object.entries(flatten(answer.headers))) if (!HOP_BY_HOP.has(k)) out[k] = v
    const note = shaper?.response?.(e, out)
    e.status = answer.statusCode ?? 0
    e.responseHeaders = out
    if (note) e.reshaped = note
    const cookies = answer.headers['set-cookie']
    res.writeHead(e.status, { ...out, ...(cookies ? { 'set-cookie': cookies } : {}) })
    let kept = 0
    for await (const chunk of answer) {
      const c = chunk as Buffer
      if (kept < BODY_LIMIT) {
        e.responseBody += c.subarray(0, BODY_LIMIT - kept).toString('utf8')
        kept += c.length
      }
      if (!res.write(c)) await new Promise((r) => res.once('drain', r))
    }
    res.end()
    await shaper?.answered?.(e)
  }

  if (!ports) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  else {
    for (;;) {
      const port = ports.next()
      const bound = await new Promise<boolean>((resolve) => {
        server.once('error', () => resolve(false))
        server.listen(port, '127.0.0.1', () => resolve(true))
      })
      if (bound) break
    }
    server.removeAllListeners('error')
  }
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    origin,
    setUpstream(port) {
      upstream = port
    },
    setShaper(s) {
      shaper = s
    },
    async stop() {
      server.closeAllConnections()
      await new Promise<void>((r) => server.close(() => r()))
    },
  }
}
