/**
 * The JSON report (report.ts) against the JSON Schema the package ships (report.schema.json):
 * a report of both modes validates, and one that breaks the format does not. The reports of real
 * runs are validated by pack.test.ts and ci-recipes.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { jsonReport } from '../src/report.js'
import type { ReportRow } from '../src/types.js'
import { REPORT_FORMAT_VERSION, VERSION } from '../src/version.js'
import { reportSchemaErrors } from './report-schema.js'

const ROWS: ReportRow[] = [
  {
    id: 'AUTH-001',
    level: 'MUST',
    profile: 'core',
    source: 'RFC 6750 §3',
    text: 'A request without a token is answered 401.',
    status: 'failed',
    message: 'expected 401; got 200',
    evidence: {
      method: 'POST',
      url: 'http://127.0.0.1:1/mcp',
      requestHeaders: { authorization: '[redacted]' },
      status: 200,
      headers: { 'content-type': 'application/json' },
      bodyExcerpt: '{}',
    },
    durationMs: 3,
  },
  {
    id: 'PRM-006',
    level: 'SHOULD',
    profile: 'core',
    source: 'RFC 9728 §3',
    text: 'Metadata at the root form.',
    status: 'passed',
    baseline: 'stale',
    durationMs: 1,
  },
  {
    id: 'CLI-REG-005',
    level: 'MUST',
    profile: 'request-metadata',
    source: 'MCP 2026-07-28',
    text: 'application_type',
    status: 'skipped',
    message: 'not reached: the client exited',
    durationMs: 0,
  },
]

const SERVER_TARGET = {
  base: 'http://127.0.0.1:1',
  configuredBase: 'http://gateway.example:1',
  admin: null,
  specVersions: ['2026-07-28'],
}

describe('jsonReport', () => {
  it('names its format version and the tool, and validates against report.schema.json', () => {
    const report = JSON.parse(jsonReport(ROWS, SERVER_TARGET))
    expect(report.formatVersion).toBe(REPORT_FORMAT_VERSION)
    expect(report.tool).toEqual({ name: 'gatehouse-conformance', version: VERSION })
    expect(reportSchemaErrors(report)).toEqual([])
  })

  it("validates the client mode's report, with its runs", () => {
    const runs = [
      {
        scenario: 'request-metadata',
        clientScenario: 'auth/basic-dcr',
        serverUrl: 'http://127.0.0.1:2/mcp',
        exitCode: 1,
        signal: null,
        timedOut: false,
        durationMs: 12,
        requests: 4,
        stderrTail: 'boom',
        log: [],
      },
    ]
    const report = JSON.parse(jsonReport(ROWS, { client: 'node c.js' }, { runs }))
    expect(reportSchemaErrors(report)).toEqual([])
  })

  it('a report without its format version, or with a level the format does not know, is invalid', () => {
    const report = JSON.parse(jsonReport(ROWS, SERVER_TARGET))
    delete report.formatVersion
    expect(reportSchemaErrors(report).join('\n')).toContain(
      "must have required property 'formatVersion'",
    )
    const bad = JSON.parse(
      jsonReport([{ ...(ROWS[0] as ReportRow), level: 'MIGHT' as 'MAY' }], SERVER_TARGET),
    )
    expect(reportSchemaErrors(bad).join('\n')).toContain('/results/0/level')
  })
})
