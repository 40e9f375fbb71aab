import { describe, expect, it } from 'vitest'
import { CLIENT_CATALOGUE } from '../../../src/client/checks/index.js'
import type { ScenarioReport } from '../../../src/client/run.js'
import { clientHtmlReport, scenarioSection } from '../../../src/report/html/client.js'
import { escapeHtml } from '../../../src/report/html/escape.js'
import { flow, JWT } from './fixtures.js'

const PKCE = CLIENT_CATALOGUE.find((r) => r.id === 'CLI-PKCE-001')

function report(over: Partial<ScenarioReport> = {}): ScenarioReport {
  return {
    scenario: 'bridged-client-id',
    clientScenario: 'auth/metadata-default',
    serverUrl: 'http://127.0.0.1:41001/mcp',
    run: {
      exitCode: 1,
      signal: null,
      timedOut: false,
      durationMs: 1500,
      stdout: '',
      stderr: `boom ${JWT}`,
    },
    results: [
      {
        id: 'CLI-PKCE-001',
        level: 'MUST',
        profile: 'bridged-client-id',
        source: PKCE?.source ?? '',
        text: PKCE?.text ?? '',
        status: 'failed',
        message: 'expected a code_challenge; got null',
        durationMs: 0,
      },
    ],
    requests: 7,
    log: [],
    traffic: flow(),
    failingSteps: { 'CLI-PKCE-001': 3 },
    ...over,
  }
}

describe('clientHtmlReport', () => {
  it("quotes the client requirement's sentence and draws the scenario's traffic", () => {
    const html = clientHtmlReport([report()], { title: 'client "x"', command: 'node my-client.js' })
    expect(html).toContain(`<blockquote>${escapeHtml(PKCE?.quote ?? '?')}</blockquote>`)
    expect(html).toMatch(
      /<g class="step st-redirect failing" data-seq="3" data-lane="idp" data-failing="CLI-PKCE-001">/,
    )
    expect(html).toContain('<tr><th>client command</th><td>node my-client.js</td></tr>')
    expect(html).not.toContain(JWT)
  })
})

describe('scenarioSection', () => {
  it('draws a scenario that was never run as its cause, with no request', () => {
    const s = scenarioSection(
      report({
        error: 'its stack did not start: EADDRINUSE',
        traffic: [],
        failingSteps: {},
        requests: 0,
      }),
    )
    expect(s.end).toBe('not run: its stack did not start: EADDRINUSE')
    expect(s.diagram.steps).toEqual([])
  })

  it('draws a report without recorded traffic (an older caller) as an empty diagram', () => {
    const { traffic: _t, failingSteps: _f, ...old } = report()
    const s = scenarioSection(old)
    expect(s.diagram.steps).toEqual([])
    expect(s.diagram.end?.marks.map((m) => m.id)).toEqual(['CLI-PKCE-001'])
  })
})
