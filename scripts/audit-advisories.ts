/**
 * `npm run audit:advisories`: the security advisories of the production dependencies
 * (`npm audit --omit=dev`), where the registry's advisory endpoint answers. Exits 1 when a
 * production package has a high or critical advisory, naming each; 0 when none has; and 0 with a
 * line saying the check did not run when the endpoint is unavailable (it answered 405 on the CI
 * machine of 2026-11-28, whose registry mirror serves packages but not advisories), so a machine
 * without it is told rather than failed. Not part of `npm test`: its verdict depends on a network
 * service and on advisories published after the commit (docs/design/dependencies.md).
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** Severities that fail the check. */
export const FAILING_SEVERITIES = ['high', 'critical'] as const

/** What one run of `npm audit --json` says, judged. */
export type AuditVerdict =
  | { kind: 'unavailable'; reason: string }
  | { kind: 'advisories'; failing: string[]; counts: Record<string, number> }

interface AuditReport {
  auditReportVersion?: number
  vulnerabilities?: Record<string, { name?: string; severity?: string; range?: string }>
  metadata?: { vulnerabilities?: Record<string, number> }
  message?: string
  statusCode?: number
  error?: { code?: string; summary?: string; detail?: string }
}

/**
 * Judges the JSON `npm audit --json` printed: a report (its packages with a high or critical
 * advisory, and the counts by severity), or an error of the endpoint (405, 5xx, DNS, refused),
 * which means the check could not run.
 */
export function judgeAudit(stdout: string): AuditVerdict {
  let report: AuditReport
  try {
    report = JSON.parse(stdout) as AuditReport
  } catch {
    return { kind: 'unavailable', reason: 'npm audit printed no JSON report' }
  }
  if (!report.metadata?.vulnerabilities || !report.vulnerabilities) {
    const reason =
      report.message ??
      report.error?.summary ??
      report.error?.code ??
      'npm audit returned no report'
    return {
      kind: 'unavailable',
      reason: reason === '' ? (report.error?.code ?? 'no report') : reason,
    }
  }
  const failing = Object.entries(report.vulnerabilities)
    .filter(([, v]) => (FAILING_SEVERITIES as readonly string[]).includes(v.severity ?? ''))
    .map(([name, v]) => `${v.name ?? name} (${v.severity}${v.range ? `, ${v.range}` : ''})`)
    .sort()
  return { kind: 'advisories', failing, counts: { ...report.metadata.vulnerabilities } }
}

/** The line to print and the exit code for a verdict. */
export function report(verdict: AuditVerdict): { text: string; code: number } {
  if (verdict.kind === 'unavailable') {
    return {
      text: `audit:advisories: NOT CHECKED: the registry's advisory endpoint is unavailable here (${verdict.reason}); run it where the registry answers npm audit`,
      code: 0,
    }
  }
  const counts = Object.entries(verdict.counts)
    .filter(([k]) => k !== 'total')
    .map(([k, n]) => `${k} ${n}`)
    .join(', ')
  if (verdict.failing.length > 0) {
    return {
      text: `audit:advisories: ${verdict.failing.length} production package(s) with a high or critical advisory (${counts}): ${verdict.failing.join('; ')}; see npm audit --omit=dev`,
      code: 1,
    }
  }
  return {
    text: `audit:advisories: no high or critical advisory in the production tree (${counts})`,
    code: 0,
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const run = spawnSync('npm', ['audit', '--omit=dev', '--json'], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
  const { text, code } = report(judgeAudit(run.stdout ?? ''))
  process.stdout.write(`${text}\n`)
  process.exitCode = code
}
