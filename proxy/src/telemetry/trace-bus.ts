/**
 * The request trace bus behind the admin `/debug/trace` stream: a watcher waits for the **next**
 * request the proxy handles and receives that request's events, then its stream ends.
 * When nobody watches, {@link TraceBus.start} returns `undefined` and the hot path pays nothing.
 * Every event's data goes through the shared redaction before any watcher sees it, so no stage
 * can leak a credential into `/debug/trace` by forgetting to redact.
 */
import { type RedactOptions, redactValue } from '@gatehouse/redact'
import type { FinishedRequest, TraceEvent, TraceEventMap, TraceEventType } from './trace-events.js'

export type {
  FinishedRequest,
  TraceEvent,
  TraceEventMap,
  TraceEventType,
} from './trace-events.js'
export { TRACE_EVENT_TYPES } from './trace-events.js'

/** Handle of one request's trace. */
export interface RequestTrace {
  readonly requestId: string
  /**
   * Whether a `/debug/trace` watcher receives the events. Events that only a watcher reads
   * (headers, policy lists) are built only when it does.
   */
  readonly watched: boolean
  /** Records an event. */
  event<K extends TraceEventType>(type: K, data: TraceEventMap[K]): void
  /** Records `request_finished` (with the outcome) and ends every watcher's stream. Idempotent. */
  finish(done: FinishedRequest): void
  /**
   * Headers that carry the request's distributed-trace context to the backend (W3C
   * `traceparent`), when OpenTelemetry records the request (telemetry/otel.ts).
   */
  propagation?(): Record<string, string> | undefined
}

interface Watcher {
  pathPrefix: string | undefined
  push(event: TraceEvent | null): void
}

/** Options of {@link TraceBus.watch}. */
export interface WatchOptions {
  /** Only a request whose path starts with this is traced. */
  pathPrefix?: string
  /** Stops waiting (the iterator ends). */
  signal?: AbortSignal
}

/** Fan-out of request traces to waiting watchers. */
export class TraceBus {
  readonly #waiting = new Set<Watcher>()
  #nextId = 1
  #redaction: RedactOptions = {}

  /**
   * Declares the request headers that carry a credential beyond the built-in rules
   * (`config.redactHeaders`, any case): from now on their values reach no watcher.
   */
  setSecretHeaders(names: Iterable<string>): void {
    this.#redaction = { secretHeaders: new Set([...names].map((n) => n.toLowerCase())) }
  }

  /** Number of watchers waiting for a request. */
  get waiting(): number {
    return this.#waiting.size
  }

  /**
   * Waits for the next matching request and yields its events; ends after `request_finished`
   * or when the signal aborts. Several watchers each get the same next request.
   */
  watch(options: WatchOptions = {}): AsyncIterable<TraceEvent> {
    return traceStream(options.signal, (push) => {
      const watcher: Watcher = { pathPrefix: options.pathPrefix, push }
      this.#waiting.add(watcher)
      return () => this.#waiting.delete(watcher)
    })
  }

  /**
   * Starts tracing a request when somebody waits for one whose path matches.
   * @returns a handle, or `undefined` when nobody is watching.
   */
  start(path: string): RequestTrace | undefined {
    if (this.#waiting.size === 0) return undefined
    const watchers: Watcher[] = []
    for (const w of this.#waiting) {
      if (!w.pathPrefix || path.startsWith(w.pathPrefix)) watchers.push(w)
    }
    if (watchers.length === 0) return undefined
    for (const w of watchers) this.#waiting.delete(w)
    const requestId = `req-${this.#nextId++}`
    const t0 = performance.now()
    let seq = 0
    let done = false
    const redaction = this.#redaction
    const event = <K extends TraceEventType>(type: K, data: TraceEventMap[K]) => {
      if (done) return
      const e = {
        requestId,
        seq: seq++,
        type,
        at: new Date().toISOString(),
        elapsedMs: Math.round((performance.now() - t0) * 1000) / 1000,
        data: redactValue(data, redaction) as TraceEventMap[K],
      } as TraceEvent
      for (const w of watchers) w.push(e)
    }
    return {
      requestId,
      watched: true,
      event,
      finish({ status, durationMs, outcome }) {
        if (done) return
        const failure = 'authFailure' in outcome ? { authFailure: outcome.authFailure } : {}
        event('request_finished', { status, durationMs, outcome: outcome.policy, ...failure })
        done = true
        for (const w of watchers) w.push(null)
      },
    }
  }
}

/**
 * One watcher's stream of trace events. `register` is called first with the watcher's `push`
 * (an event, or `null` to end the stream) and returns the watcher's removal, which runs once: at
 * an abort of `signal` (one that is already aborted too) or when the reader leaves (the stream
 * ended, or it stopped reading), whichever comes first. Shared by {@link TraceBus.watch} and the
 * cluster primary's trace over its workers (admin/cluster.ts).
 */
export function traceStream(
  signal: AbortSignal | undefined,
  register: (push: (event: TraceEvent | null) => void) => () => void,
): AsyncIterable<TraceEvent> {
  const queue: Array<TraceEvent | null> = []
  let wake: (() => void) | undefined
  const push = (e: TraceEvent | null) => {
    queue.push(e)
    wake?.()
  }
  const remove = register(push)
  let ended = false
  const end = () => {
    if (ended) return
    ended = true
    signal?.removeEventListener('abort', onAbort)
    remove()
  }
  const onAbort = () => {
    end()
    push(null)
  }
  signal?.addEventListener('abort', onAbort, { once: true })
  if (signal?.aborted) onAbort()
  return {
    async *[Symbol.asyncIterator]() {
      try {
        for (;;) {
          while (queue.length === 0) await new Promise<void>((r) => (wake = r))
          const e = queue.shift()
          if (e === null || e === undefined) return
          yield e
        }
      } finally {
        end()
      }
    },
  }
}
