/**
 * `GET /debug/trace`: a JSON-over-SSE trace of the **next** request the proxy handles (seed,
 * Admin interface table). Frames are `event: <type>\ndata: <json>\n\n` with types from
 * `TRACE_EVENT_TYPES`; `: keep-alive` comments flow while waiting so proxies and clients do not
 * time the stream out; the stream ends after `request_finished`. With `?follow=1` (the admin UI's
 * timeline) it traces every request from then on instead, one after another and side by side,
 * their events told apart by `requestId`, until the client goes away.
 */
import type { ServerResponse } from 'node:http'
import { ERRORS } from '../errors.js'
import { type TraceBus, type TraceEvent, traceStream } from '../telemetry/trace-bus.js'

/** Options of {@link serveTrace}. */
export interface TraceOptions {
  /** Interval of `: keep-alive` comments while waiting. Default 15 000 ms. */
  keepAliveMs?: number
}

/** Serves one watcher; `?path=` restricts the traced request to a path prefix. */
export async function serveTrace(
  bus: Pick<TraceBus, 'watch'>,
  res: ServerResponse,
  url: URL,
  options: TraceOptions = {},
): Promise<void> {
  const pathPrefix = url.searchParams.get('path') ?? undefined
  if (pathPrefix !== undefined && !pathPrefix.startsWith('/')) {
    res.writeHead(ERRORS.GW_ERR_ADMIN_PARAMETER.status, {
      'content-type': 'text/plain; charset=utf-8',
    })
    res.end(`path must start with "/", got "${pathPrefix}"\n`)
    return
  }
  const abort = new AbortController()
  // The watcher stops waiting when the client goes away, so an abandoned watch does not keep
  // tracing requests nobody reads.
  res.on('close', () => abort.abort())
  const watch = { ...(pathPrefix ? { pathPrefix } : {}), signal: abort.signal }
  const events = url.searchParams.has('follow') ? follow(bus, watch) : bus.watch(watch)

  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
  })
  res.flushHeaders()
  res.write(': waiting for the next request\n\n')
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), options.keepAliveMs ?? 15_000)
  try {
    for await (const e of events) {
      res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`)
    }
  } finally {
    clearInterval(keepAlive)
    if (!res.writableEnded) res.end()
  }
}

/**
 * Every request from now on: a watcher waits for the next request, and as soon as that request's
 * first event arrives the next watcher starts waiting, so requests that overlap are traced too.
 * Ends when `signal` aborts.
 */
export function follow(
  bus: Pick<TraceBus, 'watch'>,
  options: { pathPrefix?: string; signal: AbortSignal },
): AsyncIterable<TraceEvent> {
  return traceStream(options.signal, (push) => {
    let stopped = false
    const next = (): void => {
      if (stopped || options.signal.aborted) return
      let started = false
      void (async () => {
        for await (const e of bus.watch(options)) {
          if (!started) {
            started = true
            next()
          }
          push(e)
        }
      })()
    }
    next()
    return () => {
      stopped = true
    }
  })
}
