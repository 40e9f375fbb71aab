/**
 * The local admin interface (seed: Admin interface table; Authentication point 5): config dump,
 * request trace, log level, memory, CPU and heap profiles, task tree and graceful shutdown.
 *
 * It has no authentication by design and is protected by where it binds: loopback or a unix
 * socket only the owner may open. Binding elsewhere works but is announced with a warning. The
 * application (routes, guard, error answers) is `./app.ts`; this module binds and runs it.
 */
import { bindAdmin, parseAdminAddr } from './address.js'
import { buildAdminApp } from './app.js'
import type { AdminContext } from './context.js'
import { HeapProfiling, PROFILING_SUPPORTED } from './profile-endpoints.js'

export type { AdminEndpoint } from './routes.js'

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
  const heap = new HeapProfiling()
  const closing = new AbortController()
  let loopbackOnly = false
  const { app } = buildAdminApp(
    ctx,
    {
      heap,
      closing: closing.signal,
      profiling: { running: false },
      traceKeepAliveMs: options.traceKeepAliveMs,
      onLogFilterChange: (from, to) => log.warn({ from, to }, `log filter changed to ${to}`),
      onShutdownRequested: () => log.warn('shutdown requested through /quitquitquit'),
      onHeapSamplingStarted: () =>
        log.info(
          'heap sampling started by GET /debug/pprof/heap: later heap profiles hold samples',
        ),
    },
    { loopbackOnly: () => loopbackOnly },
  )
  await app.ready()
  const bound = await bindAdmin(app.server, parseAdminAddr(addr))
  // A unix socket has no meaningful Host; a TCP loopback bind answers loopback names only.
  loopbackOnly = bound.loopback && !bound.url.startsWith('unix:')
  if (!bound.loopback) {
    log.warn(
      { adminUrl: bound.url, configured: addr },
      `SECURITY WARNING: the admin interface listens on ${bound.url}, which is not loopback. It has no ` +
        'authentication: anyone who can reach this address can shut the proxy down (/quitquitquit), ' +
        'read its configuration (/config_dump) and change its log level. Bind it to 127.0.0.1 or a ' +
        'unix socket unless the network is trusted.',
    )
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
