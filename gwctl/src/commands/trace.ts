/**
 * `gwctl proxy trace`: waits for the next request the proxy handles and follows it through the
 * admin `/debug/trace` stream (seed, "Command-line tool"): a terminal timeline by default,
 * JSON Lines with `--raw`. Exits once the request finished, unless `--follow`.
 */
import { Command } from 'commander'
import { formatAdminAddress } from '../admin-client.js'
import { usageError } from '../errors.js'
import { type CliIo, write } from '../io.js'
import type { TraceEvent } from '../trace/events.js'
import { jsonLine } from '../trace/printable.js'
import { traceNextRequest } from '../trace/stream.js'
import type { TraceViewProps } from '../trace/trace-view.js'
import { type Action, adminClientOf } from './context.js'

interface TraceOptions {
  local?: boolean
  raw?: boolean
  path?: string
  follow?: boolean
}

/** Exit code of a trace stopped with Ctrl-C before its request finished (128 + SIGINT). */
const INTERRUPTED = 130

/** Builds `trace`; `setAction` receives the action to run. */
export function traceCommand(setAction: (a: Action) => void): Command {
  return new Command('trace')
    .description(
      'Wait for the next request and show its trace: route, policies, authentication, each authorization rule, backend and status',
    )
    .option('--local', 'trace the proxy of the local admin interface (the default)')
    .option('--raw', 'print the events as JSON Lines instead of the terminal UI')
    .option('--path <prefix>', 'only trace a request whose path starts with <prefix>')
    .option('--follow', 'keep following requests after the first one (stop with Ctrl-C)')
    .addHelpText(
      'after',
      `
Tokens and cookies are shown as [redacted].

Examples:
  gwctl proxy trace --local
  gwctl proxy trace --local --path /mcp --raw > trace.jsonl
  gwctl proxy trace --local --follow`,
    )
    .action((opts: TraceOptions, cmd: Command) => {
      if (opts.path !== undefined && !opts.path.startsWith('/')) {
        throw usageError(`--path ${opts.path}: expected a path prefix starting with "/", e.g. /mcp`)
      }
      const client = adminClientOf(cmd)
      setAction(async (io) => {
        const requests = (onEvent: (e: TraceEvent) => Promise<void>, onWaiting: () => void) =>
          followRequests(io, opts, onEvent, (signal) =>
            traceNextRequest(client, {
              ...(opts.path ? { pathPrefix: opts.path } : {}),
              signal,
              onOpen: onWaiting,
            }),
          )
        if (opts.raw) {
          // The status line goes to stderr so stdout stays pure JSON Lines.
          const where = `${formatAdminAddress(client.address)}${opts.path ? ` under ${opts.path}` : ''}`
          return requests(
            // jsonLine: no control character of an untrusted field reaches the terminal or file.
            (e) => write(io.stdout, `${jsonLine(e)}\n`),
            () => io.stderr.write(`waiting for the next request on ${where} (Ctrl-C to stop)\n`),
          )
        }
        const admin = formatAdminAddress(client.address)
        if (!io.stdout.isTTY) return printTimelines(io, admin, opts, requests)
        return runView(io, admin, opts, requests)
      })
    })
}

/**
 * Traces one request, or requests until Ctrl-C with `--follow`.
 * @returns 0 once a request finished (with `--follow`: at least one), 130 when interrupted before.
 */
async function followRequests(
  io: CliIo,
  opts: TraceOptions,
  onEvent: (e: TraceEvent) => Promise<void>,
  next: (signal: AbortSignal) => AsyncIterable<TraceEvent>,
): Promise<number> {
  const abort = new AbortController()
  const stop = () => abort.abort()
  io.signal?.addEventListener('abort', stop, { once: true })
  if (io.signal?.aborted) stop()
  let finished = 0
  try {
    do {
      let ended = false
      for await (const e of next(abort.signal)) {
        await onEvent(e)
        if (e.type === 'request_finished') ended = true
      }
      if (!ended) break
      finished++
    } while (opts.follow && !abort.signal.aborted)
  } finally {
    io.signal?.removeEventListener('abort', stop)
  }
  return finished > 0 ? 0 : INTERRUPTED
}

type Requests = (
  onEvent: (e: TraceEvent) => Promise<void>,
  onWaiting: () => void,
) => Promise<number>

/**
 * The timeline for a file or pipe: no live redrawing (its cursor movements would litter the
 * output); each request's timeline is printed once it finished, the waiting line goes to stderr.
 */
async function printTimelines(
  io: CliIo,
  admin: string,
  opts: TraceOptions,
  requests: Requests,
): Promise<number> {
  const [{ renderToString }, { createElement }, { TraceView }] = await Promise.all([
    import('ink'),
    import('react'),
    import('../trace/trace-view.js'),
  ])
  let current: TraceEvent[] = []
  const where = `${admin}${opts.path ? ` under ${opts.path}` : ''}`
  return requests(
    async (e) => {
      current.push(e)
      if (e.type !== 'request_finished') return
      const frame = renderToString(
        createElement(TraceView, {
          admin,
          pathPrefix: opts.path,
          follow: false,
          requests: [current],
          waiting: false,
          connected: true,
          header: false,
        }),
        { columns: io.stdout.columns ?? 200 },
      )
      current = []
      await write(io.stdout, `${frame.replace(/^\n/, '')}\n`)
    },
    () => io.stderr.write(`waiting for the next request on ${where} (Ctrl-C to stop)\n`),
  )
}

async function runView(
  io: CliIo,
  admin: string,
  opts: TraceOptions,
  requests: Requests,
): Promise<number> {
  const state: TraceViewProps = {
    admin,
    pathPrefix: opts.path,
    follow: opts.follow === true,
    requests: [],
    waiting: true,
    connected: false,
  }
  // Loaded here, not at start-up: ink and React take most of a second to load, which every other
  // command (and --raw) would pay for nothing.
  const [{ render }, { createElement }, { TraceView }] = await Promise.all([
    import('ink'),
    import('react'),
    import('../trace/trace-view.js'),
  ])
  const view = () => createElement(TraceView, { ...state })
  const ink = render(view(), {
    stdout: io.stdout as NodeJS.WriteStream,
    stderr: io.stderr as NodeJS.WriteStream,
    exitOnCtrlC: false,
    patchConsole: false,
  })
  // Subscribe now: if rendering fails, ink unmounts at once and settles only the promise that
  // exists at that moment. The rejection is awaited below; this keeps it from counting as
  // unhandled meanwhile.
  const exited = ink.waitUntilExit()
  exited.catch(() => {})
  try {
    return await requests(
      async (e) => {
        const list = state.requests.slice()
        const last = list.at(-1)
        if (!state.waiting && last) list[list.length - 1] = [...last, e]
        else list.push([e])
        state.requests = list
        state.waiting = false
        ink.rerender(view())
      },
      () => {
        state.connected = true
        state.waiting = true
        ink.rerender(view())
      },
    )
  } finally {
    state.waiting = false
    ink.rerender(view())
    ink.unmount()
    await exited
  }
}
