/**
 * Per-request telemetry (issue #14): metrics, one access log line and, when enabled, OpenTelemetry
 * spans, all read from the request's trace events. The observer is the request's
 * {@link RequestTrace}: it passes every event on to the `/debug/trace` watcher (when there is one)
 * and keeps what telemetry needs, so the pipeline reports each step once, in one vocabulary.
 *
 * The access log line (module `proxy::access`, level info; silence it with
 * `proxy::access=off`) names the route, status, duration, policy outcome, backend and its latency,
 * the subject (`sub`) of a verified token and the MCP method and tool, prompt or resource. It never
 * holds a token: it is built from chosen fields, never from headers, and pino's redaction runs on
 * it as on every line.
 */
import type { IncomingMessage } from 'node:http'
import type { Logger } from 'pino'
import { compact, type McpSummary, type PolicyOutcome } from './access-log.js'
import type { Metrics } from './metrics.js'
import type { RequestSpans, Tracing } from './otel.js'
import type { RequestTrace, TraceEventType } from './trace-bus.js'

type Data = Record<string, unknown>

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)

/** What an observation reports to (the gatehouse's {@link Telemetry}). */
export interface ObservationSink {
  readonly metrics: Metrics
  readonly tracing: Tracing | undefined
  readonly accessLog: Logger
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
  #policies = 0
  #outcome: PolicyOutcome | undefined
  #authReason: string | undefined
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

  propagation(): Record<string, string> | undefined {
    return this.#spans?.headers()
  }

  event(type: TraceEventType, data: Data = {}): void {
    this.#inner?.event(type, data)
    switch (type) {
      case 'route_selected':
        if (data.matched === false) this.#outcome = 'no_route'
        else this.#onRoute(data)
        break
      case 'policies_applied':
        this.#policies = Array.isArray(data.policies) ? data.policies.length : 0
        break
      case 'cors':
        if (data.preflight === true) this.#outcome = 'preflight'
        else if (data.allowed === false) this.#outcome = 'origin_denied'
        break
      case 'mcp_oauth':
        this.#outcome = 'oauth_endpoint'
        break
      case 'authentication':
        if (data.result === 'ok') {
          this.#subject = str(data.subject)
        } else {
          this.#authReason =
            data.result === 'missing'
              ? 'missing_token'
              : (str(data.check)?.replace(/ /g, '_') ?? 'invalid_token')
        }
        break
      case 'authorization':
        if (data.allowed === false) this.#authReason = 'rules'
        break
      case 'mcp_request':
        this.#onMcpRequest(data)
        break
      case 'mcp_authorization':
        for (const d of Array.isArray(data.decisions) ? (data.decisions as Data[]) : []) {
          if (d.allowed !== false) continue
          this.#denied ??= new Map()
          this.#denied.set(`${str(d.kind)}:${str(d.name)}`, str(d.kind) ?? '')
        }
        break
      case 'rate_limit':
        if (data.admitted === false && Array.isArray(data.limits)) {
          this.#spent = (data.limits as Data[]).filter((l) => l.exceeded).map((l) => String(l.name))
        }
        break
      case 'backend_selected':
        this.#backend = str(data.backend)
        this.#spans?.upstreamStarted(this.#backend ?? '', str(data.address) ?? '')
        break
      case 'backend_response':
        this.#onBackendResponse(data)
        break
      case 'mcp_list_filtered': {
        const kind = str(data.kind) ?? ''
        this.#hidden ??= new Map()
        this.#hidden.set(kind, (this.#hidden.get(kind) ?? 0) + Number(data.hidden ?? 0))
        break
      }
      default:
        break
    }
  }

  #onRoute(data: Data): void {
    this.#route = str(data.route) ?? ''
    const match = data.match as { value?: unknown } | undefined
    this.#spans?.rename(`${this.#method} ${str(match?.value) ?? this.#route}`)
    this.#spans?.annotate({ 'gatehouse.route': this.#route, 'http.route': str(match?.value) ?? '' })
  }

  #onMcpRequest(data: Data): void {
    if (data.error !== undefined) {
      this.#mcpError = String(data.error)
      return
    }
    if (!Array.isArray(data.messages)) return
    this.#mcp = data.messages as McpSummary[]
    const single = this.#mcp.length === 1 ? this.#mcp[0] : undefined
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

  #onBackendResponse(data: Data): void {
    const ms = typeof data.durationMs === 'number' ? data.durationMs : undefined
    const status = typeof data.status === 'number' ? data.status : undefined
    this.#spans?.upstreamEnded(status, str(data.error))
    if (ms === undefined || data.error !== undefined) return
    this.#upstreamMs = ms
    this.#telemetry.metrics.upstreamDuration.observe(
      { route: this.#route, backend: this.#backend ?? '' },
      ms / 1000,
    )
    if (str(data.contentType)?.startsWith('text/event-stream')) {
      this.#stream = true
      this.#telemetry.metrics.openStreams.inc({ gateway: this.#gateway, route: this.#route })
    }
  }

  #outcomeFor(status: number): PolicyOutcome {
    if (this.#outcome) return this.#outcome
    if (this.#authReason !== undefined && (status === 401 || status === 400)) {
      return 'unauthenticated'
    }
    if (this.#authReason === 'rules' && status === 403) return 'forbidden'
    if (this.#mcpError !== undefined) return 'mcp_invalid'
    if (this.#denied) return 'mcp_denied'
    if (this.#spent) return 'rate_limited'
    return this.#policies > 0 ? 'allowed' : 'no_policy'
  }

  finish(data: Data = {}): void {
    this.#inner?.finish(data)
    if (this.#done) return
    this.#done = true
    const status = typeof data.status === 'number' ? data.status : 0
    const seconds = (performance.now() - this.#started) / 1000
    const outcome = this.#outcomeFor(status)
    const m = this.#telemetry.metrics
    const route = this.#route
    m.requests.inc({
      gateway: this.#gateway,
      route,
      method: this.#method,
      status: String(status),
      outcome,
    })
    m.requestDuration.observe({ gateway: this.#gateway, route }, seconds)
    if ((outcome === 'unauthenticated' || outcome === 'forbidden') && this.#authReason) {
      m.authFailures.inc({ route, reason: this.#authReason })
    }
    if (this.#stream) m.openStreams.dec({ gateway: this.#gateway, route })
    this.#recordMcp(outcome)
    this.#spans?.end(status)
    this.#log(status, seconds, outcome)
  }

  #recordMcp(outcome: PolicyOutcome): void {
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

  #log(status: number, seconds: number, outcome: PolicyOutcome): void {
    const log = this.#telemetry.accessLog
    if (!log.isLevelEnabled('info')) return
    const line: Data = {
      gateway: this.#gateway,
      route: this.#route || null,
      method: this.#method,
      path: this.#path,
      status,
      durationMs: Math.round(seconds * 1e6) / 1e3,
      outcome,
      client: this.#client ?? null,
    }
    if (this.#backend) line.backend = this.#backend
    if (this.#upstreamMs !== undefined) line.upstreamMs = Math.round(this.#upstreamMs * 1e3) / 1e3
    if (this.#subject) line.subject = this.#subject
    if (this.#authReason && (outcome === 'unauthenticated' || outcome === 'forbidden')) {
      line.authFailure = this.#authReason
    }
    if (this.#mcp) {
      const [first] = this.#mcp
      line.mcp =
        this.#mcp.length === 1 && first
          ? compact(first)
          : { batch: this.#mcp.length, messages: this.#mcp.map(compact) }
    }
    if (this.#mcpError) line.mcpError = this.#mcpError
    if (this.#denied) line.denied = [...this.#denied.keys()]
    if (this.#spent) line.rateLimited = this.#spent
    if (this.#hidden) line.hidden = Object.fromEntries(this.#hidden)
    if (this.#spans) line.traceId = this.#spans.traceId
    log.info(line, 'request')
  }
}
