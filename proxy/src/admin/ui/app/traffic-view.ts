/**
 * The traffic page: the live trace as a timeline (`/debug/trace?follow=1` on the admin address,
 * `<ui.path>/trace` on a gateway when `ui.showTrace` allows it), filterable by path, status, user
 * and tool, and small charts of the request rate, error rate and latency from `/metrics` (on a
 * gateway: the summed `metrics.json`), polled every two seconds.
 */
import { TRACE_EVENT_TYPES, type TraceEvent } from '../../../telemetry/trace-events.js'
import {
  latencyQuantile,
  type MetricsSummary,
  parsePrometheusText,
  summarizeMetrics,
} from '../prometheus-text.js'
import { call, getJson, type PageInfo } from './api.js'
import { chart, h, render } from './dom.js'
import { Timeline, type TimelineFilter, type TimelineRow } from './timeline.js'

/** Metrics samples kept for the charts (two seconds apart: two minutes). */
const WINDOW = 60
const POLL_MS = 2_000

/** Starts the page in `root`; returns its stop. */
export function startTraffic(root: HTMLElement, page: PageInfo): () => void {
  const timeline = new Timeline()
  const filter: TimelineFilter = {}
  const field = (key: keyof TimelineFilter, label: string, hint: string) => {
    const id = `filter-${key}`
    return h(
      'div',
      { class: 'field' },
      h('label', { for: id }, label),
      h('input', {
        id,
        type: 'search',
        placeholder: hint,
        autocomplete: 'off',
        oninput: (e: Event) => {
          filter[key] = (e.target as HTMLInputElement).value
          draw()
        },
      }),
    )
  }
  const charts = h('div', { class: 'charts', id: 'charts', 'aria-live': 'off' })
  const state = h('p', { id: 'trace-state', role: 'status' }, 'Connecting to the trace…')
  const rows = h('tbody', {})
  const traceOffered = page.mode === 'admin' || page.trace
  render(
    root,
    h('h2', {}, 'Requests, errors and latency'),
    charts,
    h('h2', {}, 'Timeline'),
    traceOffered
      ? [
          h(
            'form',
            { class: 'filters', role: 'search', onsubmit: (e: Event) => e.preventDefault() },
            field('path', 'Path', '/mcp'),
            field('status', 'Status', '403 or 4xx'),
            field('user', 'User (sub)', 'alice'),
            field('tool', 'Tool', 'echo'),
          ),
          state,
          h(
            'div',
            { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'Request timeline' },
            h(
              'table',
              { id: 'timeline' },
              h('caption', {}, 'Requests, newest first (credentials redacted)'),
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  ...[
                    'Time',
                    'Request',
                    'Route',
                    'Auth decision',
                    'MCP',
                    'Backend',
                    'Status',
                    'Duration',
                  ].map((c) => h('th', { scope: 'col' }, c)),
                ),
              ),
              rows,
            ),
          ),
        ]
      : h(
          'p',
          {},
          'The request trace is not shown on this gateway (ui.showTrace is off); it is on the admin address.',
        ),
  )
  const row = (r: TimelineRow) =>
    h(
      'tr',
      { 'data-request-id': r.requestId, class: r.status && r.status >= 400 ? 'failed' : '' },
      h('td', {}, h('time', { datetime: r.at }, new Date(r.at).toLocaleTimeString())),
      h('td', {}, h('code', {}, `${r.method} ${r.path}`)),
      h('td', {}, r.route ?? ''),
      h('td', { class: 'auth' }, r.auth ?? (r.outcome ? r.outcome : '')),
      h('td', {}, [r.mcp, r.tool ? ` (${r.tool})` : ''].filter(Boolean).join('')),
      h(
        'td',
        {},
        r.backend
          ? `${r.backend}${r.upstreamMs !== undefined ? ` ${r.upstreamMs.toFixed(1)} ms` : ''}`
          : '',
      ),
      h('td', { class: 'status' }, r.status ?? '…'),
      h('td', {}, r.durationMs !== undefined ? `${r.durationMs.toFixed(1)} ms` : ''),
    )
  const draw = () => render(rows, ...timeline.rows(filter).map(row))

  let source: EventSource | undefined
  if (traceOffered) {
    source = new EventSource(page.mode === 'admin' ? '/debug/trace?follow=1' : `${page.base}/trace`)
    source.onopen = () => {
      state.textContent = 'Following every request (live).'
    }
    source.onerror = () => {
      state.textContent = 'The trace stream was interrupted; reconnecting…'
    }
    for (const type of TRACE_EVENT_TYPES) {
      source.addEventListener(type, (m) => {
        timeline.add(JSON.parse((m as MessageEvent<string>).data) as TraceEvent)
        draw()
      })
    }
  }

  const history: Array<{ t: number; s: MetricsSummary }> = []
  const poll = async () => {
    try {
      const s =
        page.mode === 'admin'
          ? summarizeMetrics(parsePrometheusText(await call('/metrics')))
          : await getJson<MetricsSummary | null>(`${page.base}/metrics.json`)
      if (!s) {
        render(charts, h('p', {}, 'This proxy collects no metrics.'))
        return
      }
      history.push({ t: Date.now(), s })
      if (history.length > WINDOW + 1) history.shift()
      drawCharts(charts, history)
    } catch (err) {
      render(charts, h('p', { role: 'alert' }, `metrics unavailable: ${(err as Error).message}`))
    }
  }
  void poll()
  const timer = setInterval(() => void poll(), POLL_MS)
  return () => {
    clearInterval(timer)
    source?.close()
  }
}

/** Rates and quantiles between consecutive samples, as three charts. */
function drawCharts(
  root: HTMLElement,
  history: ReadonlyArray<{ t: number; s: MetricsSummary }>,
): void {
  const rate: Array<number | undefined> = []
  const errors: Array<number | undefined> = []
  const p50: Array<number | undefined> = []
  const p95: Array<number | undefined> = []
  for (let i = 1; i < history.length; i++) {
    const a = history[i - 1] as { t: number; s: MetricsSummary }
    const b = history[i] as { t: number; s: MetricsSummary }
    const requests = b.s.requests - a.s.requests
    rate.push(requests / Math.max(0.001, (b.t - a.t) / 1000))
    errors.push(requests > 0 ? ((b.s.errors - a.s.errors) / requests) * 100 : undefined)
    const q50 = latencyQuantile(a.s, b.s, 0.5)
    const q95 = latencyQuantile(a.s, b.s, 0.95)
    p50.push(q50 === undefined ? undefined : q50 * 1000)
    p95.push(q95 === undefined ? undefined : q95 * 1000)
  }
  const last = history.at(-1)?.s
  render(
    root,
    chart({ title: 'Requests', unit: '/s', points: rate }),
    chart({ title: 'Errors (status ≥ 400)', unit: '%', points: errors }),
    chart({ title: 'Latency p50 (≤ bucket)', unit: 'ms', points: p50 }),
    chart({ title: 'Latency p95 (≤ bucket)', unit: 'ms', points: p95 }),
    last
      ? h(
          'p',
          { class: 'meta', id: 'metrics-totals' },
          `Since start: ${last.requests} requests, ${last.errors} with status ≥ 400 (${Object.entries(
            last.byClass,
          )
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}).`,
        )
      : null,
  )
}
