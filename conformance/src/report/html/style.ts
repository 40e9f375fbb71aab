/**
 * The HTML report's stylesheet, inlined into the page (no external resource may load:
 * page.ts's Content-Security-Policy). The sequence diagram's SVG is styled from here too, so its
 * markup carries classes only.
 */
export const STYLE = `
:root { --fail: #c62828; --fail-bg: #fdecea; --pass: #2e7d32; --pass-bg: #e8f5e9;
  --skip: #6d6d6d; --warn: #b26a00; --warn-bg: #fff4e0; --line: #d0d4da; --ink: #1d232b;
  --muted: #5b6570; --accent: #1f5fa8; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: #f6f7f9; }
header, main, footer { max-width: 1040px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 20px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h1 small, h2 small { font-weight: normal; color: var(--muted); font-size: 14px; margin-left: 8px; }
h2 { font-size: 18px; margin: 28px 0 10px; }
h3 { font-size: 15px; margin: 18px 0 8px; }
h4 { font-size: 14px; margin: 0 0 6px; }
code, pre, .rid, svg.sequence text { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
pre { white-space: pre-wrap; word-break: break-all; background: #f0f2f5; padding: 8px; border-radius: 4px; margin: 6px 0; font-size: 12px; }
.title { color: var(--muted); margin: 0 0 8px; word-break: break-all; }
.verdict-line { font-weight: 600; font-size: 16px; padding: 8px 12px; border-radius: 6px; margin: 8px 0; }
.v-pass { background: var(--pass-bg); color: var(--pass); }
.v-fail { background: var(--fail-bg); color: var(--fail); }
.totals { color: var(--muted); margin: 4px 0 8px; }
table { border-collapse: collapse; }
.facts th, .facts td { text-align: left; padding: 2px 12px 2px 0; vertical-align: top; word-break: break-all; }
.facts th { color: var(--muted); font-weight: normal; white-space: nowrap; }
.summary { background: #fff; border: 1px solid var(--line); min-width: 560px; }
.summary th, .summary td { border-bottom: 1px solid var(--line); padding: 6px 12px; text-align: left; }
.summary thead th { background: #eef1f4; }
.summary tr.g-fail > th a { color: var(--fail); }
.summary td.none { color: var(--line); }
.n-pass, .n-fail, .n-skip { display: inline-block; min-width: 26px; padding: 0 6px; margin-right: 4px; border-radius: 10px; text-align: center; font-size: 12px; font-weight: 600; }
.n-pass { background: var(--pass-bg); color: var(--pass); }
.n-fail { background: var(--fail-bg); color: var(--fail); }
.n-skip { background: #eceff1; color: var(--skip); }
.legend, .note { color: var(--muted); font-size: 12px; }
.note { background: #fff; border-left: 3px solid var(--accent); padding: 8px 12px; font-size: 13px; }
.legend .hl { background: var(--fail-bg); color: var(--fail); padding: 0 4px; }
section.group { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 4px 18px 14px; margin: 18px 0; }
section.group.g-fail { border-left: 4px solid var(--fail); }
section.group h2 { margin-top: 12px; }
.run { color: var(--muted); margin: 0 0 8px; }
.diagram { overflow-x: auto; border: 1px solid var(--line); border-radius: 6px; background: #fcfcfd; }
.level { display: inline-block; font-size: 11px; font-weight: 700; padding: 0 5px; border-radius: 3px; color: #fff; }
.l-must { background: #8e24aa; } .l-should { background: #1f5fa8; } .l-may { background: #607d8b; }
.tag { font-size: 11px; font-weight: normal; background: var(--warn-bg); color: var(--warn); padding: 1px 6px; border-radius: 3px; }
article.failure { border: 1px solid #f3c4c0; border-left: 4px solid var(--fail); border-radius: 6px; padding: 10px 14px; margin: 10px 0; background: #fffafa; }
article.failure.expected { border-color: #f1d9ad; border-left-color: var(--warn); background: #fffdf7; }
.source { color: var(--muted); font-size: 12px; margin: 0 0 6px; }
blockquote { margin: 6px 0; padding: 4px 12px; border-left: 3px solid var(--line); color: #37414b; font-style: italic; }
.level-note { font-size: 12px; color: var(--warn); }
dl.verdict { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 0; }
dl.verdict dt { font-weight: 600; color: var(--muted); }
dl.verdict dd { margin: 0; word-break: break-word; }
details.evidence { margin-top: 6px; font-size: 12px; }
details.evidence summary { cursor: pointer; word-break: break-all; }
.headers { margin: 6px 0; font-size: 12px; }
.headers caption { text-align: left; color: var(--muted); }
.headers th { text-align: left; font-weight: normal; color: var(--muted); padding-right: 10px; vertical-align: top; white-space: nowrap; }
.headers td { word-break: break-all; }
.network { color: var(--fail); }
ul.skipped li { margin-bottom: 6px; }
.cause-kind { font-weight: 600; color: var(--skip); }
details.passed summary, details.stderr summary { cursor: pointer; color: var(--muted); margin: 8px 0; }
footer { color: var(--muted); font-size: 12px; padding: 16px 20px 32px; }
svg.sequence { display: block; }
svg.sequence .lifeline { stroke: #9aa3ad; stroke-dasharray: 4 4; }
svg.sequence .lane-head { fill: #eef1f4; stroke: #9aa3ad; }
svg.sequence .lane-name { font-size: 12px; font-weight: 700; fill: var(--ink); }
svg.sequence .lane-origin { font-size: 10px; fill: var(--muted); }
svg.sequence .seq { font-size: 11px; fill: var(--muted); }
svg.sequence .label { font-size: 11px; fill: var(--ink); }
svg.sequence .status { font-size: 11px; font-weight: 700; }
svg.sequence .ask { stroke: #44505c; stroke-width: 1.4; }
svg.sequence .answer { stroke: #7b8590; stroke-width: 1.2; stroke-dasharray: 5 3; }
svg.sequence .head { fill: #44505c; }
svg.sequence .st-ok .status { fill: var(--pass); }
svg.sequence .st-redirect .status { fill: var(--accent); }
svg.sequence .st-error .status { fill: var(--warn); }
svg.sequence .st-none .status { fill: var(--skip); }
svg.sequence .highlight { fill: var(--fail-bg); stroke: var(--fail); stroke-width: 1.5; }
svg.sequence .failing .ask, svg.sequence .failing .answer { stroke: var(--fail); stroke-width: 2.2; }
svg.sequence .failing .head { fill: var(--fail); }
svg.sequence .failing .label, svg.sequence .failing .seq { fill: var(--fail); font-weight: 700; }
svg.sequence .marks { font-size: 11px; font-weight: 700; fill: var(--fail); }
svg.sequence .expected .highlight { fill: var(--warn-bg); stroke: var(--warn); }
svg.sequence .expected .marks { fill: var(--warn); }
svg.sequence .end-box { fill: #eef1f4; stroke: #9aa3ad; }
svg.sequence .failing .end-box { fill: #fff; stroke: var(--fail); stroke-width: 2; }
svg.sequence .end-text { font-size: 11px; fill: var(--ink); }
svg.sequence .empty { font-size: 12px; fill: var(--muted); font-style: italic; }
@media print { body { background: #fff; } section.group { break-inside: avoid-page; } }
`
