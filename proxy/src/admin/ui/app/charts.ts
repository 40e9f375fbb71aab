/**
 * Small line charts of the metrics the traffic page follows (request rate, error rate, latency),
 * drawn as inline SVG: one `<svg role="img">` per series, whose label says the latest value, so a
 * screen reader gets the number the line shows.
 */
import { h } from './dom.js'

/** One chart's series, oldest first (`undefined`: no data at that point). */
export interface Series {
  title: string
  unit: string
  points: ReadonlyArray<number | undefined>
}

const W = 240
const H = 56

/** Formats a value with its unit. */
export function formatValue(value: number | undefined, unit: string): string {
  if (value === undefined) return '—'
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2
  return `${value.toFixed(digits)} ${unit}`
}

/** The chart of a series. */
export function chart(series: Series): HTMLElement {
  const known = series.points.filter((p): p is number => p !== undefined)
  const max = Math.max(1e-9, ...known)
  const step = series.points.length > 1 ? W / (series.points.length - 1) : W
  const coords = series.points
    .map((p, i) =>
      p === undefined
        ? undefined
        : `${(i * step).toFixed(1)},${(H - 4 - (p / max) * (H - 8)).toFixed(1)}`,
    )
    .filter((c): c is string => c !== undefined)
  const latest = series.points.at(-1)
  const label = `${series.title}: ${formatValue(latest, series.unit)} now, up to ${formatValue(known.length ? max : undefined, series.unit)} in the window`
  return h(
    'figure',
    { class: 'chart' },
    h('figcaption', {}, series.title, ' ', h('strong', {}, formatValue(latest, series.unit))),
    h(
      'svg',
      { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': label, preserveAspectRatio: 'none' },
      h('title', {}, label),
      h('line', { x1: 0, y1: H - 4, x2: W, y2: H - 4, class: 'axis' }),
      coords.length > 0 ? h('polyline', { points: coords.join(' '), class: 'line' }) : null,
    ),
  )
}
