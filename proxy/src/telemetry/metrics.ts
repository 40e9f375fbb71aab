/**
 * Prometheus metrics of one gatehouse (issue #14), served as text at `<admin>/metrics`
 * (prom-client, exposition format 0.0.4). Every label takes values from a bounded set: routes,
 * backends and gateways come from the configuration; MCP methods, tool names and limit names that
 * clients choose are capped ({@link BoundedLabel}), so a client inventing names cannot grow the
 * registry without end.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import { type JwksRefreshMessage, jwksRefreshChannel } from './channels.js'

/** Label value for everything past a {@link BoundedLabel}'s limit. */
export const OTHER_LABEL = '__other__'

/** A label fed by client input: its first `max` distinct values, then {@link OTHER_LABEL}. */
export class BoundedLabel {
  readonly #seen = new Set<string>()
  readonly #max: number
  constructor(max: number) {
    this.#max = max
  }
  /** The label value to record for `value`. */
  of(value: string): string {
    if (this.#seen.has(value)) return value
    if (this.#seen.size >= this.#max) return OTHER_LABEL
    this.#seen.add(value)
    return value
  }
}

/** The MCP methods (2025-06-18 and the 2026-07-28 draft) recorded by name; others are `other`. */
const MCP_METHODS = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'completion/complete',
  'logging/setLevel',
  'subscriptions/listen',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
  'tasks/get',
  'tasks/result',
  'tasks/list',
  'tasks/cancel',
])

/** Seconds, for latencies from sub-millisecond (a local answer) to a long tool call. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

/** The metrics of one gatehouse. */
export class Metrics {
  readonly registry = new Registry()
  readonly requests = new Counter({
    name: 'gatehouse_requests_total',
    help: 'Requests handled, by gateway, route, method, status and policy outcome.',
    labelNames: ['gateway', 'route', 'method', 'status', 'outcome'] as const,
    registers: [this.registry],
  })
  readonly requestDuration = new Histogram({
    name: 'gatehouse_request_duration_seconds',
    help: 'Time from request to the end of the response (a stream: until it closes), by route.',
    labelNames: ['gateway', 'route'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  })
  readonly authFailures = new Counter({
    name: 'gatehouse_auth_failures_total',
    help: 'Requests refused by authentication (401/400) or route authorization (403), by reason.',
    labelNames: ['route', 'reason'] as const,
    registers: [this.registry],
  })
  readonly jwksRefreshes = new Counter({
    name: 'gatehouse_jwks_refreshes_total',
    help: 'Fetches of a remote JWKS, by issuer and result (success, failure).',
    labelNames: ['issuer', 'result'] as const,
    registers: [this.registry],
  })
  readonly upstreamDuration = new Histogram({
    name: 'gatehouse_upstream_duration_seconds',
    help: 'Time from sending a request to a backend to its response headers, by route and backend.',
    labelNames: ['route', 'backend'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  })
  readonly openStreams = new Gauge({
    name: 'gatehouse_open_streams',
    help: 'Event streams (text/event-stream responses) open now, by gateway and route.',
    labelNames: ['gateway', 'route'] as const,
    registers: [this.registry],
  })
  readonly mcpMessages = new Counter({
    name: 'gatehouse_mcp_messages_total',
    help: 'JSON-RPC messages read from POST /mcp on MCP-aware routes, by route and method.',
    labelNames: ['route', 'method'] as const,
    registers: [this.registry],
  })
  readonly toolCalls = new Counter({
    name: 'gatehouse_mcp_tool_calls_total',
    help: 'tools/call requests by route, tool and outcome (forwarded, denied, rate_limited, refused).',
    labelNames: ['route', 'tool', 'outcome'] as const,
    registers: [this.registry],
  })
  readonly denials = new Counter({
    name: 'gatehouse_mcp_denials_total',
    help: 'Tools, prompts and resources refused by mcpAuthorization, by route and kind.',
    labelNames: ['route', 'kind'] as const,
    registers: [this.registry],
  })
  readonly hiddenItems = new Counter({
    name: 'gatehouse_mcp_list_items_hidden_total',
    help: 'Items removed from tools/list, prompts/list and resources/list results, by route and kind.',
    labelNames: ['route', 'kind'] as const,
    registers: [this.registry],
  })
  readonly rateLimited = new Counter({
    name: 'gatehouse_rate_limited_total',
    help: 'Requests answered 429 by a local rate limit, by route and limit name.',
    labelNames: ['route', 'limit'] as const,
    registers: [this.registry],
  })

  /** Tool names as labels: at most 200 distinct per process. */
  readonly tools = new BoundedLabel(200)
  /** Issuers as labels (configured, but bounded all the same). */
  readonly #issuers: ReadonlySet<string> | undefined
  readonly #onJwks = (message: unknown) => {
    const m = message as JwksRefreshMessage
    if (this.#issuers && !this.#issuers.has(m.issuer)) return
    this.jwksRefreshes.inc({ issuer: m.issuer, result: m.ok ? 'success' : 'failure' })
  }

  /**
   * @param options.issuers - the issuers of this proxy's policies: JWKS refreshes of others (another
   * gatehouse in the same process, as in tests) are not counted. Default: all.
   * @param options.defaultMetrics - also collect the process metrics (CPU, memory, event loop lag,
   * GC). Default true.
   */
  constructor(options: { issuers?: Iterable<string>; defaultMetrics?: boolean } = {}) {
    this.#issuers = options.issuers ? new Set(options.issuers) : undefined
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry })
    subscribe(jwksRefreshChannel.name, this.#onJwks)
  }

  /** An MCP method as a label: known methods by name, anything else `other`. */
  methodLabel(method: string): string {
    if (method === '') return 'response'
    return MCP_METHODS.has(method) ? method : 'other'
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() }
  }

  /** Stops listening to the diagnostics channels. */
  close(): void {
    unsubscribe(jwksRefreshChannel.name, this.#onJwks)
  }
}
