import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  END,
  paragraphIn,
  performanceParagraph,
  START,
  withParagraph,
} from '../readme-paragraph.js'

const root = new URL('../../', import.meta.url)
const read = (path: string) => readFileSync(new URL(path, root), 'utf8')

/** A RESULTS.md with a memory section per date (the idle RSS and the per-stream figure given). */
function results(...runs: Array<[string, number, number]>): string {
  return runs
    .map(
      ([date, idle, perStream]) => `
## ${date} — memory and streams: 5000 SSE streams, Node v22, 2 cores

| RSS of the process tree (MiB) | before | 2000 streams | KiB/stream | 5000 streams | KiB/stream | alive | after they closed |
|---|---:|---:|---:|---:|---:|---:|---:|
| gatehouse | 119.1 | 168.0 | **25.0** | 239.0 | **${perStream}** | 5000/5000 | 270.7 after 30 s (not back) |

| idle RSS (MiB) | gatehouse, demo configuration, started | after 10 discoveries and 10 401s | nginx, 1 worker | HAProxy |
|---|---:|---:|---:|---:|
| | **${idle}** | 101.6 | 15.3 | 14.8 |
`,
    )
    .join('\n')
}

describe('the README performance paragraph', () => {
  it('is the one bench/RESULTS.md gives (npm run bench:readme writes it)', () => {
    expect(paragraphIn(read('README.md'))).toBe(performanceParagraph(read('bench/RESULTS.md')))
  })

  it('takes each figure from the latest section that has it', () => {
    const text = performanceParagraph(
      results(['2026-11-01', 100.6, 24.6], ['2026-11-02', 88.4, 21.3]),
    )
    expect(text).toContain('Idle RSS with the demo configuration 88.4 MiB (2026-11-02')
    expect(text).toContain('RSS per held SSE stream 21.3 KiB at 5,000 streams (2026-11-02')
    expect(text).not.toContain('100.6')
  })

  it('gives the CPU goals as the span over the ways measured, with the load average', () => {
    const text = performanceParagraph(`
## 2026-11-03 — side by side: 3s per target, Node v22, 2 cores

Load average (1, 5, 15 min) before the run: 14.95, 16.26, 12.88; after each way: …

| goal (CPU per request) | Node 22, pinned | Node 24, unpinned |
|---|---:|---:|
| gatehouse, no auth ≤ 1.3× Node floor (node:http + undici) | 1.75× **missed** (+34 %) | 1.20× met |
`)
    expect(text).toContain(
      'CPU per request (2026-11-03, Node 22, pinned; Node 24, unpinned; load average 14.95)',
    )
    expect(text).toContain('no auth against the Node floor (goal ≤ 1.3×) 1.20–1.75×')
  })

  it('gives the RSS under load and 30 s after it, with the Node it ran on', () => {
    const text = performanceParagraph(`
## 2026-11-04 — memory under load and after: gatehouse alone, Node v22, 2 cores

| gatehouse RSS (MiB), Node 24 | value | CPU µs/request |
|---|---:|---:|
| before the load (5 s after start) | 81.3 | |
| 30 s after the load | 117.6 | |

- under 50 connections ≤ 150 MiB: **missed** (highest 284.0 MiB)
`)
    expect(text).toContain(
      'RSS under 50 connections at most 284.0 MiB (goal ≤ 150 MiB on Node 22), 117.6 MiB 30 s after the load against 81.3 MiB before it (goal: within 10 %; 2026-11-04, Node 24).',
    )
  })

  it('gives the CPU per request of the most routes against one route, from bench:scale', () => {
    const text = performanceParagraph(`
## bench:scale, per request — 2026-11-05, Node 22, 2 cores

| what grows | size | CPU µs/request | × smallest | p99 ms | × smallest | req/s | RSS MiB | KiB per added unit |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
| routes, PathPrefix | 1 | 100.0 | 1.00 | 5 | 1.00 | 9000 | 80 | – |
| routes, PathPrefix | 10000 | 104.0 | 1.04 | 6 | 1.20 | 8800 | 250 | 17.0 |
| routes, Exact | 1 | 100.0 | 1.00 | 5 | 1.00 | 9000 | 80 | – |
`)
    expect(text).toContain(
      '10,000 PathPrefix routes cost 1.04× the CPU per request of one route (goal ≤ 1.1×) and 1.20× its p99 (2026-11-05).',
    )
  })

  it('is written between the markers, replacing the previous one', () => {
    const readme = `# x\n\n${START}\nold\n${END}\n\nrest\n`
    const next = withParagraph(readme, 'new')
    expect(paragraphIn(next)).toBe('new')
    expect(next).toContain('rest')
    expect(next).not.toContain('old')
  })

  it('refuses a README without the markers', () => {
    expect(() => withParagraph('# x\n', 'new')).toThrow(/no .* markers/)
  })
})
