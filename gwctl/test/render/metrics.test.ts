import { describe, expect, it } from 'vitest'
import { parseExposition, renderMetrics } from '../../src/render/metrics.js'

const TEXT = `# HELP gatehouse_mcp_tool_calls_total tools/call requests.
# TYPE gatehouse_mcp_tool_calls_total counter
gatehouse_mcp_tool_calls_total{route="mcp",tool="echo",outcome="forwarded"} 12
gatehouse_mcp_tool_calls_total{route="mcp",tool="fetch",outcome="denied"} 0
# TYPE gatehouse_upstream_duration_seconds histogram
gatehouse_upstream_duration_seconds_bucket{le="0.01",route="mcp",backend="b"} 3
gatehouse_upstream_duration_seconds_bucket{le="+Inf",route="mcp",backend="b"} 4
gatehouse_upstream_duration_seconds_sum{route="mcp",backend="b"} 0.02
gatehouse_upstream_duration_seconds_count{route="mcp",backend="b"} 4
# TYPE process_cpu_user_seconds_total counter
process_cpu_user_seconds_total 1.5
weird line without value
`

describe('renderMetrics', () => {
  it('lists the gatehouse series that moved, histograms as count and mean', () => {
    expect(renderMetrics(parseExposition(TEXT))).toBe(
      [
        'METRIC                               LABELS                                 VALUE',
        'gatehouse_mcp_tool_calls_total       route=mcp tool=echo outcome=forwarded  12',
        'gatehouse_upstream_duration_seconds  route=mcp backend=b                    count=4 mean=5ms',
      ].join('\n'),
    )
  })

  it('includes the process metrics with all, and filters by name', () => {
    expect(renderMetrics(parseExposition(TEXT), { all: true })).toContain(
      'process_cpu_user_seconds_total',
    )
    expect(renderMetrics(parseExposition(TEXT), { filter: 'tool_calls' })).not.toContain('upstream')
  })

  it('reads escaped label values', () => {
    const { samples } = parseExposition('m{a="x\\"y",b="1\\\\2"} 3\n')
    expect(samples).toEqual([{ name: 'm', labels: { a: 'x"y', b: '1\\2' }, value: 3 }])
  })
})
