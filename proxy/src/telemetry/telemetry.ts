/**
 * Telemetry of one gatehouse (docs/observability.md): the Prometheus metrics, the access log and, when the
 * OTEL_* environment asks for it, OpenTelemetry tracing. Every request reports to it through a
 * {@link RequestObservation}.
 */
import type { IncomingMessage } from 'node:http'
import { ShownText } from './access-log.js'
import type { Logging, SafeLines } from './logging.js'
import type { Metrics } from './metrics.js'
import type { Tracing } from './otel.js'
import { type ObservationSink, RequestObservation } from './request-observer.js'
import type { RequestTrace } from './trace-bus.js'

/** Telemetry of one gatehouse: what every request reports to. */
export class Telemetry implements ObservationSink {
  readonly metrics: Metrics
  readonly tracing: Tracing | undefined
  readonly accessLog: SafeLines
  readonly shown = new ShownText()

  constructor(options: { metrics: Metrics; logging: Logging; tracing?: Tracing | undefined }) {
    this.metrics = options.metrics
    this.tracing = options.tracing
    this.accessLog = options.logging.safeLines('proxy::access')
  }

  /**
   * The trace of a request: records telemetry and passes events on to `inner`, the `/debug/trace`
   * watcher's trace when somebody watches.
   */
  observe(inner: RequestTrace | undefined, req: IncomingMessage, gateway: string, path: string) {
    return new RequestObservation(this, inner, req, gateway, path)
  }

  /** Stops the tracing SDK (flushing spans) and the metrics' subscriptions. */
  async close(): Promise<void> {
    this.metrics.close()
    await this.tracing?.shutdown()
  }
}
