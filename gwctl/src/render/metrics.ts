/**
 * Reading the Prometheus text exposition format (0.0.4) that gatehouse serves at `/metrics`, and
 * rendering it as a table a person reads: one row per series, histograms reduced to their count
 * and mean (the raw text stays available with `--raw`).
 */
import { renderTable } from './table.js'

/** One sample line: `name{labels} value`. */
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

/** Parses the exposition text; comment lines and malformed lines are skipped. */
export function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = []
  const types = new Map<string, string>()
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line)
    if (type?.[1] && type[2]) types.set(type[1], type[2])
    if (line === '' || line.startsWith('#')) continue
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line)
    if (!m?.[1] || m[3] === undefined) continue
    const labels: Record<string, string> = {}
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      if (l[1])
        labels[l[1]] = (l[2] ?? '').replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))
    }
    samples.push({ name: m[1], labels, value: Number(m[3]) })
  }
  return { samples, types }
}

function labelText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')
}

function number(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toPrecision(4).replace(/\.?0+$/, '')
}

function duration(seconds: number): string {
  return seconds < 1 ? `${number(seconds * 1000)}ms` : `${number(seconds)}s`
}

/**
 * Renders the samples as `METRIC  LABELS  VALUE` rows, zero-valued series left out.
 * @param filter - keep only metrics whose name contains it.
 */
export function renderMetrics(
  parsed: ReturnType<typeof parseExposition>,
  options: { all?: boolean; filter?: string } = {},
): string {
  const rows: string[][] = []
  const histograms = new Map<string, { name: string; labels: string; count: number; sum: number }>()
  for (const s of parsed.samples) {
    if (!options.all && !s.name.startsWith('gatehouse_')) continue
    const base = s.name.replace(/_(bucket|sum|count)$/, '')
    if (options.filter && !base.includes(options.filter)) continue
    if (parsed.types.get(base) === 'histogram') {
      if (s.name.endsWith('_bucket')) continue
      const labels = labelText(s.labels)
      const key = `${base}\u0000${labels}`
      const h = histograms.get(key) ?? { name: base, labels, count: 0, sum: 0 }
      if (s.name.endsWith('_count')) h.count = s.value
      else h.sum = s.value
      histograms.set(key, h)
      continue
    }
    if (s.value === 0) continue
    rows.push([s.name, labelText(s.labels), number(s.value)])
  }
  for (const h of histograms.values()) {
    if (h.count === 0) continue
    const seconds = h.name.endsWith('_seconds')
    const mean = h.sum / h.count
    rows.push([
      h.name,
      h.labels,
      `count=${h.count} mean=${seconds ? duration(mean) : number(mean)}`,
    ])
  }
  return renderTable(['METRIC', 'LABELS', 'VALUE'], rows)
}
