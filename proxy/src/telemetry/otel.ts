/**
 * Optional OpenTelemetry traces (issue #14) with the standard Node SDK, configured by the standard
 * environment variables (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`,
 * `OTEL_TRACES_EXPORTER`, `OTEL_EXPORTER_OTLP_PROTOCOL`, `OTEL_SERVICE_NAME`,
 * `OTEL_TRACES_SAMPLER`, `OTEL_PROPAGATORS`, `OTEL_SDK_DISABLED`, …). Off unless one of the first
 * three is set; the SDK is then loaded on demand, so a proxy without tracing never loads it.
 *
 * Traces only: the SDK's metric and log exporters are not started (metrics are Prometheus at the
 * admin `/metrics`, logs are pino lines). Spans follow the OpenTelemetry HTTP semantic conventions
 * (a SERVER span per request, a CLIENT span per backend request, W3C `traceparent` extracted from
 * the client and injected towards the backend) and the MCP ones (`mcp.method.name`,
 * `gen_ai.tool.name`, `gen_ai.prompt.name`, `mcp.resource.uri`, `jsonrpc.request.id`).
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api'
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

/**
 * Starts the SDK when the environment asks for traces.
 * @returns the tracing, or `undefined` when it is off.
 */
export async function startTracing(
  env: NodeJS.ProcessEnv = process.env,
): Promise<Tracing | undefined> {
  if (!tracingRequested(env)) return undefined
  const [{ NodeSDK }, api] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/api'),
  ])
  const sdk = new NodeSDK({
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName: 'gatehouse' }),
    instrumentations: [],
    metricReaders: [],
    logRecordProcessors: [],
  })
  sdk.start()
  const tracer = api.trace.getTracer('gatehouse', VERSION)
  return {
    start: (method, path, headers) => requestSpans(api, tracer, method, path, headers),
    shutdown: () => sdk.shutdown(),
  }
}

type Api = typeof import('@opentelemetry/api')

function requestSpans(
  api: Api,
  tracer: Tracer,
  method: string,
  path: string,
  headers: IncomingHttpHeaders,
): RequestSpans {
  const parent = api.propagation.extract(api.ROOT_CONTEXT, headers)
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
      api.propagation.inject(upstream ? api.trace.setSpan(parent, upstream) : inSpan, carrier)
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
