/**
 * Prometheus metrics of one gatehouse (docs/observability.md), served as text at `<admin>/metrics`
 * (prom-client, exposition format 0.0.4). Every label takes values from a bounded set: routes,
 * backends and gateways come from the configuration; MCP methods and limit names that clients
 * choose are capped ({@link BoundedLabel}), and tool names keep the real tools apart from invented
 * ones ({@link ToolLabels}), so a client inventing names cannot grow the registry without end.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import {
  type JwksRefreshMessage,
  jwksRefreshChannel,
  type ToolsKnownMessage,
  toolsKnownChannel,
} from './channels.js'
import { OTHER_LABEL, ToolLabels } from './tool-labels.js'

export { OTHER_LABEL, ToolLabels } from './tool-labels.js'

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

/** A counter, gauge or histogram registered in `registry`, with typed label names. */
function metric<L extends string>(registry: Registry, name: string, help: string, labels: L[]) {
  return { name, help, labelNames: labels, registers: [registry] }
}

/** The metrics of one gatehouse. */
export class Metrics {
  readonly registry = new Registry()
  readonly requests = new Counter(
    metric(
      this.registry,
      'gatehouse_requests_total',
      'Requests handled, by gateway, route, method, status and policy outcome.',
      ['gateway', 'route', 'method', 'status', 'outcome'],
    ),
  )
  readonly requestDuration = new Histogram({
    ...metric(
      this.registry,
      'gatehouse_request_duration_seconds',
      'Time from request to the end of the response (a stream: until it closes), by route.',
      ['gateway', 'route'],
    ),
    buckets: LATENCY_BUCKETS,
  })
  readonly authFailures = new Counter(
    metric(
      this.registry,
      'gatehouse_auth_failures_total',
      'Requests refused by authentication (401/400) or route authorization (403), by reason.',
      ['route', 'reason'],
    ),
  )
  readonly jwksRefreshes = new Counter(
    metric(
      this.registry,
      'gatehouse_jwks_refreshes_total',
      'Fetches of a remote JWKS, by issuer and result (success, failure).',
      ['issuer', 'result'],
    ),
  )
  readonly upstreamDuration = new Histogram({
    ...metric(
      this.registry,
      'gatehouse_upstream_duration_seconds',
      'Time from sending a request to a backend to its response headers, by route and backend.',
      ['route', 'backend'],
    ),
    buckets: LATENCY_BUCKETS,
  })
  readonly openStreams = new Gauge(
    metric(
      this.registry,
      'gatehouse_open_streams',
      'Event streams (text/event-stream responses) open now, by gateway and route.',
      ['gateway', 'route'],
    ),
  )
  readonly mcpMessages = new Counter(
    metric(
      this.registry,
      'gatehouse_mcp_messages_total',
      'JSON-RPC messages read from POST /mcp on MCP-aware routes, by route and method.',
      ['route', 'method'],
    ),
  )
  readonly toolCalls = new Counter(
    metric(
      this.registry,
      'gatehouse_mcp_tool_calls_total',
      'tools/call requests by route, tool and outcome (forwarded, denied, rate_limited, refused).',
      ['route', 'tool', 'outcome'],
    ),
  )
  readonly denials = new Counter(
    metric(
      this.registry,
      'gatehouse_mcp_denials_total',
      'Tools, prompts and resources refused by mcpAuthorization, by route and kind.',
      ['route', 'kind'],
    ),
  )
  readonly hiddenItems = new Counter(
    metric(
      this.registry,
      'gatehouse_mcp_list_items_hidden_total',
      'Items removed from tools/list, prompts/list and resources/list results, by route and kind.',
      ['route', 'kind'],
    ),
  )
  readonly rateLimited = new Counter(
    metric(
      this.registry,
      'gatehouse_rate_limited_total',
      'Requests answered 429 by a local rate limit, by route and limit name.',
      ['route', 'limit'],
    ),
  )

  readonly configReloads = new Counter(
    metric(
      this.registry,
      'gatehouse_config_reloads_total',
      'Configuration reloads, by result: success (a new configuration serves), unchanged, failure (the previous one keeps serving).',
      ['result'],
    ),
  )

  /**
   * Tool names as labels: the known ones (policies, tools/list results) by name, at most 100
   * others at a time, aged out after 10 minutes unused, then `__other__` (docs/design/hardening.md).
   */
  readonly tools = new ToolLabels({
    onForget: (tool, series) => {
      for (const key of series) {
        const [route = '', outcome = ''] = key.split('\u0000')
        this.toolCalls.remove({ route, tool, outcome })
      }
    },
  })
  readonly #onTools = (message: unknown) => {
    this.tools.register((message as ToolsKnownMessage).names)
  }
  /** Issuers as labels (configured, but bounded all the same). */
  #issuers: ReadonlySet<string> | undefined
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
    subscribe(toolsKnownChannel.name, this.#onTools)
  }

  /** Counts one `tools/call` (the tool label as {@link tools} gives it). */
  recordToolCall(route: string, tool: string, outcome: string): void {
    const label = this.tools.of(tool, `${route}\u0000${outcome}`)
    this.toolCalls.inc({ route, tool: label, outcome })
  }

  /** The issuers whose JWKS refreshes are counted, after a reload changed the policies. */
  setIssuers(issuers: Iterable<string>): void {
    this.#issuers = new Set(issuers)
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
    unsubscribe(toolsKnownChannel.name, this.#onTools)
  }
}
