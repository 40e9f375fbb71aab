/** Reports: console (people), JUnit XML and JSON (CI). */
import { summarize } from './runner.js'
import { PROFILES, type ReportRow } from './types.js'
import { REPORT_FORMAT_VERSION, VERSION } from './version.js'

const MARK = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP' } as const
/** The message prefix of a check a run never reached (client mode, refusal.ts). */
const NOT_REACHED = 'not reached: '

/**
 * The console report; its last line is `N passed, N failed, N skipped`. Rows are grouped by
 * `groups` (the server profiles by default; the client mode's scenarios).
 */
export function consoleReport(
  results: readonly ReportRow[],
  title: string,
  groups: readonly string[] = PROFILES,
): string {
  const lines: string[] = [`Gatehouse conformance — ${title}`, '']
  for (const profile of groups) {
    const rs = results.filter((r) => r.profile === profile && r.message !== 'not selected')
    if (rs.length === 0) continue
    lines.push(`[${profile}]`)
    // One root cause, reported once: the checks a run never reached, on one line.
    const notReached = new Map<string, string[]>()
    for (const r of rs) {
      if (r.status === 'skipped' && r.message?.startsWith(NOT_REACHED))
        notReached.set(r.message, [...(notReached.get(r.message) ?? []), r.id])
    }
    for (const [message, ids] of notReached) {
      lines.push(`  SKIP ${ids.join(', ')}`)
      lines.push(`         ${message}`)
    }
    for (const r of rs) {
      if (r.status === 'skipped' && r.message && notReached.has(r.message)) continue
      const note =
        r.baseline === 'expected-failure'
          ? ' (expected failure, baseline)'
          : r.baseline === 'stale'
            ? ' (passes: remove it from the baseline)'
            : ''
      lines.push(`  ${MARK[r.status]} ${r.id} ${r.level.padEnd(6)} ${r.text}${note}`)
      if (r.status === 'skipped' && r.message) lines.push(`         skipped: ${r.message}`)
      if (r.status === 'failed') {
        lines.push(`         source: ${r.source}`)
        lines.push(`         ${r.message}`)
        const e = r.evidence
        if (e) {
          lines.push(
            `         evidence: ${e.method} ${e.url} → ${e.status === 0 ? 'no answer' : e.status}`,
          )
          if (e.networkError) lines.push(`           network: ${e.networkError}`)
          if (e.requestBody)
            lines.push(
              `           request body: ${e.requestBody.replace(/\s+/g, ' ').slice(0, 200)}`,
            )
          for (const h of [
            'www-authenticate',
            'content-type',
            'access-control-allow-origin',
            'access-control-expose-headers',
          ]) {
            if (e.headers[h]) lines.push(`           ${h}: ${e.headers[h]}`)
          }
          if (e.bodyExcerpt)
            lines.push(`           body: ${e.bodyExcerpt.replace(/\s+/g, ' ').slice(0, 200)}`)
        }
      }
    }
    lines.push('')
  }
  const s = summarize(results)
  lines.push(`${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped`)
  return lines.join('\n')
}

const xml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** JUnit XML: one test suite per group (profile or scenario), one test case per requirement. */
export function junitReport(
  results: readonly ReportRow[],
  groups: readonly string[] = PROFILES,
): string {
  const suites = groups.map((profile) => {
    const rs = results.filter((r) => r.profile === profile)
    const failures = rs.filter(
      (r) => r.status === 'failed' && r.baseline !== 'expected-failure',
    ).length
    const skipped = rs.filter((r) => r.status === 'skipped').length
    const cases = rs
      .map((r) => {
        const inner =
          r.status === 'skipped'
            ? `<skipped message="${xml(r.message ?? '')}"/>`
            : r.status === 'failed' && r.baseline !== 'expected-failure'
              ? `<failure message="${xml(r.message ?? '')}">${xml(JSON.stringify(r.evidence ?? {}, null, 2))}</failure>`
              : ''
        return `    <testcase classname="${profile}" name="${xml(`${r.id} ${r.text}`)}" time="${(r.durationMs / 1000).toFixed(3)}">${inner}</testcase>`
      })
      .join('\n')
    return `  <testsuite name="${profile}" tests="${rs.length}" failures="${failures}" skipped="${skipped}">\n${cases}\n  </testsuite>`
  })
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="gatehouse-conformance">\n${suites.join('\n')}\n</testsuites>\n`
}

/**
 * JSON report, of the format report.schema.json describes (`formatVersion`); `extra` members (e.g.
 * the client mode's runs) are added at the top level.
 */
export function jsonReport(
  results: readonly ReportRow[],
  target: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): string {
  const report = {
    formatVersion: REPORT_FORMAT_VERSION,
    tool: { name: 'gatehouse-conformance', version: VERSION },
    target,
    summary: summarize(results),
    results,
    ...extra,
  }
  return `${JSON.stringify(report, null, 2)}\n`
}
