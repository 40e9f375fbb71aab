import { describe, expect, it } from 'vitest'
import { judgeAudit, report } from '../audit-advisories.js'

/** What `npm audit --omit=dev --json` printed on this CI machine (2026-11-28), headers cut. */
const ENDPOINT_405 = JSON.stringify({
  message:
    '405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk',
  method: 'POST',
  uri: 'https://registry.npmjs.org/-/npm/v1/security/advisories/bulk',
  statusCode: 405,
  body: '',
  error: { summary: '', detail: '' },
})

/** npm's report shape (auditReportVersion 2) with the given advisories. */
function auditReport(vulnerabilities: Record<string, { severity: string; range?: string }>) {
  const counts = { info: 0, low: 0, moderate: 0, high: 0, critical: 0, total: 0 }
  for (const v of Object.values(vulnerabilities)) {
    counts[v.severity as keyof typeof counts]++
    counts.total++
  }
  return JSON.stringify({
    auditReportVersion: 2,
    vulnerabilities: Object.fromEntries(
      Object.entries(vulnerabilities).map(([name, v]) => [name, { name, ...v, via: [] }]),
    ),
    metadata: { vulnerabilities: counts, dependencies: { prod: 334, total: 334 } },
  })
}

describe('audit-advisories', () => {
  it('says the check did not run, and exits 0, when the advisory endpoint answers 405', () => {
    const verdict = judgeAudit(ENDPOINT_405)
    expect(verdict).toEqual({ kind: 'unavailable', reason: expect.stringContaining('405') })
    const { text, code } = report(verdict)
    expect(code).toBe(0)
    expect(text).toMatch(/NOT CHECKED: .*unavailable/)
  })

  it('says the check did not run on a network error or on output that is not a report', () => {
    const offline = JSON.stringify({ error: { code: 'ENOTFOUND', summary: '', detail: '' } })
    expect(judgeAudit(offline)).toEqual({ kind: 'unavailable', reason: 'ENOTFOUND' })
    expect(judgeAudit('npm error')).toMatchObject({ kind: 'unavailable' })
    expect(report(judgeAudit(offline)).code).toBe(0)
  })

  it('fails naming each production package with a high or critical advisory', () => {
    const verdict = judgeAudit(
      auditReport({
        'fast-jwt': { severity: 'critical', range: '<5.0.6' },
        debug: { severity: 'high' },
        qs: { severity: 'moderate' },
      }),
    )
    expect(verdict).toMatchObject({
      kind: 'advisories',
      failing: ['debug (high)', 'fast-jwt (critical, <5.0.6)'],
    })
    const { text, code } = report(verdict)
    expect(code).toBe(1)
    expect(text).toContain('2 production package(s)')
    expect(text).toContain('moderate 1')
  })

  it('passes when the advisories are below high, and says how many there are', () => {
    const { text, code } = report(judgeAudit(auditReport({ qs: { severity: 'moderate' } })))
    expect(code).toBe(0)
    expect(text).toMatch(/no high or critical advisory .*moderate 1/)
  })
})
