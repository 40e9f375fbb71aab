/**
 * Optional OpenTelemetry traces (docs/observability.md) with the OpenTelemetry trace SDK and its OTLP/HTTP
 * exporter, configured by the standard environment variables (`OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_TRACES_EXPORTER`, `OTEL_EXPORTER_OTLP_PROTOCOL`,
 * `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`,
 * `OTEL_TRACES_SAMPLER`, `OTEL_PROPAGATORS`, `OTEL_BSP_*`, `OTEL_SDK_DISABLED`). Off unless one
 * of the first three is set; the SDK is then imported on demand, so a proxy without tracing never
 * loads it (docs/observability.md: the trace SDK and the HTTP exporters instead of `@opentelemetry/sdk-node`,
 * which brought a gRPC stack and the metric and log SDKs for 35 MB).
 *
 * Traces only: metrics are Prometheus at the admin `/metrics`, logs are pino lines. Spans follow
 * the OpenTelemetry HTTP semantic conventions (a SERVER span per request, a CLIENT span per backend
 * request, W3C `traceparent` extracted from the client and injected towards the backend) and the
 * MCP ones (`mcp.method.name`, `gen_ai.tool.name`, `gen_ai.prompt.name`, `mcp.resource.uri`,
 * `jsonrpc.request.id`).
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { Attributes, Context, Span, TextMapPropagator, Tracer } from '@opentelemetry/api'
import { VERSION } from '../version.js'

/** One request's spans. */
export interface RequestSpans {
  /** Adds attributes to the request's span. */
  annotate(attributes: Attributes): void
  /** Renames the request's span (once the route is known: `POST /mcp` → `POST mcp`). */
  rename(name: string): void
  /** Starts the CLIENT span of the backend request. */
  upstreamStarted(backend: string, address: string): void
  /** Ends the CLIENT span. */
  upstreamEnded(status: number | undefined, error: string | undefined): void
  /** Headers carrying the trace context to the backend (`traceparent`, `tracestate`). */
  headers(): Record<string, string>
  /** Ends the request's span with the response status. */
  end(status: number): void
  /** The trace id, for the access log. */
  readonly traceId: string
}

/** Tracing of one gatehouse. */
export interface Tracing {
  start(method: string, path: string, headers: IncomingHttpHeaders): RequestSpans
  /** Flushes and stops the SDK. */
  shutdown(): Promise<void>
}

/** Whether the environment asks for traces. */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false
  const exporters = env.OTEL_TRACES_EXPORTER?.split(',').map((s) => s.trim()) ?? []
  if (exporters.length > 0 && exporters.every((e) => e === 'none' || e === '')) return false
  return (
    exporters.some((e) => e !== '' && e !== 'none') ||
    Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT) ||
    Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
  )
}

/** `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL` values gatehouse exports with (OTLP over HTTP). */
const PROTOCOLS = ['http/protobuf', 'http/json'] as const
/** `OTEL_TRACES_EXPORTER` values gatehouse knows. */
const EXPORTERS = ['otlp', 'console', 'none'] as const
/** `OTEL_PROPAGATORS` values gatehouse knows. */
const PROPAGATORS = ['tracecontext', 'baggage', 'none'] as const

/** What the environment asks of the SDK, checked before anything is loaded. */
interface TracingSettings {
  exporters: Array<(typeof EXPORTERS)[number]>
  protocol: (typeof PROTOCOLS)[number]
  propagators: Array<(typeof PROPAGATORS)[number]>
}

function list(value: string | undefined): string[] {
  return (value ?? '').split(',').flatMap((s) => (s.trim() === '' ? [] : [s.trim()]))
}

function oneOf<T extends string>(name: string, value: string, known: readonly T[]): T {
  if ((known as readonly string[]).includes(value)) return value as T
  throw new Error(
    `${name}=${value} is not supported by gatehouse; use one of ${known.join(', ')} (see docs/observability.md)`,
  )
}

/**
 * Reads the OTEL_* variables the SDK packages do not read themselves.
 * @throws Error naming the variable and the values gatehouse supports (gRPC, Zipkin, B3 … are
 *   not bundled).
 */
export function tracingSettings(env: NodeJS.ProcessEnv): TracingSettings {
  const protocolVar = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL'
  const exporters = list(env.OTEL_TRACES_EXPORTER)
  const propagators = list(env.OTEL_PROPAGATORS)
  return {
    exporters: (exporters.length > 0 ? exporters : ['otlp']).map((e) =>
      oneOf('OTEL_TRACES_EXPORTER', e, EXPORTERS),
    ),
    protocol: oneOf(protocolVar, env[protocolVar]?.trim() || 'http/protobuf', PROTOCOLS),
    propagators: (propagators.length > 0 ? propagators : ['tracecontext', 'baggage']).map((p) =>
      oneOf('OTEL_PROPAGATORS', p, PROPAGATORS),
    ),
  }
}

/**
 * Starts the SDK when the environment asks for traces.
 * @returns the tracing, or `undefined` when it is off.
 * @throws Error when an OTEL_* variable asks for something gatehouse does not bundle.
 */
export async function startTracing(
  env: NodeJS.ProcessEnv = process.env,
): Promise<Tracing | undefined> {
  if (!tracingRequested(env)) return undefined
  const settings = tracingSettings(env)
  const [sdk, resources, core, api] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/core'),
    import('@opentelemetry/api'),
  ])
  const spanProcessors: InstanceType<typeof sdk.BatchSpanProcessor>[] = []
  for (const name of settings.exporters) {
    if (name === 'none') continue
    // Each OTLP exporter reads its endpoint, headers and timeout from the OTEL_* variables.
    const exporter =
      name === 'console'
        ? new sdk.ConsoleSpanExporter()
        : settings.protocol === 'http/json'
          ? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter()
          : new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter()
    spanProcessors.push(new sdk.BatchSpanProcessor(exporter))
  }
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (envDetector) override the default name.
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': 'gatehouse' }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
  // The sampler comes from OTEL_TRACES_SAMPLER (parentbased_always_on by default).
  const provider = new sdk.BasicTracerProvider({ resource, spanProcessors })
  const propagator = new core.CompositePropagator({
    propagators: settings.propagators.flatMap((p) =>
      p === 'tracecontext'
        ? [new core.W3CTraceContextPropagator()]
        : p === 'baggage'
          ? [new core.W3CBaggagePropagator()]
          : [],
    ),
  })
  // The provider and propagator stay local (not registered globally): two gatehouses in one
  // process (the tests) each export with their own.
  const tracer = provider.getTracer('gatehouse', VERSION)
  return {
    start: (method, path, headers) => requestSpans(api, tracer, propagator, method, path, headers),
    shutdown: () => provider.shutdown(),
  }
}

type Api = typeof import('@opentelemetry/api')

function requestSpans(
  api: Api,
  tracer: Tracer,
  propagator: TextMapPropagator,
  method: string,
  path: string,
  headers: IncomingHttpHeaders,
): RequestSpans {
  const parent = propagator.extract(api.ROOT_CONTEXT, headers, api.defaultTextMapGetter)
  const span = tracer.startSpan(
    method,
    {
      kind: api.SpanKind.SERVER,
      attributes: { 'http.request.method': method, 'url.path': path },
    },
    parent,
  )
  const inSpan: Context = api.trace.setSpan(parent, span)
  let upstream: Span | undefined
  let upstreamOpen = false
  return {
    traceId: span.spanContext().traceId,
    annotate: (attributes) => span.setAttributes(attributes),
    rename: (name) => span.updateName(name),
    upstreamStarted(backend, address) {
      const url = safeUrl(address)
      upstream = tracer.startSpan(
        method,
        {
          kind: api.SpanKind.CLIENT,
          attributes: {
            'http.request.method': method,
            'gatehouse.backend': backend,
            ...(url ? { 'server.address': url.hostname, 'server.port': Number(url.port) } : {}),
          },
        },
        inSpan,
      )
      upstreamOpen = true
    },
    upstreamEnded(status, error) {
      if (!upstream || !upstreamOpen) return
      upstreamOpen = false
      if (status !== undefined) upstream.setAttribute('http.response.status_code', status)
      if (error !== undefined || (status !== undefined && status >= 500)) {
        upstream.setStatus({ code: api.SpanStatusCode.ERROR, ...(error ? { message: error } : {}) })
      }
      upstream.end()
    },
    headers() {
      const carrier: Record<string, string> = {}
      propagator.inject(
        upstream ? api.trace.setSpan(parent, upstream) : inSpan,
        carrier,
        api.defaultTextMapSetter,
      )
      return carrier
    },
    end(status) {
      span.setAttribute('http.response.status_code', status)
      // HTTP semconv: a SERVER span is an error for 5xx only; 4xx are the client's.
      if (status >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR })
      if (upstream && upstreamOpen) upstream.end()
      span.end()
    },
  }
}

function safeUrl(address: string): URL | undefined {
  try {
    return new URL(address)
  } catch {
    return undefined
  }
}
