/**
 * The tool label of `gatehouse_mcp_tool_calls_total` (docs/design/hardening.md): 200 invented tool names
 * used to take every label slot until restart, so real tools were counted as `__other__`.
 */
import { PassThrough } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config/load.js'
import { compileMcpRoutePolicy } from '../../src/mcp/route-policy.js'
import { Metrics, OTHER_LABEL, ToolLabels } from '../../src/telemetry/metrics.js'

const opened: Metrics[] = []
afterEach(() => {
  for (const m of opened.splice(0)) m.close()
})

function metrics(): Metrics {
  const m = new Metrics({ defaultMetrics: false })
  opened.push(m)
  return m
}

async function toolCalls(m: Metrics, tool: string): Promise<number | undefined> {
  const { values } = await m.toolCalls.get()
  const hits = values.filter((v) => v.labels.tool === tool)
  return hits.length === 0 ? undefined : hits.reduce((sum, v) => sum + v.value, 0)
}

function routePolicy(rules: unknown[]) {
  const config = parseConfig(
    JSON.stringify({
      gateways: { default: { port: 3000 } },
      backends: { b: { static: { host: '127.0.0.1', port: 1 } } },
      routes: {
        mcp: {
          rules: [{ matches: [{ path: { value: '/mcp' } }], backendRefs: [{ name: 'b' }] }],
          allowUnauthenticated: true,
        },
      },
      policies: { p: { targetRefs: [{ name: 'mcp' }], traffic: { mcpAuthorization: { rules } } } },
    }),
    'test.yaml',
  )
  const policy = config.policies.p
  if (!policy) throw new Error('no policy')
  const compiled = compileMcpRoutePolicy([{ name: 'p', policy }])
  if (!compiled) throw new Error('not MCP-aware')
  return compiled
}

function post(body: unknown) {
  const text = JSON.stringify(body)
  return { method: 'POST', path: '/mcp', headersDistinct: {}, body: async () => Buffer.from(text) }
}

const invent = (m: Metrics, n: number) => {
  for (let i = 0; i < n; i++) m.recordToolCall('mcp', `invented-${i}`, 'denied')
}

describe('Metrics tool label', () => {
  it('counts a tool the policy names under its own name after 200 invented names', async () => {
    const m = metrics()
    const policy = routePolicy([
      'mcp.tool.name in ["echo", "fetch"]',
      { deny: 'mcp.tool.name == "rm"' },
    ])
    expect(policy.toolNames).toEqual(['echo', 'fetch', 'rm'])
    await policy.inspect(post({ jsonrpc: '2.0', id: 1, method: 'ping' }), {})
    invent(m, 200)
    m.recordToolCall('mcp', 'echo', 'forwarded')
    m.recordToolCall('mcp', 'rm', 'denied')
    expect(await toolCalls(m, 'echo')).toBe(1)
    expect(await toolCalls(m, 'rm')).toBe(1)
  })

  it('counts a tool a tools/list result named under its own name after 200 invented names', async () => {
    const m = metrics()
    const policy = routePolicy([{ deny: 'mcp.tool.name == "rm"' }])
    const verdict = await policy.inspect(post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), {})
    if (!('forward' in verdict)) throw new Error('not forwarded')
    const source = new PassThrough()
    const out = verdict.forward.filterResponse?.(
      source,
      { 'content-type': 'application/json' },
      200,
    )
    source.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        result: { tools: [{ name: 'listed' }, { name: 'rm' }] },
      }),
    )
    for await (const _ of out ?? []);
    invent(m, 200)
    m.recordToolCall('mcp', 'listed', 'forwarded')
    expect(await toolCalls(m, 'listed')).toBe(1)
  })

  it('gives at most maxOthers invented names a label of their own', async () => {
    const m = metrics()
    invent(m, 150)
    expect(await toolCalls(m, OTHER_LABEL)).toBe(150 - m.tools.maxOthers)
    expect(await toolCalls(m, 'invented-0')).toBe(1)
  })
})

describe('ToolLabels', () => {
  it('keeps at most maxOthers unknown names, replacing the least recent one once it is old', () => {
    let t = 0
    const forgotten: Array<[string, string[]]> = []
    const labels = new ToolLabels({
      maxOthers: 2,
      maxAgeMs: 1000,
      now: () => t,
      onForget: (name, series) => forgotten.push([name, [...series]]),
    })
    labels.register(['known'])
    expect([labels.of('a', 's1'), labels.of('b', 's1'), labels.of('c', 's1')]).toEqual([
      'a',
      'b',
      OTHER_LABEL,
    ])
    t = 500
    expect(labels.of('b', 's2')).toBe('b')
    t = 1200
    // "a" is older than maxAgeMs: its slot goes to "c"; "b" was used at 500 and stays.
    expect(labels.of('c', 's1')).toBe('c')
    expect(forgotten).toEqual([['a', ['s1']]])
    expect(labels.of('d', 's1')).toBe(OTHER_LABEL)
    expect(labels.of('known', 's1')).toBe('known')
  })

  it('bounds the names registered as known', () => {
    const labels = new ToolLabels({ maxKnown: 3, maxOthers: 0 })
    labels.register(['a', 'b', 'c', 'd'])
    expect(['a', 'c', 'd'].map((n) => labels.of(n, 's'))).toEqual(['a', 'c', OTHER_LABEL])
  })
})
