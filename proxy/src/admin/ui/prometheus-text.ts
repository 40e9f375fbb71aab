/**
 * Reads the Prometheus text exposition format (the body of `/metrics`) into samples, and sums the
 * few series the admin UI charts: requests, errors and request latency. Shared by the page (which
 * reads the admin `/metrics`) and the read-only gateway view (which serves only this summary, so
 * no label that carries a configuration value, such as an issuer, leaves the proxy there).
 */

/** One sample line: `name{label="value",...} value`. */
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

/** What the UI's charts plot, at one moment. */
export interface MetricsSummary {
  /** `gatehouse_requests_total`, all series. */
  requests: number
  /** Of those, answered with a status of 400 or more. */
  errors: number
  /** By status class (`2xx`, `4xx`, ...). */
  byClass: Record<string, number>
  /** `gatehouse_request_duration_seconds` buckets summed over series: upper bound → count. */
  latencyBuckets: Array<[number, number]>
  /** `gatehouse_request_duration_seconds_sum`, all series. */
  latencySum: number
  /** `gatehouse_request_duration_seconds_count`, all series. */
  latencyCount: number
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** Undoes the exposition format's escapes of a label value (`\\`, `\"`, `\n`). */
function unescapeLabel(value: string): string {
  return value.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c))
}

/** Parses the samples; comments, blank and unreadable lines are skipped. */
export function parsePrometheusText(text: string): Sample[] {
  const samples: Sample[] = []
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    const m = LINE.exec(line)
    if (!m) continue
    const value = Number(m[3] === '+Inf' ? Number.POSITIVE_INFINITY : m[3])
    if (Number.isNaN(value)) continue
    const labels: Record<string, string> = {}
    for (const l of (m[2] ?? '').matchAll(LABEL))
      labels[l[1] as string] = unescapeLabel(l[2] as string)
    samples.push({ name: m[1] as string, labels, value })
  }
  return samples
}

/** Sums the series the charts read. */
export function summarizeMetrics(samples: readonly Sample[]): MetricsSummary {
  const summary: MetricsSummary = {
    requests: 0,
    errors: 0,
    byClass: {},
    latencyBuckets: [],
    latencySum: 0,
    latencyCount: 0,
  }
  const buckets = new Map<number, number>()
  for (const s of samples) {
    if (s.name === 'gatehouse_requests_total') {
      summary.requests += s.value
      const status = Number(s.labels.status)
      const cls = Number.isFinite(status) ? `${Math.floor(status / 100)}xx` : 'other'
      summary.byClass[cls] = (summary.byClass[cls] ?? 0) + s.value
      if (status >= 400) summary.errors += s.value
    } else if (s.name === 'gatehouse_request_duration_seconds_bucket') {
      const le = s.labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(s.labels.le)
      if (!Number.isNaN(le)) buckets.set(le, (buckets.get(le) ?? 0) + s.value)
    } else if (s.name === 'gatehouse_request_duration_seconds_sum') {
      summary.latencySum += s.value
    } else if (s.name === 'gatehouse_request_duration_seconds_count') {
      summary.latencyCount += s.value
    }
  }
  summary.latencyBuckets = [...buckets].sort((a, b) => a[0] - b[0])
  return summary
}

/**
 * The `q` quantile (0..1) of the requests between two summaries, from the cumulative histogram
 * buckets (the bucket's upper bound, as Prometheus' `histogram_quantile` does without
 * interpolation); `undefined` when no request finished in between.
 */
export function latencyQuantile(
  before: MetricsSummary | undefined,
  now: MetricsSummary,
  q: number,
): number | undefined {
  const prior = new Map(before?.latencyBuckets ?? [])
  const deltas = now.latencyBuckets.map(([le, n]) => [le, n - (prior.get(le) ?? 0)] as const)
  const total = deltas.at(-1)?.[1] ?? 0
  if (total <= 0) return undefined
  const rank = q * total
  for (const [le, n] of deltas) if (n >= rank) return Number.isFinite(le) ? le : undefined
  return undefined
}
