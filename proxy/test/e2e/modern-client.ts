/**
 * A minimal MCP 2026-07-28 client for the e2e tests: fetch, the `_meta` envelope and request
 * metadata headers of mock-mcp's `modernRequest` (the official TS client still announces
 * 2025-11-25), and a reader of SSE answers and of long-lived `subscriptions/listen` streams.
 */
import { type ModernRequestOptions, modernRequest } from '@gatehouse/mock-mcp'

/** One answer: status, headers and the JSON-RPC messages of its body (JSON or SSE). */
export interface RpcAnswer {
  status: number
  headers: Headers
  messages: Array<Record<string, unknown>>
}

/** The JSON-RPC messages of a body, JSON or SSE. */
export function messagesOf(contentType: string | null, body: string) {
  if (!contentType?.includes('text/event-stream')) {
    return body ? [JSON.parse(body) as Record<string, unknown>] : []
  }
  return body
    .split(/\r?\n/)
    .filter((l) => l.startsWith('data:') && l.slice(5).trim() !== '')
    .map((l) => JSON.parse(l.slice(5)) as Record<string, unknown>)
}

/** Sends one 2026-07-28 request (no session: every request stands alone). */
export async function rpc(
  url: string,
  method: string,
  options: ModernRequestOptions = {},
): Promise<RpcAnswer> {
  const res = await fetch(url, modernRequest(method, options))
  return {
    status: res.status,
    headers: res.headers,
    messages: messagesOf(res.headers.get('content-type'), await res.text()),
  }
}

/** The JSON-RPC response (the message with an id and a result or error) of an answer. */
export function final(answer: RpcAnswer): {
  id?: unknown
  result?: Record<string, unknown>
  error?: { code: number; message: string; data?: Record<string, unknown> }
} {
  const last = answer.messages.find((m) => 'id' in m && ('result' in m || 'error' in m))
  if (!last) throw new Error(`no response in ${answer.status} ${JSON.stringify(answer.messages)}`)
  return last as ReturnType<typeof final>
}

/** An open `subscriptions/listen` stream. */
export interface ListenStream {
  status: number
  /** The next JSON-RPC message on the stream (waits for it). */
  next(): Promise<Record<string, unknown>>
  close(): Promise<void>
}

/** Opens a `subscriptions/listen` stream; a refused one has its status and no messages. */
export async function listen(
  url: string,
  options: ModernRequestOptions = {},
): Promise<ListenStream> {
  const aborted = new AbortController()
  const res = await fetch(url, {
    ...modernRequest('subscriptions/listen', options),
    signal: aborted.signal,
  })
  const reader = res.body?.getReader()
  const decoder = new TextDecoder()
  let buffered = ''
  return {
    status: res.status,
    async next() {
      for (;;) {
        const at = buffered.search(/\r?\n\r?\n/)
        if (at >= 0) {
          const event = buffered.slice(0, at)
          buffered = buffered.slice(at).replace(/^\r?\n\r?\n/, '')
          const data = event
            .split(/\r?\n/)
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5))
            .join('')
          if (data.trim()) return JSON.parse(data) as Record<string, unknown>
          continue
        }
        const chunk = await reader?.read()
        if (!chunk || chunk.done) throw new Error('the listen stream ended')
        buffered += decoder.decode(chunk.value, { stream: true })
      }
    },
    async close() {
      aborted.abort()
      await reader?.cancel().catch(() => undefined)
    },
  }
}
