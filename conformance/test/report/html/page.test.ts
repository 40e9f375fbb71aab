import { describe, expect, it } from 'vitest'
import { type HtmlReportInput, htmlReport } from '../../../src/report/html/page.js'
import { trafficDiagram } from '../../../src/report/html/traffic-diagram.js'
import type { ReportRow } from '../../../src/types.js'
import { flow, JWT } from './fixtures.js'

const row = (
  id: string,
  status: ReportRow['status'],
  extra: Partial<ReportRow> = {},
): ReportRow => ({
  id,
  level: 'MUST',
  profile: 'core',
  source: 'RFC 6750 §3',
  text: `requirement ${id}`,
  status,
  durationMs: 0,
  ...extra,
})

function input(over: Partial<HtmlReportInput> = {}): HtmlReportInput {
  return {
    mode: 'server',
    title: 'target http://127.0.0.1:1',
    generatedAt: '2026-11-28T10:00:00.000Z',
    results: [
      row('AUTH-001', 'passed'),
      row('AUTH-002', 'failed', {
        message: 'expected a 401 with WWW-Authenticate; got 200 without it',
        evidence: {
          method: 'POST',
          url: 'http://127.0.0.1:1/mcp',
          requestHeaders: { authorization: `Bearer ${JWT}` },
          status: 200,
          headers: { 'content-type': 'application/json' },
          bodyExcerpt: `{"access_token":"${JWT}"}`,
        },
      }),
      row('AUTH-003', 'skipped', { message: 'not reached: the target has no admin URL' }),
      row('AUTH-004', 'skipped', {
        message: 'not reached: the target has no admin URL',
        level: 'SHOULD',
      }),
      row('CORS-001', 'skipped', { message: 'not selected', profile: 'cors' }),
      row('CORS-002', 'skipped', { message: 'not selected', profile: 'cors' }),
    ],
    groups: ['core', 'cors'],
    clauses: new Map([
      [
        'AUTH-002',
        {
          quote:
            'the resource server MUST include the HTTP "WWW-Authenticate" response header field',
        },
      ],
    ]),
    facts: [['base', 'http://127.0.0.1:1']],
    ...over,
  }
}

describe('htmlReport', () => {
  it('is one self-contained page: no script, and a policy that lets nothing load', () => {
    const html = htmlReport(input())
    expect(html.startsWith('<!doctype html>')).toBe(true)
    expect(html).not.toMatch(/<script|<link|<img|src=|@import|url\(/i)
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    )
  })

  it('quotes the clause a failure breaks, with what was expected and what came', () => {
    const html = htmlReport(input())
    expect(html).toContain(
      '<blockquote>the resource server MUST include the HTTP &quot;WWW-Authenticate&quot; response header field</blockquote>',
    )
    expect(html).toContain(
      '<dt>expected</dt><dd>a 401 with WWW-Authenticate</dd><dt>got</dt><dd>200 without it</dd>',
    )
    expect(html).toContain('<p class="source">RFC 6750 §3</p>')
    expect(html).toContain('<caption>response headers</caption><tr><th>content-type</th>')
  })

  it('counts only the requirements selected, and says how many were not', () => {
    const html = htmlReport(input())
    expect(html).toContain('1 passed, 1 failed, 2 skipped · 2 not selected (not counted)')
    // The cors profile had nothing selected: no row, no section.
    expect(html).not.toContain('id="g--cors"')
    expect(html).toContain('<a href="#g--core">core</a>')
  })

  it('says a skip once per cause, with every requirement it kept from being judged', () => {
    const html = htmlReport(input())
    expect(html.match(/the target has no admin URL/g)).toHaveLength(1)
    expect(html).toMatch(/not reached:<\/span> the target has no admin URL<br>.*AUTH-003.*AUTH-004/)
  })

  it('fails the verdict on a failed MUST only; a baseline-listed failure passes it', () => {
    expect(htmlReport(input())).toContain('FAIL — 1 MUST requirement failed.')
    const should = input()
    should.results = should.results.map((r) =>
      r.id === 'AUTH-002' ? { ...r, level: 'SHOULD' } : r,
    )
    expect(htmlReport(should)).toContain('PASS — no MUST requirement failed.')
    const listed = input()
    listed.results = listed.results.map((r) =>
      r.id === 'AUTH-002' ? { ...r, baseline: 'expected-failure' } : r,
    )
    const html = htmlReport(listed)
    expect(html).toContain('PASS — no MUST requirement failed.')
    expect(html).toContain('<article class="failure expected"')
  })

  it('shows no credential of the evidence and escapes hostile recorded text', () => {
    const hostile = input()
    hostile.results = hostile.results.map((r) =>
      r.id === 'AUTH-002'
        ? { ...r, message: `expected no markup; got <script>alert(1)</script> and ${JWT}` }
        : r,
    )
    const html = htmlReport(hostile)
    expect(html).not.toContain(JWT)
    expect(html).not.toContain(JWT.split('.')[2] as string)
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(html).toContain('<tr><th>authorization</th><td>Bearer [redacted]</td></tr>')
  })

  it('says in server mode why there are no sequence diagrams', () => {
    const html = htmlReport(input())
    expect(html).toContain('No sequence diagrams in server mode')
    expect(html).not.toContain('<svg')
  })

  it("puts a client scenario's diagram in its section and points each failure at its step", () => {
    const results = [
      row('CLI-TOKEN-001', 'failed', {
        profile: 'bridged-client-id',
        message: 'expected the token only in Authorization; got it in the query',
        evidence: {
          method: 'POST',
          url: 'http://127.0.0.1:41001/mcp?access_token=[redacted]',
          requestHeaders: {},
          status: 0,
          headers: {},
          bodyExcerpt: '',
        },
      }),
    ]
    const diagram = trafficDiagram({
      scenario: 'bridged-client-id',
      run: { exitCode: 1, signal: null, timedOut: false, durationMs: 1000 },
      results,
      traffic: flow(),
      failingSteps: { 'CLI-TOKEN-001': 6 },
    })
    const html = htmlReport(
      input({
        mode: 'client',
        results,
        groups: ['bridged-client-id'],
        scenarios: new Map([
          [
            'bridged-client-id',
            {
              name: 'bridged-client-id',
              clientScenario: 'auth/metadata-default',
              end: 'exit 1 after 1.0 s',
              requests: 7,
              stderrTail: `Error: token ${JWT}\n`,
              diagram,
            },
          ],
        ]),
      }),
    )
    const section =
      /<section class="group g-fail" id="g--bridged-client-id">[\s\S]*?<\/section>/.exec(
        html,
      )?.[0] ?? ''
    expect(section).toContain('<svg class="sequence"')
    expect(section).toContain('data-failing="CLI-TOKEN-001"')
    expect(section).toContain('evidence — step #6 of the diagram')
    // Its evidence has no headers (no answer came): no empty header tables.
    expect(section).not.toContain('<caption>request headers</caption>')
    expect(section).not.toContain('<caption>response headers</caption>')
    expect(section).toContain('MCP_CONFORMANCE_SCENARIO=auth/metadata-default')
    expect(html).not.toContain(JWT)
    expect(html).not.toContain('No sequence diagrams')
  })
})
