/**
 * The backend's MCP server for 2026-07-28 traffic, on the official v2 server SDK
 * (`@modelcontextprotocol/server`), built fresh per request as that revision is stateless
 * (MCP 2026-07-28 Versioning, "A request carrying modern per-request `_meta` is served
 * statelessly according to this revision").
 *
 * Tools: `echo`, `fetch` and `progress` as in the 2025 leg, plus
 * - `confirm`: a multi round-trip request (MCP 2026-07-28 MRTR): the first call answers
 *   `resultType: "input_required"` with an elicitation, the retry carrying `inputResponses`
 *   completes;
 * - `query`: a `region` parameter mirrored into `Mcp-Param-Region` (`x-mcp-header`, MCP
 *   2026-07-28 Streamable HTTP "Custom Headers from Tool Parameters"; the SDK validates it);
 * - `report`: a task (`io.modelcontextprotocol/tasks`, see `tasks.ts`) for a client that
 *   declares the extension, a plain result otherwise.
 * A resource `mock://notes/readme` and a prompt `greet` give every list a member. List results
 * carry `ttlMs` and `cacheScope: "public"` (MCP 2026-07-28 Caching), so an intermediary that
 * filters them per user has something to correct.
 */
import {
  acceptedContent,
  inputRequired,
  McpServer,
  ProtocolError,
  type ServerContext,
} from '@modelcontextprotocol/server'
import { z } from 'zod'
import type { Observations } from './observe.js'
import { isTaskError, TASKS_EXTENSION, type TaskStore } from './tasks.js'
import { fetchUrl } from './tools.js'

/** What the 2026-07-28 server needs of the backend. */
export interface ModernServerDeps {
  observations: Observations
  allowNonLoopbackFetch: boolean
  tasks: TaskStore
}

/** How long list results may be cached, as the backend advertises (MCP 2026-07-28 Caching). */
export const LIST_TTL_MS = 60_000

const PUBLIC_LIST = { ttlMs: LIST_TTL_MS, cacheScope: 'public' } as const

const ECHO_INPUT = z.object({ text: z.string() })
const FETCH_INPUT = z.object({ url: z.string().url() })
const PROGRESS_INPUT = z.object({
  steps: z.number().int().min(1).max(50),
  delayMs: z.number().int().min(0).max(10_000).default(50),
  holdAfterStep: z.number().int().min(1).optional(),
})
const CONFIRM_INPUT = z.object({ action: z.string() })
const CONFIRM_ANSWER = z.object({ confirm: z.boolean() })
const QUERY_INPUT = z.object({
  region: z.string().meta({ 'x-mcp-header': 'Region' }),
  sql: z.string(),
})
const REPORT_INPUT = z.object({ topic: z.string() })
const TASK_ID = z.looseObject({ taskId: z.string() })

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] })

/** Whether the request's client declared the tasks extension (per-request capabilities). */
function declaresTasks(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined
  const caps = envelope?.['io.modelcontextprotocol/clientCapabilities'] as
    | { extensions?: Record<string, unknown> }
    | undefined
  return caps?.extensions?.[TASKS_EXTENSION] !== undefined
}

/** A new 2026-07-28 server with the backend's tools, resource, prompt and tasks. */
export function createModernServer(deps: ModernServerDeps): McpServer {
  const { observations: obs, tasks } = deps
  const server = new McpServer(
    { name: 'mcp-backend', version: '0.1.0' },
    {
      capabilities: { logging: {}, extensions: { [TASKS_EXTENSION]: {} } },
      cacheHints: {
        'tools/list': PUBLIC_LIST,
        'prompts/list': PUBLIC_LIST,
        'resources/list': PUBLIC_LIST,
        'resources/templates/list': PUBLIC_LIST,
      },
    },
  )
  const tool = (name: string) => obs.note({ event: 'tool_started', tool: name })
  const done = (name: string) => obs.note({ event: 'tool_finished', tool: name })

  server.registerTool(
    'echo',
    { description: 'Returns the text it was given.', inputSchema: ECHO_INPUT },
    async ({ text: t }) => {
      tool('echo')
      done('echo')
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
    async ({ url }, ctx) => {
      tool('fetch')
      try {
        const { isError, body } = await fetchUrl(url, ctx.mcpReq.signal, deps.allowNonLoopbackFetch)
        return { isError, ...text(body) }
      } finally {
        done('fetch')
      }
    },
  )
  server.registerTool(
    'progress',
    {
      description:
        "Sends `steps` progress notifications `delayMs` apart on this request's own response stream, then returns. With `holdAfterStep`, it stops after that step until `POST /__release` (at most 30 s).",
      inputSchema: PROGRESS_INPUT,
    },
    async ({ steps, delayMs, holdAfterStep }, ctx) => {
      tool('progress')
      const token = ctx.mcpReq._meta?.progressToken
      for (let step = 1; step <= steps; step++) {
        if (token !== undefined) {
          await ctx.mcpReq.notify({
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
      done('progress')
      return text(`done after ${steps} steps`)
    },
  )
  server.registerTool(
    'confirm',
    {
      description:
        'Asks the user to confirm `action` (a multi round-trip request: the first answer is input_required with an elicitation; the retry with inputResponses completes).',
      inputSchema: CONFIRM_INPUT,
    },
    async ({ action }, ctx) => {
      tool('confirm')
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', CONFIRM_ANSWER)
      if (answer === undefined) {
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              message: `Run ${action}?`,
              requestedSchema: CONFIRM_ANSWER,
            }),
          },
        })
      }
      done('confirm')
      return text(answer.confirm ? `confirmed ${action}` : `declined ${action}`)
    },
  )
  server.registerTool(
    'query',
    {
      description:
        'Runs a query in a region. The region is mirrored into the Mcp-Param-Region header (x-mcp-header), which the server checks against the body.',
      inputSchema: QUERY_INPUT,
    },
    async ({ region, sql }) => {
      tool('query')
      done('query')
      return text(`ran ${JSON.stringify(sql)} in ${region}`)
    },
  )
  server.registerTool(
    'report',
    {
      description:
        'Prepares a report on `topic`. A client that declares io.modelcontextprotocol/tasks gets a task (poll tasks/get, approve with tasks/update); others get the report at once.',
      inputSchema: REPORT_INPUT,
    },
    async ({ topic }, ctx) => {
      tool('report')
      if (!declaresTasks(ctx)) {
        done('report')
        return text(`report on ${topic}: 3 findings`)
      }
      // SEP-2663 "Task Creation": resultType "task" marks a CreateTaskResult.
      return { resultType: 'task', ...tasks.create(topic) } as unknown as ReturnType<typeof text>
    },
  )

  server.registerResource(
    'readme',
    'mock://notes/readme',
    { mimeType: 'text/plain', description: 'A fixed note.' },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello from mcp-backend' }],
    }),
  )
  server.registerPrompt(
    'greet',
    { description: 'Greets someone.', argsSchema: z.object({ name: z.string() }) },
    async ({ name }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}.` } }],
    }),
  )

  const answer = (value: unknown) => {
    if (isTaskError(value)) throw new ProtocolError(value.code, value.message)
    return value as Record<string, unknown>
  }
  const requireTasks = (ctx: ServerContext) => {
    // SEP-2663 "Protocol Errors": "Servers MUST return this error [-32021] for non-declaring
    // clients issuing tasks/get, tasks/update, and tasks/cancel requests."
    if (!declaresTasks(ctx)) {
      throw new ProtocolError(-32021, 'Missing required client capability', {
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      })
    }
  }
  server.server.setRequestHandler('tasks/get', { params: TASK_ID }, async (params, ctx) => {
    requireTasks(ctx as ServerContext)
    return answer(tasks.get(params.taskId))
  })
  // The SDK takes `inputResponses` out of the params of every 2026-07-28 request (MRTR) and
  // hands them over as ctx.mcpReq.inputResponses, tasks/update's included.
  server.server.setRequestHandler('tasks/update', { params: TASK_ID }, async (params, ctx) => {
    requireTasks(ctx as ServerContext)
    return answer(tasks.update(params.taskId, ctx.mcpReq.inputResponses ?? {}))
  })
  server.server.setRequestHandler('tasks/cancel', { params: TASK_ID }, async (params, ctx) => {
    requireTasks(ctx as ServerContext)
    return answer(tasks.cancel(params.taskId))
  })
  return server
}
