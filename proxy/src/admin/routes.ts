/**
 * The admin endpoints (seed: Admin interface table), one entry each: path, methods, what it is
 * for (shown by `/ui` and by a 404) and the Fastify handler. Streams and timed profiles take the
 * raw response over (`reply.hijack()`); everything else answers through the reply helpers.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import {
  ClusterTrace,
  clusterConfigDump,
  clusterMetrics,
  clusterSetLogFilter,
  clusterTasks,
} from './cluster.js'
import { buildConfigDump } from './config-dump.js'
import type { AdminContext } from './context.js'
import { clusterReadiness, readiness } from './health.js'
import { setLogFilter } from './logging.js'
import { memoryReport } from './memory.js'
import { serveMetrics } from './metrics.js'
import {
  type HeapProfiling,
  PROFILING_SUPPORTED,
  serveCpuProfile,
  serveHeapProfile,
} from './profile-endpoints.js'
import { serveReload } from './reload.js'
import { requestUrl, sendJson, sendText } from './reply.js'
import { tasksReport } from './tasks.js'
import { serveTrace } from './trace.js'
import { uiRoutes } from './ui/admin-routes.js'

/** One admin endpoint, as listed by `/ui` and by the 404 answer. */
export interface AdminEndpoint {
  path: string
  methods: readonly string[]
  description: string
}

/** An endpoint with its handler. */
export interface AdminRoute extends AdminEndpoint {
  handle(request: FastifyRequest, reply: FastifyReply): unknown
  /** Long-running (a stream, a timed profile): no implicit HEAD, which would start one. */
  long?: true
  /**
   * A page any site may send the browser to (the UI's OAuth callback): the browser guard judges
   * only its authority, not the site that sent the browser.
   */
  crossSite?: true
}

/** What the handlers share beyond the context. */
export interface AdminRouteState {
  /** The heap profiler, started by the first `/debug/pprof/heap`. */
  heap: HeapProfiling
  /** Hears the first heap profile request start the sampling. */
  onHeapSamplingStarted?(): void
  /** Aborted when the admin server closes (ends a running CPU profile). */
  closing: AbortSignal
  /** One CPU profile at a time. */
  profiling: { running: boolean }
  /** Interval of `: keep-alive` comments on `/debug/trace`. */
  traceKeepAliveMs?: number | undefined
  /** Hears every change of the log filter. */
  onLogFilterChange(from: string, to: string): void
  /** Hears a shutdown request before it starts. */
  onShutdownRequested(): void
}

/** The endpoint table. */
export function adminRoutes(ctx: AdminContext, state: AdminRouteState): AdminRoute[] {
  // The primary of several workers answers for them (./cluster.ts).
  const cluster = ctx.cluster
  const traces = cluster ? new ClusterTrace(cluster) : ctx.traceBus
  const routes: AdminRoute[] = [
    {
      path: '/ready',
      methods: ['GET'],
      description:
        'readiness: 200 once every gateway listens and every policy has its keys, else 503 with the reasons',
      handle: async (_request, reply) => {
        const answer = cluster ? await clusterReadiness(ctx, cluster) : readiness(ctx)
        return sendJson(reply, answer.ready ? 200 : 503, answer)
      },
    },
    {
      path: '/healthz',
      methods: ['GET'],
      description: 'liveness: 200 while the process runs and answers',
      handle: (_request, reply) => sendText(reply, 200, 'ok'),
    },
    {
      path: '/config_dump',
      methods: ['GET'],
      description:
        'runtime configuration: binds, listeners, routes, backends, policies with status',
      handle: async (_request, reply) =>
        sendJson(
          reply,
          200,
          cluster ? await clusterConfigDump(ctx, cluster) : buildConfigDump(ctx),
        ),
    },
    {
      path: '/debug/trace',
      methods: ['GET'],
      description:
        'SSE trace of the next request (?path=/prefix filters; ?follow=1: every request from then on)',
      long: true,
      handle: (request, reply) => {
        reply.hijack()
        return serveTrace(traces, reply.raw, requestUrl(request), {
          ...(state.traceKeepAliveMs ? { keepAliveMs: state.traceKeepAliveMs } : {}),
        })
      },
    },
    {
      path: '/logging',
      methods: ['GET', 'POST'],
      description: 'GET the log filter; POST ?level=info,proxy::httpproxy=trace sets it',
      handle: async (request, reply) => {
        const level = requestUrl(request).searchParams.get('level')
        const answer =
          request.method !== 'POST'
            ? { status: 200, text: `current log level is ${ctx.logging.filter()}` }
            : cluster
              ? await clusterSetLogFilter(ctx, cluster, level, state.onLogFilterChange)
              : setLogFilter(ctx.logging, level, { onChange: state.onLogFilterChange })
        return sendText(reply, answer.status, answer.text)
      },
    },
    {
      path: '/metrics',
      methods: ['GET'],
      description:
        'Prometheus metrics: requests, auth failures, JWKS refreshes, upstream latency, streams, MCP tool calls',
      handle: (_request, reply) =>
        serveMetrics(reply, cluster ? { render: () => clusterMetrics(cluster) } : ctx.metrics),
    },
    {
      path: '/memory',
      methods: ['GET'],
      description: 'process and V8 heap statistics',
      handle: (_request, reply) => sendJson(reply, 200, memoryReport()),
    },
    {
      path: '/debug/pprof/heap',
      methods: ['GET'],
      description:
        'heap profile, gzipped pprof (allocation samples on Linux, from the first request on)',
      handle: (_request, reply) => serveHeapProfile(reply, state.heap, state.onHeapSamplingStarted),
    },
    {
      path: '/debug/tasks',
      methods: ['GET'],
      description: 'live async work: listeners, connections, requests and their stages',
      handle: async (_request, reply) =>
        sendJson(reply, 200, cluster ? await clusterTasks(cluster) : tasksReport(ctx.tasks)),
    },
    {
      path: '/quitquitquit',
      methods: ['POST'],
      description: 'graceful shutdown: stop accepting, drain in-flight requests, exit',
      handle: (_request, reply) => {
        state.onShutdownRequested()
        // Shut down once the answer is out, so the caller hears that it worked.
        reply.raw.once('finish', () => void ctx.shutdown('quitquitquit'))
        return sendText(reply, 200, 'OK, shutting down: draining in-flight requests')
      },
    },
    {
      path: '/reload',
      methods: ['POST'],
      description:
        'reload the configuration files: validated and compiled before they replace the running configuration',
      handle: (_request, reply) => serveReload(ctx, reply),
    },
    // The web UI (./ui/): its page, files, and the OAuth flow debugger's callback and relay.
    ...uiRoutes(ctx),
  ]
  if (PROFILING_SUPPORTED) {
    // Seed: "On non-Linux builds the endpoint is not registered: 404".
    routes.splice(6, 0, {
      path: '/debug/pprof/profile',
      methods: ['GET'],
      long: true,
      description:
        'CPU profile, gzipped pprof (?seconds=1-300, default 10; ?frequency=1-1000 Hz, default 100)',
      handle: (request, reply) =>
        serveCpuProfile(request, reply, { state: state.profiling, closing: state.closing }),
    })
  }
  return routes
}
