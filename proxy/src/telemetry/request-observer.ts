/**
 * Per-request telemetry (docs/observability.md): metrics, one access log line and, when enabled, OpenTelemetry
 * spans. The observer is the request's {@link RequestTrace}: it passes every event on to the
 * `/debug/trace` watcher (when there is one) and keeps the facts telemetry needs from the typed
 * events (route, subject, MCP messages, denials, backend and its latency). How the request ended
 * is not guessed from those: the pipeline hands {@link RequestObservation.finish} its explicit
 * {@link RequestOutcome}, which the metrics, the access line and the trace all read (docs/design/layering.md).
 *
 * The access log line (module `proxy::access`, level info; silence it with `proxy::access=off`) is
 * built by access-log.ts from chosen fields, never from headers; it never holds a token.
 */
import type { IncomingMessage } from 'node:http'
import { accessLine, type ShownText } from './access-log.js'
import type { SafeLines } from './logging.js'
import type { Metrics } from './metrics.js'
import type { RequestSpans, Tracing } from './otel.js'
import type { FinishedRequest, RequestTrace } from './trace-bus.js'
import type { McpSummary, TraceEventMap, TraceEventType } from './trace-events.js'

/** What an observation reports to (the gatehouse's {@link Telemetry}). */
export interface ObservationSink {
  readonly metrics: Metrics
  readonly tracing: Tracing | undefined
  readonly accessLog: SafeLines
  /** Client-chosen strings of access lines, redacted (with a memo shared by every request). */
  readonly shown: ShownText
}

/** One request's trace, recording metrics, spans and its access log line. */
export class RequestObservation implements RequestTrace {
  readonly #inner: RequestTrace | undefined
  readonly #telemetry: ObservationSink
  readonly #started = performance.now()
  readonly #gateway: string
  readonly #method: string
  readonly #path: string
  readonly #client: string | undefined
  readonly #spans: RequestSpans | undefined
  #route = ''
  #subject: string | undefined
  #backend: string | undefined
  #upstreamMs: number | undefined
  #stream = false
  #mcp: McpSummary[] | undefined
  #mcpError: string | undefined
  /** Denied targets (`kind:name` → kind) and hidden list items per kind: made when needed. */
  #denied: Map<string, string> | undefined
  #spent: string[] | undefined
  #hidden: Map<string, number> | undefined
  #done = false

  constructor(
    telemetry: ObservationSink,
    inner: RequestTrace | undefined,
    req: IncomingMessage,
    gateway: string,
    path: string,
  ) {
    this.#telemetry = telemetry
    this.#inner = inner
    this.#gateway = gateway
    this.#method = req.method ?? 'GET'
    this.#path = path
    this.#client = req.socket.remoteAddress
    this.#spans = telemetry.tracing?.start(this.#method, path, req.headers)
  }

  get requestId(): string {
    return this.#inner?.requestId ?? ''
  }

  /** Whether a `/debug/trace` watcher receives this request's events. */
  get watched(): boolean {
    return this.#inner !== undefined
  }

  propagation(): Record<string, string> | undefined {
    return this.#spans?.headers()
  }

  event<K extends TraceEventType>(type: K, data: TraceEventMap[K]): void {
    this.#inner?.event(type, data)
    // A switch on `type` does not narrow `data` of a generic K: narrow the pair once.
    this.#record({ type, data } as RecordedEvent)
  }

  #record(e: RecordedEvent): void {
    switch (e.type) {
      case 'route_selected':
        if ('route' in e.data) this.#onRoute(e.data.route, e.data.match.value)
        break
      case 'authentication':
        if (e.data.result === 'ok') this.#subject = e.data.subject ?? undefined
        break
      case 'mcp_request':
        if ('error' in e.data) this.#mcpError = e.data.error
        else this.#onMcpMessages(e.data.messages)
        break
      case 'mcp_authorization':
        for (const d of e.data.decisions) {
          if (d.allowed) continue
          this.#denied ??= new Map()
          this.#denied.set(`${d.kind}:${d.name}`, d.kind)
        }
        break
      case 'rate_limit':
        if (!e.data.admitted) {
          this.#spent = e.data.limits.filter((l) => l.exceeded).map((l) => l.name)
        }
        break
      case 'backend_selected':
        this.#backend = e.data.backend
        this.#spans?.upstreamStarted(e.data.backend, e.data.address)
        break
      case 'backend_response':
        this.#onBackendResponse(e.data)
        break
      case 'mcp_list_filtered': {
        this.#hidden ??= new Map()
        this.#hidden.set(e.data.kind, (this.#hidden.get(e.data.kind) ?? 0) + e.data.hidden)
        break
      }
      default:
        break
    }
  }

  #onRoute(route: string, matched: string): void {
    this.#route = route
    if (!this.#spans) return
    this.#spans.rename(`${this.#method} ${matched}`)
    this.#spans.annotate({ 'gatehouse.route': route, 'http.route': matched })
  }

  #onMcpMessages(messages: McpSummary[]): void {
    this.#mcp = messages
    const single = messages.length === 1 ? messages[0] : undefined
    if (single && this.#spans) {
      const target = single.tool ?? single.prompt ?? single.resource
      this.#spans.rename(`${single.method}${target ? ` ${target}` : ''}`)
      this.#spans.annotate({
        'mcp.method.name': single.method,
        ...(single.id !== null && single.id !== undefined
          ? { 'jsonrpc.request.id': String(single.id) }
          : {}),
        ...(single.tool ? { 'gen_ai.tool.name': single.tool } : {}),
        ...(single.prompt ? { 'gen_ai.prompt.name': single.prompt } : {}),
        ...(single.resource ? { 'mcp.resource.uri': single.resource } : {}),
      })
    }
  }

  #onBackendResponse(data: TraceEventMap['backend_response']): void {
    this.#spans?.upstreamEnded(data.status, data.error)
    if (data.error !== undefined) return
    this.#upstreamMs = data.durationMs
    const m = this.#telemetry.metrics
    m.upstreamDuration.observe(
      { route: this.#route, backend: this.#backend ?? '' },
      data.durationMs / 1000,
    )
    if (data.contentType?.startsWith('text/event-stream')) {
      this.#stream = true
      m.openStreams.inc({ gateway: this.#gateway, route: this.#route })
    }
  }

  finish(done: FinishedRequest): void {
    this.#inner?.finish(done)
    if (this.#done) return
    this.#done = true
    const { status, outcome } = done
    const seconds = (performance.now() - this.#started) / 1000
    const m = this.#telemetry.metrics
    const route = this.#route
    m.requests.inc({
      gateway: this.#gateway,
      route,
      method: this.#method,
      status: String(status),
      outcome: outcome.policy,
    })
    m.requestDuration.observe({ gateway: this.#gateway, route }, seconds)
    if ('authFailure' in outcome) m.authFailures.inc({ route, reason: outcome.authFailure })
    if (this.#stream) m.openStreams.dec({ gateway: this.#gateway, route })
    this.#recordMcp(outcome.policy)
    this.#spans?.end(status)
    const log = this.#telemetry.accessLog
    if (!log.enabled) return
    const line = accessLine(
      {
        gateway: this.#gateway,
        route,
        method: this.#method,
        path: this.#path,
        status,
        seconds,
        outcome,
        client: this.#client,
        backend: this.#backend,
        upstreamMs: this.#upstreamMs,
        subject: this.#subject,
        mcp: this.#mcp,
        mcpError: this.#mcpError,
        denied: this.#denied?.keys(),
        rateLimited: this.#spent,
        hidden: this.#hidden,
        traceId: this.#spans?.traceId,
      },
      this.#telemetry.shown,
    )
    log.write(line, 'request')
  }

  #recordMcp(outcome: FinishedRequest['outcome']['policy']): void {
    const m = this.#telemetry.metrics
    const route = this.#route
    for (const msg of this.#mcp ?? []) {
      m.mcpMessages.inc({ route, method: m.methodLabel(msg.method) })
      if (msg.method !== 'tools/call' || !msg.tool) continue
      const result = this.#denied?.has(`tool:${msg.tool}`)
        ? 'denied'
        : outcome === 'mcp_denied'
          ? 'refused'
          : outcome === 'rate_limited'
            ? 'rate_limited'
            : 'forwarded'
      m.recordToolCall(route, msg.tool, result)
    }
    for (const kind of this.#denied?.values() ?? []) m.denials.inc({ route, kind })
    for (const [kind, n] of this.#hidden ?? []) m.hiddenItems.inc({ route, kind }, n)
    for (const limit of this.#spent ?? []) m.rateLimited.inc({ route, limit })
  }
}

/** A recorded event: the type with its own data shape. */
type RecordedEvent = { [K in TraceEventType]: { type: K; data: TraceEventMap[K] } }[TraceEventType]
