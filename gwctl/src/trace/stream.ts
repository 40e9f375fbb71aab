/**
 * Consumes the admin `/debug/trace` stream: waits for the next request the proxy handles and
 * yields its events, ending after `request_finished` (contracts.md, section Admin).
 */
import type { AdminClient } from '../admin-client.js'
import { unexpectedStatus } from '../admin-client.js'
import { GwctlError } from '../errors.js'
import { FINAL_EVENT, parseTraceEvent, type TraceEvent } from './events.js'
import { readSse } from './sse.js'

/** Options of {@link traceNextRequest}. */
export interface TraceOptions {
  /** Only a request whose path starts with this is traced (`?path=`). */
  pathPrefix?: string
  /** Stops waiting; the iterator then ends without an error. */
  signal?: AbortSignal
  /**
   * Called once the stream is open: from then on the proxy traces the next matching request,
   * so a caller may send one.
   */
  onOpen?: () => void
}

/**
 * Yields the events of the next matching request.
 * @throws GwctlError GWCTL_ERR_ADMIN_UNREACHABLE / GWCTL_ERR_ADMIN_RESPONSE when the stream
 * cannot be opened; GWCTL_ERR_TRACE_INCOMPLETE when it ends before `request_finished`.
 */
export async function* traceNextRequest(
  client: AdminClient,
  options: TraceOptions = {},
): AsyncGenerator<TraceEvent> {
  const path = '/debug/trace'
  let res: Awaited<ReturnType<AdminClient['request']>>
  try {
    res = await client.request(path, {
      query: { path: options.pathPrefix },
      ...(options.signal ? { signal: options.signal } : {}),
    })
  } catch (err) {
    if (options.signal?.aborted) return
    throw err
  }
  if (res.status !== 200) throw await unexpectedStatus(client.address, path, res)
  options.onOpen?.()
  let finished = false
  try {
    for await (const msg of readSse(res.body)) {
      let event: TraceEvent
      try {
        event = parseTraceEvent(msg.event, msg.data)
      } catch (err) {
        throw new GwctlError(
          'GWCTL_ERR_ADMIN_RESPONSE',
          `the admin interface sent a trace frame that is not JSON: ${msg.data.slice(0, 200)}`,
          { cause: err },
        )
      }
      yield event
      if (event.type === FINAL_EVENT) {
        finished = true
        return
      }
    }
  } catch (err) {
    if (options.signal?.aborted) return
    if (err instanceof GwctlError) throw err
    throw new GwctlError(
      'GWCTL_ERR_TRACE_INCOMPLETE',
      `the trace stream from the admin interface broke: ${(err as Error).message}`,
      { cause: err },
    )
  }
  if (!finished && !options.signal?.aborted) {
    throw new GwctlError(
      'GWCTL_ERR_TRACE_INCOMPLETE',
      'the trace stream ended before the request finished (did gatehouse stop?)',
    )
  }
}
