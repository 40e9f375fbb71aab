import { describe, expect, it } from 'vitest'
import {
  latencyQuantile,
  parsePrometheusText,
  summarizeMetrics,
} from '../../../src/admin/ui/prometheus-text.js'
import { Metrics } from '../../../src/telemetry/metrics.js'

describe('prometheus-text', () => {
  it('reads the proxy’s own /metrics text: requests by class, errors, latency buckets', async () => {
    const metrics = new Metrics({ issuers: [] })
    metrics.requests.inc(
      { gateway: 'g', route: 'r', method: 'POST', status: '200', outcome: 'allowed' },
      3,
    )
    metrics.requests.inc({
      gateway: 'g',
      route: 'r',
      method: 'POST',
      status: '401',
      outcome: 'unauthenticated',
    })
    metrics.requestDuration.observe({ gateway: 'g', route: 'r' }, 0.004)
    metrics.requestDuration.observe({ gateway: 'g', route: 'r' }, 0.2)
    const summary = summarizeMetrics(parsePrometheusText((await metrics.render()).body))
    expect(summary).toMatchObject({
      requests: 4,
      errors: 1,
      byClass: { '2xx': 3, '4xx': 1 },
      latencyCount: 2,
    })
    expect(summary.latencyBuckets.at(-1)).toEqual([Number.POSITIVE_INFINITY, 2])
    expect(latencyQuantile(undefined, summary, 0.5)).toBe(0.005)
    expect(latencyQuantile(undefined, summary, 1)).toBe(0.25)
    expect(latencyQuantile(summary, summary, 0.5)).toBeUndefined()
  })

  it('unescapes label values and skips comments and unreadable lines', () => {
    const samples = parsePrometheusText(
      '# HELP x\nx{a="q\\"uote\\\\n"} 2\nnot a sample\ny 3 1700000000\n',
    )
    expect(samples).toEqual([
      { name: 'x', labels: { a: 'q"uote\\n' }, value: 2 },
      { name: 'y', labels: {}, value: 3 },
    ])
  })
})
