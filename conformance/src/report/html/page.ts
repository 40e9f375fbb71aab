/**
 * The HTML report (`--html report.html`), one self-contained page for both modes: a summary by
 * group (server profile or client scenario) and level, then each group's failures — the clause
 * they break, quoted, what was expected and what came, the evidence — its skips with their
 * causes, and in client mode the scenario's sequence diagram (sequence.ts). No script, no
 * external resource: a Content-Security-Policy forbids both, so even a recorded string that
 * escaped escaping could not run or fetch anything. Recorded content is redacted and escaped
 * (escape.ts).
 */
import type { Level, ReportRow } from '../../types.js'
import { escapeHtml, shown, shownHeader } from './escape.js'
import { type SequenceDiagram, sequenceSvg } from './sequence.js'
import { STYLE } from './style.js'

/** The sentence a requirement cites, verbatim, and why its level is below that sentence's. */
export interface Clause {
  quote?: string
  levelNote?: string
}

/** A client-mode scenario as the page shows it besides its rows. */
export interface ScenarioSection {
  name: string
  /** `MCP_CONFORMANCE_SCENARIO` the client was told. */
  clientScenario: string
  /** How the run ended, in words. */
  end: string
  requests: number
  /** The end of the client's stderr (redacted when shown). */
  stderrTail: string
  diagram: SequenceDiagram
}

/** What the page shows. */
export interface HtmlReportInput {
  mode: 'server' | 'client'
  /** The run, in words (the console report's title). */
  title: string
  /** When the run ended, ISO 8601. */
  generatedAt: string
  results: readonly ReportRow[]
  /** The groups, in report order. */
  groups: readonly string[]
  /** By requirement ID. */
  clauses: ReadonlyMap<string, Clause>
  /** Facts about the run shown under the title (target, command), as label and value. */
  facts: ReadonlyArray<readonly [string, string]>
  /** Client mode: by scenario name. */
  scenarios?: ReadonlyMap<string, ScenarioSection>
}

const LEVELS: readonly Level[] = ['MUST', 'SHOULD', 'MAY']
const NOT_SELECTED = 'not selected'
const NOT_REACHED = 'not reached: '

/** A fragment identifier from our own group and requirement names. */
const anchor = (...parts: string[]) =>
  parts.map((p) => p.toLowerCase().replace(/[^a-z0-9-]+/g, '-')).join('--')

interface Counts {
  passed: number
  failed: number
  skipped: number
}

/** Counts of the judged rows (a baseline-listed failure counts as passed, as in summarize()). */
function countsOf(rows: readonly ReportRow[]): Counts {
  const c = { passed: 0, failed: 0, skipped: 0 }
  for (const r of rows) {
    if (r.status === 'skipped') c.skipped++
    else if (r.status === 'passed' || r.baseline === 'expected-failure') c.passed++
    else c.failed++
  }
  return c
}

function countCell(c: Counts): string {
  if (c.passed + c.failed + c.skipped === 0) return '<td class="none">—</td>'
  const part = (n: number, cls: string, word: string) =>
    n ? `<span class="${cls}" title="${n} ${word}">${n}</span>` : ''
  return `<td>${part(c.passed, 'n-pass', 'passed')}${part(c.failed, 'n-fail', 'failed')}${part(c.skipped, 'n-skip', 'skipped')}</td>`
}

function summaryTable(input: HtmlReportInput, judged: readonly ReportRow[]): string {
  const head = `<tr><th>${input.mode === 'client' ? 'scenario' : 'profile'}</th>${LEVELS.map((l) => `<th>${l}</th>`).join('')}<th>all</th></tr>`
  const rows = input.groups
    .map((g) => {
      const rs = judged.filter((r) => r.profile === g)
      if (rs.length === 0) return ''
      const all = countsOf(rs)
      const cls = all.failed ? 'g-fail' : 'g-pass'
      return `<tr class="${cls}"><th><a href="#${anchor('g', g)}">${escapeHtml(g)}</a></th>${LEVELS.map((l) => countCell(countsOf(rs.filter((r) => r.level === l)))).join('')}${countCell(all)}</tr>`
    })
    .join('')
  return `<table class="summary"><thead>${head}</thead><tbody>${rows}</tbody></table>
<p class="legend"><span class="n-pass">passed</span> <span class="n-fail">failed</span> <span class="n-skip">skipped</span> — only a failed MUST fails the run; a baseline-listed failure counts as passed.</p>`
}

/** `expected X; got Y` (CheckFailure) as its two halves; other messages whole. */
function verdictOf(message: string): string {
  const m = /^expected ([\s\S]*?); got ([\s\S]*)$/.exec(message)
  if (!m) return `<dl class="verdict"><dt>error</dt><dd>${shown(message)}</dd></dl>`
  return `<dl class="verdict"><dt>expected</dt><dd>${shown(m[1] ?? '')}</dd><dt>got</dt><dd>${shown(m[2] ?? '')}</dd></dl>`
}

function evidenceOf(r: ReportRow, step: number | undefined): string {
  const e = r.evidence
  if (!e) return ''
  const headers = (caption: string, h: Record<string, string>) => {
    const rows = Object.entries(h)
      .map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${shownHeader(k, v)}</td></tr>`)
      .join('')
    return rows ? `<table class="headers"><caption>${caption}</caption>${rows}</table>` : ''
  }
  const status = e.status === 0 ? 'no answer' : String(e.status)
  return `<details class="evidence" open><summary>evidence${step !== undefined ? ` — step #${step} of the diagram` : ''}: <code>${shown(e.method)} ${shown(e.url)}</code> → <b>${status}</b></summary>
${e.networkError ? `<p class="network">network: ${shown(e.networkError)}</p>` : ''}
${headers('request headers', e.requestHeaders)}
${e.requestBody ? `<pre class="body">${shown(e.requestBody)}</pre>` : ''}
${headers('response headers', e.headers)}
${e.bodyExcerpt ? `<pre class="body">${shown(e.bodyExcerpt)}</pre>` : ''}
</details>`
}

function failureCard(r: ReportRow, clause: Clause | undefined, step: number | undefined): string {
  const expected = r.baseline === 'expected-failure'
  return `<article class="failure${expected ? ' expected' : ''}" id="${anchor('f', r.profile, r.id)}">
<h4><span class="level l-${r.level.toLowerCase()}">${r.level}</span> <span class="rid">${escapeHtml(r.id)}</span> ${escapeHtml(r.text)}${expected ? ' <span class="tag">expected failure (baseline)</span>' : ''}</h4>
<p class="source">${escapeHtml(r.source)}</p>
${clause?.quote ? `<blockquote>${escapeHtml(clause.quote)}</blockquote>` : ''}
${clause?.levelNote ? `<p class="level-note">${escapeHtml(clause.levelNote)}</p>` : ''}
${verdictOf(r.message ?? '')}
${evidenceOf(r, step)}
</article>`
}

function skippedList(rows: readonly ReportRow[]): string {
  if (rows.length === 0) return ''
  // One root cause, said once: the checks a run never reached, together.
  const byCause = new Map<string, ReportRow[]>()
  for (const r of rows) byCause.set(r.message ?? '', [...(byCause.get(r.message ?? '') ?? []), r])
  const items = [...byCause]
    .map(([cause, rs]) => {
      const ids = rs.map(
        (r) =>
          `<span class="rid" title="${escapeHtml(r.text)}">${escapeHtml(r.id)}</span> <span class="level l-${r.level.toLowerCase()}">${r.level}</span>`,
      )
      const kind = cause.startsWith(NOT_REACHED) ? 'not reached' : 'skipped'
      const why = cause.startsWith(NOT_REACHED) ? cause.slice(NOT_REACHED.length) : cause
      return `<li><span class="cause-kind">${kind}:</span> ${shown(why || 'no cause given')}<br>${ids.join(', ')}</li>`
    })
    .join('')
  return `<h3>Skipped (${rows.length})</h3><ul class="skipped">${items}</ul>`
}

function passedList(rows: readonly ReportRow[]): string {
  if (rows.length === 0) return ''
  const items = rows
    .map(
      (r) =>
        `<li><span class="rid">${escapeHtml(r.id)}</span> <span class="level l-${r.level.toLowerCase()}">${r.level}</span> ${escapeHtml(r.text)}${r.baseline === 'stale' ? ' <span class="tag">passes: remove it from the baseline</span>' : ''}</li>`,
    )
    .join('')
  return `<details class="passed"><summary>Passed (${rows.length})</summary><ul>${items}</ul></details>`
}

function scenarioHead(s: ScenarioSection): string {
  const tail = s.stderrTail.trim().split('\n').slice(-40).join('\n')
  return `<p class="run">told <code>MCP_CONFORMANCE_SCENARIO=${escapeHtml(s.clientScenario)}</code> · ${shown(s.end)} · ${s.requests} requests recorded</p>
<div class="diagram">${sequenceSvg(s.diagram)}</div>
<p class="legend">Solid arrows: the client's requests (order, method, path, what they carried); dashed: the answers and their status. <span class="hl">Highlighted</span> rows are the evidence of a failure and name the requirements broken; the last row is how the client ended. Credentials are never shown.</p>
${tail ? `<details class="stderr"><summary>client stderr (last lines, redacted)</summary><pre>${shown(tail)}</pre></details>` : ''}`
}

function groupSection(input: HtmlReportInput, group: string, rows: readonly ReportRow[]): string {
  const scenario = input.scenarios?.get(group)
  if (rows.length === 0 && !scenario) return ''
  const c = countsOf(rows)
  const failed = rows.filter((r) => r.status === 'failed')
  const steps = scenario ? stepsByRequirement(scenario.diagram) : new Map<string, number>()
  return `<section class="group${c.failed ? ' g-fail' : ''}" id="${anchor('g', group)}">
<h2>${escapeHtml(group)} <small>${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped</small></h2>
${scenario ? scenarioHead(scenario) : ''}
${failed.length ? `<h3>Failures (${failed.length})</h3>${failed.map((r) => failureCard(r, input.clauses.get(r.id), steps.get(r.id))).join('\n')}` : ''}
${skippedList(rows.filter((r) => r.status === 'skipped'))}
${passedList(rows.filter((r) => r.status === 'passed'))}
</section>`
}

/** Requirement ID → the step of the diagram its evidence is. */
function stepsByRequirement(d: SequenceDiagram): Map<string, number> {
  const out = new Map<string, number>()
  for (const s of d.steps) for (const m of s.marks) out.set(m.id, s.seq)
  return out
}

/** The whole page. */
export function htmlReport(input: HtmlReportInput): string {
  const judged = input.results.filter((r) => r.message !== NOT_SELECTED)
  const notSelected = input.results.length - judged.length
  const all = countsOf(judged)
  const mustFailed = judged.filter(
    (r) => r.status === 'failed' && r.level === 'MUST' && r.baseline !== 'expected-failure',
  ).length
  const verdict =
    all.passed + all.failed === 0
      ? '<p class="verdict-line v-fail">Nothing was judged: every check was skipped.</p>'
      : mustFailed
        ? `<p class="verdict-line v-fail">FAIL — ${mustFailed} MUST requirement${mustFailed === 1 ? '' : 's'} failed.</p>`
        : '<p class="verdict-line v-pass">PASS — no MUST requirement failed.</p>'
  const facts = input.facts
    .map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${shown(v)}</td></tr>`)
    .join('')
  const noDiagram =
    input.mode === 'server'
      ? '<p class="note">No sequence diagrams in server mode: here the suite itself is the client, and each check sends its own few requests, independently of the others; there is no conversation to draw. Each failure shows the exchange it was judged on as its evidence.</p>'
      : ''
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gatehouse conformance — ${escapeHtml(input.mode)} mode</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>Gatehouse conformance report <small>${input.mode === 'client' ? 'client mode' : 'server mode'}</small></h1>
<p class="title">${shown(input.title)}</p>
${verdict}
<p class="totals">${all.passed} passed, ${all.failed} failed, ${all.skipped} skipped${notSelected ? ` · ${notSelected} not selected (not counted)` : ''} · written ${escapeHtml(input.generatedAt)}</p>
${facts ? `<table class="facts">${facts}</table>` : ''}
</header>
<main>
<h2>Summary</h2>
${summaryTable(input, judged)}
${noDiagram}
${input.groups
  .map((g) =>
    groupSection(
      input,
      g,
      judged.filter((r) => r.profile === g),
    ),
  )
  .join('\n')}
</main>
<footer>Self-contained: no script, no network. Recorded content is escaped and credentials are redacted.</footer>
</body>
</html>
`
}
