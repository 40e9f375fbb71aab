/**
 * The local admin interface (seed: Admin interface table; Authentication point 5): config dump,
 * request trace, log level, memory, CPU and heap profiles, task tree and graceful shutdown.
 *
 * It has no authentication by design and is protected by where it binds: loopback or a unix
 * socket only the owner may open. Binding elsewhere works but is announced with a warning.
 * Two cheap checks keep a web page in the operator's browser from using it (a cross-site POST to
 * `/quitquitquit`, DNS rebinding): a request carrying a foreign `Origin` is refused, and on a
 * loopback bind the `Host` must name loopback.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { bindAdmin, isLoopback, parseAdminAddr } from './address.js'
import { buildConfigDump } from './config-dump.js'
import type { AdminContext } from './context.js'
import { serveLogging } from './logging.js'
import { memoryReport } from './memory.js'
import { serveMetrics } from './metrics.js'
import { HeapSampler, PROFILING_SUPPORTED } from './pprof.js'
import { serveCpuProfile, serveHeapProfile } from './profile-endpoints.js'
import { tasksReport } from './tasks.js'
import { serveTrace } from './trace.js'
import { renderUi } from './ui.js'

/** Options of {@link startAdmin} beyond the address (tests). */
export interface AdminOptions {
  /** Interval of `: keep-alive` comments on `/debug/trace`. Default 15 000 ms. */
  traceKeepAliveMs?: number
}

/** A running admin server. */
export interface AdminServer {
  /** `http://host:port` or `unix:/path`. */
  url: string
  /** Stops listening, ends open streams and profiles, removes a unix socket file. */
  close(): Promise<void>
}

/** One admin endpoint, as listed by `/ui` and by the 404 answer. */
export interface AdminEndpoint {
  path: string
  methods: readonly string[]
  description: string
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>

interface Route extends AdminEndpoint {
  handle: Handler
  /** Long-running (a stream, a timed profile): no implicit HEAD, which would start one. */
  long?: true
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(`${JSON.stringify(body, null, 2)}\n`)
}

function text(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers })
  res.end(body.endsWith('\n') ? body : `${body}\n`)
}

/** Host names a loopback-bound admin accepts in `Host` (anything else may be DNS rebinding). */
function hostIsLoopback(host: string | undefined): boolean {
  if (!host) return true
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d+$/, '')
  return name === 'localhost' || name.endsWith('.localhost') || isLoopback(name)
}

/** A same-origin request from a browser carries an Origin naming the host it asked for. */
function sameOrigin(origin: string, host: string | undefined): boolean {
  try {
    return new URL(origin).host === host
  } catch {
    return false
  }
}

/**
 * Starts the admin server on `addr` (`host:port`, port 0 allowed, `localhost` resolved, or
 * `unix:/path`; `off` is handled by the caller and never reaches here).
 * @throws GatehouseError GW_ERR_LISTEN when the address cannot be bound.
 */
export async function startAdmin(
  addr: string,
  ctx: AdminContext,
  options: AdminOptions = {},
): Promise<AdminServer> {
  const log = ctx.logging.logger('proxy::admin')
  const heap = new HeapSampler()
  const closing = new AbortController()
  const profiling = { running: false }

  const routes: Route[] = [
    {
      path: '/config_dump',
      methods: ['GET'],
      description:
        'runtime configuration: binds, listeners, routes, backends, policies with status',
      handle: (_req, res) => json(res, 200, buildConfigDump(ctx)),
    },
    {
      path: '/debug/trace',
      methods: ['GET'],
      description: 'SSE trace of the next request (?path=/prefix filters)',
      long: true,
      handle: (_req, res, url) =>
        serveTrace(ctx.traceBus, res, url, {
          ...(options.traceKeepAliveMs ? { keepAliveMs: options.traceKeepAliveMs } : {}),
        }),
    },
    {
      path: '/logging',
      methods: ['GET', 'POST'],
      description: 'GET the log filter; POST ?level=info,proxy::httpproxy=trace sets it',
      handle: (req, res, url) =>
        serveLogging(ctx.logging, req, res, url, {
          onChange: (from, to) => log.warn({ from, to }, `log filter changed to ${to}`),
        }),
    },
    {
      path: '/metrics',
      methods: ['GET'],
      description:
        'Prometheus metrics: requests, auth failures, JWKS refreshes, upstream latency, streams, MCP tool calls',
      handle: (_req, res) => serveMetrics(res, ctx.metrics),
    },
    {
      path: '/memory',
      methods: ['GET'],
      description: 'process and V8 heap statistics',
      handle: (_req, res) => json(res, 200, memoryReport()),
    },
    ...(PROFILING_SUPPORTED
      ? [
          {
            path: '/debug/pprof/profile',
            methods: ['GET'],
            long: true as const,
            description:
              'CPU profile, gzipped pprof (?seconds=1-300, default 10; ?frequency=1-1000 Hz, default 100)',
            handle: ((req, res, url) =>
              serveCpuProfile(req, res, url, {
                state: profiling,
                closing: closing.signal,
              })) satisfies Handler,
          },
        ]
      : []),
    {
      path: '/debug/pprof/heap',
      methods: ['GET'],
      description: 'heap profile, gzipped pprof (allocation samples on Linux)',
      handle: (_req, res) => serveHeapProfile(res, heap),
    },
    {
      path: '/debug/tasks',
      methods: ['GET'],
      description: 'live async work: listeners, connections, requests and their stages',
      handle: (_req, res) => json(res, 200, tasksReport(ctx.tasks)),
    },
    {
      path: '/quitquitquit',
      methods: ['POST'],
      description: 'graceful shutdown: stop accepting, drain in-flight requests, exit',
      handle: (_req, res) => {
        log.warn('shutdown requested through /quitquitquit')
        res.once('finish', () => {
          void ctx.shutdown('quitquitquit')
        })
        text(res, 200, 'OK, shutting down: draining in-flight requests')
      },
    },
    {
      path: '/ui',
      methods: ['GET'],
      description: 'this list, as a page',
      handle: (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        res.end(renderUi(endpoints, ctx.version))
      },
    },
  ]
  const endpoints: AdminEndpoint[] = routes.map(({ path, methods, description }) => ({
    path,
    methods,
    description,
  }))
  const byPath = new Map(routes.map((r) => [r.path, r]))

  let loopback = false
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://admin.invalid')
    const origin = req.headers.origin
    if (origin !== undefined && !sameOrigin(origin, req.headers.host)) {
      text(
        res,
        403,
        `cross-origin request from ${origin} refused: the admin interface is local only`,
      )
      return
    }
    if (loopback && !hostIsLoopback(req.headers.host)) {
      text(
        res,
        403,
        `Host "${req.headers.host}" refused: the admin interface answers loopback names only`,
      )
      return
    }
    if (url.pathname === '/') {
      res.writeHead(302, { location: '/ui' })
      res.end()
      return
    }
    const route = byPath.get(url.pathname)
    if (!route) {
      json(res, 404, {
        error: 'not_found',
        message: `no admin endpoint at ${url.pathname}`,
        endpoints,
      })
      return
    }
    const allowed =
      route.methods.includes('GET') && !route.long ? [...route.methods, 'HEAD'] : route.methods
    if (!allowed.includes(req.method ?? 'GET')) {
      text(
        res,
        405,
        `${req.method} is not allowed on ${route.path}; use ${route.methods.join(' or ')}`,
        {
          allow: allowed.join(', '),
        },
      )
      return
    }
    try {
      await route.handle(req, res, url)
    } catch (err) {
      log.error({ err, path: url.pathname }, 'admin endpoint failed')
      if (!res.headersSent) json(res, 500, { error: 'internal', message: (err as Error).message })
      else res.destroy()
    }
  })
  // Streams (trace, CPU profile) may legitimately stay open for minutes.
  server.requestTimeout = 0
  server.headersTimeout = 10_000

  const bound = await bindAdmin(server, parseAdminAddr(addr))
  // A unix socket has no meaningful Host; a TCP loopback bind answers loopback names only.
  loopback = bound.loopback && !bound.url.startsWith('unix:')
  if (!bound.loopback) {
    log.warn(
      { adminUrl: bound.url, configured: addr },
      `SECURITY WARNING: the admin interface listens on ${bound.url}, which is not loopback. It has no ` +
        'authentication: anyone who can reach this address can shut the proxy down (/quitquitquit), ' +
        'read its configuration (/config_dump) and change its log level. Bind it to 127.0.0.1 or a ' +
        'unix socket unless the network is trusted.',
    )
  }
  try {
    await heap.start()
  } catch (err) {
    log.warn({ err }, 'heap sampling unavailable: /debug/pprof/heap will hold no samples')
  }
  log.info(
    { adminUrl: bound.url, profiling: PROFILING_SUPPORTED },
    `admin interface on ${bound.url}`,
  )

  let closed: Promise<void> | undefined
  return {
    url: bound.url,
    close() {
      closed ??= (async () => {
        closing.abort()
        await heap.stop()
        await bound.close()
      })()
      return closed
    },
  }
}
