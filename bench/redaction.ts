/**
 * `npm run bench:redaction`: what redacting one log object or trace event costs when a client
 * controls a field of it (docs/design/hardening.md), at 16 KiB, 256 KiB and 4 MiB (the `POST /mcp` body
 * limit). Inputs, each as the access log and the trace bus redact them (`redactValue` of an
 * object, `redactText` of a path):
 *
 * - a tool name of `eyJ` repeated (the attack: the old JWT regex rescanned the rest of the word
 *   from every `eyJ`);
 * - a path `/mcp/` + `eyJ.` repeated (dots: every `eyJ` a candidate with parts after it);
 * - ordinary text: words, a URL with a query and a real JWT every 1 KiB (the work is not skipped
 *   by the cut alone: below 64 KiB everything is read).
 *
 * For comparison, in the same run, the old regex (`/eyJ[\w-]*(?:\.[\w-]*){2,4}/g`) on the first
 * input at 16 KiB only: at 256 KiB it takes minutes. Each figure is the median of several calls.
 * Prints a table and, with `--write`, appends it to bench/RESULTS.md.
 */
import { appendFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { parseArgs } from 'node:util'
import { redactText, redactValue } from '@gatehouse/redact'

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '15' }, write: { type: 'boolean', default: false } },
})
const runs = Number(values.runs)

const KiB = 1024
const SIZES = [
  { label: '16 KiB', bytes: 16 * KiB },
  { label: '256 KiB', bytes: 256 * KiB },
  { label: '4 MiB', bytes: 4 * KiB * KiB },
]

const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl'

function repeatTo(unit: string, bytes: number): string {
  return unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes)
}

const INPUTS: Array<{ name: string; run: (bytes: number) => () => unknown }> = [
  {
    name: 'tool name `eyJ`×N (redactValue of the log object)',
    run: (bytes) => {
      const event = {
        msg: 'request',
        mcp: [{ method: 'tools/call', tool: repeatTo('eyJ', bytes) }],
      }
      return () => redactValue(event)
    },
  },
  {
    name: 'path `/mcp/` + `eyJ.`×N (redactText)',
    run: (bytes) => {
      const path = `/mcp/${repeatTo('eyJ.', bytes)}`
      return () => redactText(path)
    },
  },
  {
    name: 'ordinary text with a JWT every 1 KiB (redactText)',
    run: (bytes) => {
      const unit = `GET https://gw.example/mcp?state=s1&x=${'a'.repeat(900)} the quick brown fox ${JWT}\n`
      const text = repeatTo(unit, bytes)
      return () => redactText(text)
    },
  },
]

/** Median milliseconds of `runs` calls of `fn`. */
function median(fn: () => unknown, n: number): number {
  const times: number[] = []
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint()
    fn()
    times.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)] ?? Number.NaN
}

const fmt = (ms: number) => (ms < 1 ? ms.toFixed(3) : ms < 100 ? ms.toFixed(2) : ms.toFixed(0))

const rows: string[] = []
for (const input of INPUTS) {
  const cells: number[] = []
  for (const size of SIZES) {
    const fn = input.run(size.bytes)
    fn() // warm up
    cells.push(median(fn, size.bytes > 1024 * KiB ? Math.max(3, Math.floor(runs / 3)) : runs))
  }
  const base = cells[0] ?? Number.NaN
  rows.push(
    `| ${input.name} | ${cells.map(fmt).join(' | ')} | ${cells.map((c) => `${(c / base).toFixed(1)}×`).join(' / ')} |`,
  )
}

// The old regex, on the first input at 16 KiB: what the attack cost before.
const OLD_JWT = /eyJ[\w-]*(?:\.[\w-]*){2,4}/g
const oldInput = repeatTo('eyJ', 16 * KiB)
const oldMs = median(() => oldInput.replace(OLD_JWT, '[redacted]'), 3)
const newMs = median(() => redactText(oldInput), runs)

const date = new Date().toISOString().slice(0, 10)
const report = [
  `## ${date} — redaction cost: one value at 16 KiB, 256 KiB and 4 MiB (medians of ${runs} calls), Node ${process.version}, ${cpus().length} cores`,
  '',
  'Shared 2-core machine: absolute figures move with other load; compare the ratios, which are measured in one run. `npm run bench:redaction`.',
  '',
  '| input | 16 KiB ms | 256 KiB ms | 4 MiB ms | ratio to 16 KiB |',
  '|---|---:|---:|---:|---|',
  ...rows,
  '',
  `- the old regex alone on \`eyJ\`×N at 16 KiB: **${fmt(oldMs)} ms**, the whole redaction now: **${fmt(newMs)} ms** (${(oldMs / newMs).toFixed(0)}× less); quadratic, the old one would take about ${fmt((oldMs * 256) / 1000)} s at 256 KiB and ${fmt((oldMs * 65536) / 60000)} min at 4 MiB.`,
  '- past 64 KiB a string is cut (`MAX_TEXT_CHARS`), so 256 KiB and 4 MiB cost what 64 KiB does plus the copy.',
  '',
].join('\n')

console.log(report)
if (values.write) appendFileSync(new URL('RESULTS.md', import.meta.url), `\n${report}`)
