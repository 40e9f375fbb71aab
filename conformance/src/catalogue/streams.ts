/**
 * Helpers of the transport checks that hold streams open: MCP sessions opened by hand (the SDK
 * client opens one GET stream per session and hides its event ids), and an SSE reader
 * (WHATWG HTML §9.2 "Server-sent events", parsed by `eventsource-parser`).
 */
import type { EventSourceMessage } from 'eventsource-parser'
import { EventSourceParserStream } from 'eventsource-parser/stream'
import { type CheckContext, CheckFailure, CheckSkipped, must } from '../types.js'
import { token } from './util.js'

/** The protocol version whose transport has resumable streams (MCP 2025-11-25). */
export const PROTOCOL = '2025-11-25'

/** One server-sent event. */
export interface SseEvent {
  id?: string
  event?: string
  data: string
}

/**
 * Reads events off an SSE body, one at a time, with `eventsource-parser` (the parser gwctl uses):
 * the WHATWG rules — CRLF, CR or LF line ends, comments and fields it does not know skipped, and
 * a block dispatched only when it has a `data` field (a priming event is `id` plus an empty
 * `data`, MCP 2025-11-25 Transports).
 */
export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<EventSourceMessage>

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(new EventSourceParserStream())
      .getReader()
  }

  /** The next event, or `undefined` when the stream ended (or was aborted). */
  async next(): Promise<SseEvent | undefined> {
    const chunk = await this.#reader.read().catch(() => ({ done: true as const, value: undefined }))
    if (chunk.done || !chunk.value) return undefined
    const { id, event, data } = chunk.value
    return { data, ...(id !== undefined ? { id } : {}), ...(event !== undefined ? { event } : {}) }
  }
}

/** An MCP session opened through the gateway with a valid token. */
export interface Session {
  id: string
  /** Headers every later request of the session carries. */
  headers: Record<string, string>
  /** Ends the session (DELETE), ignoring the answer. */
  end(): Promise<void>
}

/**
 * `initialize` (protocol {@link PROTOCOL}) then, unless `initialized: false` (a session that
 * only listens), `notifications/initialized`, with a token of `alice` unless `bearer` is given.
 * Plain fetch, not `ctx.http`: many sessions may be opened at once.
 * @throws CheckFailure when the gateway does not answer 200 with an `Mcp-Session-Id`
 */
export async function openSession(
  ctx: CheckContext,
  options: { bearer?: string; signal?: AbortSignal; initialized?: boolean } = {},
): Promise<Session> {
  const bearer = options.bearer ?? (await token(ctx))
  const url = `${ctx.target.base}/mcp`
  const base = {
    authorization: `Bearer ${bearer}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  }
  const init = await fetch(url, {
    method: 'POST',
    headers: base,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: PROTOCOL,
        capabilities: {},
        clientInfo: { name: 'gatehouse-conformance', version: '0' },
      },
    }),
    signal: options.signal ?? AbortSignal.timeout(10_000),
  })
  const body = await init.text()
  const id = init.headers.get('mcp-session-id')
  must(
    init.status === 200 && id,
    'initialize answered 200 with an Mcp-Session-Id',
    `${init.status}, session ${id}: ${body.slice(0, 200)}`,
  )
  const headers = { ...base, 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL }
  if (options.initialized !== false) {
    const initialized = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      signal: options.signal ?? AbortSignal.timeout(10_000),
    })
    await initialized.arrayBuffer()
  }
  return {
    id,
    headers,
    async end() {
      await fetch(url, { method: 'DELETE', headers, signal: AbortSignal.timeout(5000) })
        .then((r) => r.arrayBuffer())
        .catch(() => {})
    },
  }
}

/** An open GET stream of a session. */
export interface OpenStream {
  events: SseReader
  close(): void
}

/**
 * Opens the session's GET stream (MCP Transports, "Listening for Messages from the Server").
 * @throws CheckSkipped when the server offers none (405), CheckFailure on anything but 200 SSE
 */
export async function openStream(
  ctx: CheckContext,
  session: Session,
  options: { lastEventId?: string; timeoutMs?: number } = {},
): Promise<OpenStream> {
  const abort = new AbortController()
  const timer = setTimeout(
    () => abort.abort(new Error(`no answer within ${(options.timeoutMs ?? 10_000) / 1000} s`)),
    options.timeoutMs ?? 10_000,
  )
  const what = `GET /mcp (SSE${options.lastEventId ? `, Last-Event-ID ${options.lastEventId}` : ''})`
  let res: Response
  try {
    res = await fetch(`${ctx.target.base}/mcp`, {
      method: 'GET',
      headers: {
        ...session.headers,
        accept: 'text/event-stream',
        ...(options.lastEventId !== undefined ? { 'last-event-id': options.lastEventId } : {}),
      },
      signal: abort.signal,
    })
  } catch (err) {
    throw new CheckFailure(`an answer to ${what}`, (err as Error).message)
  } finally {
    clearTimeout(timer)
  }
  if (res.status === 405) {
    abort.abort()
    throw new CheckSkipped('the MCP server offers no GET stream (405)')
  }
  const type = res.headers.get('content-type') ?? ''
  if (res.status !== 200 || !type.includes('text/event-stream') || !res.body) {
    const text = await res.text().catch(() => '')
    throw new CheckFailure(
      `200 text/event-stream to ${what}`,
      `${res.status} ${type}: ${text.slice(0, 200)}`,
    )
  }
  return { events: new SseReader(res.body), close: () => abort.abort() }
}

/** Calls a tool in the session; resolves when its answer (JSON or SSE) has been read. */
export async function callTool(
  ctx: CheckContext,
  session: Session,
  name: string,
  args: Record<string, unknown>,
): Promise<string> {
  const res = await ctx.http(`${ctx.target.base}/mcp`, {
    method: 'POST',
    headers: session.headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name, arguments: args },
    }),
  })
  must(res.status === 200, `tools/call ${name} answered 200`, `${res.status}`)
  return res.text
}

/** Reads events until `want` matches one, or `timeoutMs` passes (then closes the stream). */
export async function readUntil(
  stream: OpenStream,
  want: (seen: SseEvent[]) => boolean,
  timeoutMs = 10_000,
): Promise<SseEvent[]> {
  const seen: SseEvent[] = []
  const timer = setTimeout(() => stream.close(), timeoutMs)
  try {
    while (!want(seen)) {
      const event = await stream.events.next()
      if (!event) break
      seen.push(event)
    }
  } finally {
    clearTimeout(timer)
  }
  return seen
}
