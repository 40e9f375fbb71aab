import { describe, expect, it } from 'vitest'
import { type DiagramStep, sequenceSvg } from '../../../src/report/html/sequence.js'

const step = (seq: number, over: Partial<DiagramStep> = {}): DiagramStep => ({
  seq,
  to: 'gateway',
  method: 'GET',
  path: '/mcp',
  status: 200,
  marks: [],
  ...over,
})

/** The `<g>` of step `seq`, whole. */
function group(svg: string, seq: number): string {
  const m = new RegExp(`<g class="[^"]*" data-seq="${seq}"[\\s\\S]*?</g>`).exec(svg)
  if (!m) throw new Error(`no step ${seq} in the diagram`)
  return m[0]
}

describe('sequenceSvg', () => {
  it('draws one row per step with its order, method, path and status, to the lane it went to', () => {
    const svg = sequenceSvg({
      title: 't',
      origins: { gateway: 'http://127.0.0.1:1', idp: 'http://127.0.0.1:2' },
      steps: [
        step(1, { status: 401 }),
        step(2, {
          to: 'idp',
          method: 'POST',
          path: '/token',
          detail: 'grant_type=authorization_code',
        }),
      ],
    })
    expect(svg.startsWith('<svg class="sequence"')).toBe(true)
    expect(svg).toContain('client under test')
    expect(svg).toContain('gateway / resource server')
    expect(svg).toContain('authorization server / IdP')
    const first = group(svg, 1)
    expect(first).toContain('data-lane="gateway"')
    expect(first).toContain('>GET /mcp<')
    expect(first).toContain('>401<')
    expect(first).toContain('st-error')
    const second = group(svg, 2)
    expect(second).toContain('data-lane="idp"')
    expect(second).toContain('POST /token  grant_type=authorization_code')
    // The request's arrow ends at the IdP's lane, further right than the gateway's.
    const x2 = (g: string) => Number(/class="ask"[^>]*x2="([\d.]+)"/.exec(g)?.[1])
    expect(x2(second)).toBeGreaterThan(x2(first))
  })

  it('highlights the step a failure names, and only that one, naming the requirement', () => {
    const svg = sequenceSvg({
      title: 't',
      origins: {},
      steps: [step(1), step(2, { marks: [{ id: 'CLI-TOKEN-001', level: 'MUST' }] }), step(3)],
    })
    const failing = group(svg, 2)
    expect(failing).toMatch(/^<g class="step st-ok failing"/)
    expect(failing).toContain('data-failing="CLI-TOKEN-001"')
    expect(failing).toContain('class="highlight"')
    expect(failing).toContain('✗ CLI-TOKEN-001 MUST')
    for (const other of [1, 3]) {
      expect(group(svg, other)).not.toContain('failing')
      expect(group(svg, other)).not.toContain('highlight')
    }
  })

  it('draws a baseline-listed failure amber (expected), not red', () => {
    const svg = sequenceSvg({
      title: 't',
      origins: {},
      steps: [step(1, { marks: [{ id: 'CLI-PKCE-001', level: 'MUST', expected: true }] })],
    })
    expect(group(svg, 1)).toMatch(/^<g class="step st-ok expected"/)
    expect(group(svg, 1)).toContain('(baseline)')
  })

  it('escapes every label: a recorded path cannot add markup to the SVG', () => {
    const svg = sequenceSvg({
      title: '<t>',
      origins: { gateway: '"><script>x</script>' },
      steps: [
        step(1, {
          path: '/</text><script>alert(1)</script>',
          note: '<img src=x onerror=y>',
          status: 0,
        }),
      ],
    })
    expect(svg).not.toMatch(/<script|<img|<\/text><script/)
    expect(svg).toContain('&lt;/text&gt;&lt;script&gt;')
    expect(group(svg, 1)).toContain('no answer')
  })

  it('cuts a long path to fit its arrow and keeps it whole in the tooltip', () => {
    const long = `/authorize?${'a'.repeat(300)}`
    const svg = sequenceSvg({ title: 't', origins: {}, steps: [step(1, { path: long })] })
    const label = /class="label"[^>]*>([^<]*)</.exec(group(svg, 1))?.[1] ?? ''
    expect(label.length).toBeLessThan(60)
    expect(label.endsWith('…')).toBe(true)
    expect(group(svg, 1)).toContain(`<title>#1 GET ${long} → 200</title>`)
  })

  it("closes with the client's end, highlighted when a failure is judged on the run as a whole", () => {
    const svg = sequenceSvg({
      title: 't',
      origins: {},
      steps: [],
      end: { text: 'exit 1 after 2.0 s', marks: [{ id: 'CLI-FLOW-001', level: 'MUST' }] },
    })
    expect(svg).toContain('the client sent no request')
    expect(svg).toMatch(/<g class="end failing" data-failing="CLI-FLOW-001">/)
    expect(svg).toContain('>exit 1 after 2.0 s<')
  })
})
