/**
 * Helpers for the admin tests: a backend with a slow path, a gatehouse whose admin listens on
 * 127.0.0.1:0, and an SSE reader.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { sendJson } from '@gatehouse/support'
import type { GatehouseConfigInput } from '../../src/config/schema.js'
import { simpleConfig, startTestGatehouse, type TestGatehouse } from '../helpers.js'

/** A plain backend: `/mcp/slow` answers after `release()`; everything else answers at once. */
export interface TestBackend {
  port: number
  server: Server
  /** Resolves when a `/mcp/slow` request arrived. */
  slowArrived(): Promise<void>
  /** Lets waiting `/mcp/slow` requests answer. */
  release(): void
  close(): Promise<void>
}

/** Starts a {@link TestBackend} on 127.0.0.1:0. */
export async function startBackend(): Promise<TestBackend> {
  let releaseAll: () => void = () => undefined
  let released = new Promise<void>((r) => (releaseAll = r))
  let arrived: () => void = () => undefined
  let arrivedP = new Promise<void>((r) => (arrived = r))
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/mcp/slow')) {
      arrived()
      void released.then(() => {
        res.writeHead(200, { 'content-type': 'text/plain' })
        res.end('slow done')
      })
      return
    }
    sendJson(res, 200, { path: req.url })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    port: (server.address() as AddressInfo).port,
    server,
    slowArrived: () => arrivedP,
    release() {
      releaseAll()
      released = new Promise<void>((r) => (releaseAll = r))
      arrivedP = new Promise<void>((r) => (arrived = r))
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}

/** A gatehouse in front of `backendPort` with its admin on `adminAddr` (default 127.0.0.1:0). */
export async function startAdminGatehouse(
  backendPort: number,
  options: {
    adminAddr?: string
    logFilter?: string
    config?: Partial<GatehouseConfigInput>
  } = {},
): Promise<TestGatehouse & { admin: string }> {
  const base = simpleConfig(backendPort)
  const config: GatehouseConfigInput = {
    ...base,
    ...options.config,
    config: { adminAddr: options.adminAddr ?? '127.0.0.1:0', ...options.config?.config },
  }
  const gh = await startTestGatehouse(
    config,
    options.logFilter ? { logFilter: options.logFilter } : {},
  )
  return Object.assign(gh, { admin: gh.adminUrl ?? '' })
}

/** One SSE frame. */
export interface SseFrame {
  event: string | undefined
  data: string | undefined
  comment: string | undefined
}

/** Parses an event stream's text into frames (comments included). */
export function parseSse(text: string): SseFrame[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim().length > 0)
    .map((block) => {
      const frame: SseFrame = { event: undefined, data: undefined, comment: undefined }
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) frame.comment = line.slice(1).trim()
        else if (line.startsWith('event: ')) frame.event = line.slice('event: '.length)
        else if (line.startsWith('data: ')) frame.data = line.slice('data: '.length)
      }
      return frame
    })
}

/**
 * Opens `/debug/trace`, waits until the watcher is registered (the first comment arrived),
 * and returns a function reading the rest of the stream.
 */
export async function openTrace(
  url: string,
  init: RequestInit = {},
): Promise<{ response: Response; rest(): Promise<SseFrame[]> }> {
  const response = await fetch(url, init)
  if (!response.body) throw new Error('no body')
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  while (!text.includes('\n\n')) {
    const { value, done } = await reader.read()
    if (done) break
    text += decoder.decode(value, { stream: true })
  }
  return {
    response,
    async rest() {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        text += decoder.decode(value, { stream: true })
      }
      return parseSse(text)
    },
  }
}

/** Log lines whose message contains `text`. */
export function logsWith(
  logs: Array<Record<string, unknown>>,
  text: string,
): Array<Record<string, unknown>> {
  return logs.filter((l) => typeof l.msg === 'string' && l.msg.includes(text))
}
