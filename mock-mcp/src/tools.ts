/**
 * The backend's MCP server and its tools: `echo`, `fetch` (the seed's deployment prerequisites),
 * `progress` (streams notifications, optionally held until released) and `notify` (messages on
 * the session's own GET stream, for resumption). One server per session, as the SDK's server
 * binds to a single transport.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { Observations } from './observe.js'

const FETCH_MAX_BYTES = 64 * 1024

/** What the tools need of the backend. */
export interface ToolDeps {
  observations: Observations
  /** Let `fetch` reach non-loopback hosts. */
  allowNonLoopbackFetch: boolean
}

/** Whether a hostname is a loopback name or literal (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '')
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h)
}

/**
 * What the `fetch` tool does, in both protocol eras: fetches an http(s) URL (loopback hosts only
 * unless allowed) and answers `HTTP <status>` and the first 64 KiB of the body.
 * @returns the text and whether it is an error (refused, failed, or not a 2xx answer)
 */
export async function fetchUrl(
  url: string,
  signal: AbortSignal,
  allowNonLoopback: boolean,
): Promise<{ isError: boolean; body: string }> {
  try {
    const target = new URL(url)
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      return { isError: true, body: `unsupported scheme ${target.protocol}` }
    }
    if (!allowNonLoopback && !isLoopbackHost(target.hostname)) {
      return {
        isError: true,
        body: `refusing to fetch ${target.host}: only loopback hosts are allowed (start with allowNonLoopbackFetch to change this)`,
      }
    }
    const response = await fetch(target, { signal, redirect: 'follow' })
    const body = (await response.text()).slice(0, FETCH_MAX_BYTES)
    return { isError: !response.ok, body: `HTTP ${response.status}\n\n${body}` }
  } catch (err) {
    return { isError: true, body: `fetch failed: ${(err as Error).message}` }
  }
}

// The input schemas, built once: a session's server only refers to them (building them for every
// session cost most of a session's set-up).
const ECHO_INPUT = z.object({ text: z.string() })
const FETCH_INPUT = z.object({ url: z.string().url() })
const PROGRESS_INPUT = z.object({
  steps: z.number().int().min(1).max(50),
  delayMs: z.number().int().min(0).max(10_000).default(50),
  holdAfterStep: z.number().int().min(1).optional(),
})
const NOTIFY_INPUT = z.object({ count: z.number().int().min(1).max(50) })

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] })

/** A new MCP server with the backend's tools (logging declared: `notify` sends messages). */
export function createMcpServer(deps: ToolDeps): McpServer {
  const { observations: obs } = deps
  const server = new McpServer(
    { name: 'mcp-backend', version: '0.1.0' },
    { capabilities: { logging: {} } },
  )
  server.registerTool(
    'echo',
    { description: 'Returns the text it was given.', inputSchema: ECHO_INPUT },
    async ({ text: t }) => {
      obs.note({ event: 'tool_started', tool: 'echo' })
      obs.note({ event: 'tool_finished', tool: 'echo' })
      return text(t)
    },
  )
  server.registerTool(
    'fetch',
    {
      description:
        'Fetches a URL and returns its body as text (first 64 KiB). Loopback hosts only unless the backend was started with allowNonLoopbackFetch.',
      inputSchema: FETCH_INPUT,
    },
    async ({ url }, extra) => {
      obs.note({ event: 'tool_started', tool: 'fetch' })
      try {
        const { isError, body } = await fetchUrl(url, extra.signal, deps.allowNonLoopbackFetch)
        return { isError, ...text(body) }
      } finally {
        obs.note({ event: 'tool_finished', tool: 'fetch' })
      }
    },
  )
  server.registerTool(
    'progress',
    {
      description:
        'Sends `steps` progress notifications `delayMs` apart (MCP progress utility), then returns. With `holdAfterStep`, it stops after that step until `POST /__release` (at most 30 s), which lets a test prove that events stream instead of being buffered.',
      inputSchema: PROGRESS_INPUT,
    },
    async ({ steps, delayMs, holdAfterStep }, extra) => {
      obs.note({ event: 'tool_started', tool: 'progress' })
      const token = extra._meta?.progressToken
      for (let step = 1; step <= steps; step++) {
        if (token !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: step, total: steps, message: `step ${step}` },
          })
        }
        obs.note({ event: 'progress_sent', tool: 'progress', step })
        if (step === holdAfterStep) {
          obs.note({ event: 'held', tool: 'progress', step })
          await obs.hold()
          obs.note({ event: 'released', tool: 'progress', step })
        }
        if (step < steps) await new Promise((r) => setTimeout(r, delayMs))
      }
      obs.note({ event: 'tool_finished', tool: 'progress' })
      return text(`done after ${steps} steps`)
    },
  )
  server.registerTool(
    'notify',
    {
      description:
        'Sends `count` log messages (notifications/message, data {"n": 1…count}) on the session\'s own GET stream, not tied to this call, then returns. Each gets an SSE event id, so a client that reconnects with Last-Event-ID gets the ones after it replayed (MCP 2025-11-25 Transports, Resumability and Redelivery).',
      inputSchema: NOTIFY_INPUT,
    },
    async ({ count }) => {
      obs.note({ event: 'tool_started', tool: 'notify' })
      // No relatedRequestId: the SDK's transport sends these on the standalone GET stream
      // (and stores them for replay even while no stream is open).
      for (let n = 1; n <= count; n++) {
        await server.server.notification({
          method: 'notifications/message',
          params: { level: 'info', logger: 'mcp-backend', data: { n } },
        })
      }
      obs.note({ event: 'tool_finished', tool: 'notify' })
      return text(`sent ${count} messages`)
    },
  )
  return server
}
