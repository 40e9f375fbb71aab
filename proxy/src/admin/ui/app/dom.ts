/**
 * The UI's whole view layer: `h()` builds an element from a tag, attributes and children, and a
 * view re-renders its section by replacing the children. Plain DOM rather than a view library:
 * the pages are a few tables and forms redrawn every few seconds, which this does in 60 lines,
 * with no dependency to ship, audit or keep up to date, and text always set as text (never HTML),
 * so nothing the proxy reports can inject markup. The traffic page's small line charts are inline
 * SVG built the same way: one `<svg role="img">` per series, whose label says the latest value.
 */

/** A child: an element, text, or nothing (skipped). */
export type Child = Node | string | number | false | null | undefined | readonly Child[]

/** Attributes: `on*` take a listener, `class`, `for`, `aria-*`, `data-*` and the rest a string. */
export type Attrs = Record<string, string | number | boolean | EventListener | undefined | null>

/** Creates an element (`svg`-namespaced for SVG tags). */
export function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  const svg = SVG_TAGS.has(tag)
  const el = svg
    ? (document.createElementNS('http://www.w3.org/2000/svg', tag) as unknown as HTMLElement)
    : document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue
    if (typeof value === 'function') el.addEventListener(name.slice(2).toLowerCase(), value)
    else el.setAttribute(name, value === true ? '' : String(value))
  }
  append(el, children)
  return el
}

const SVG_TAGS = new Set(['svg', 'path', 'polyline', 'line', 'rect', 'text', 'title', 'g'])

/** Appends children, flattening arrays and turning strings into text nodes. */
export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue
    if (Array.isArray(child)) append(parent, child)
    else if (child instanceof Node) parent.appendChild(child)
    else parent.appendChild(document.createTextNode(String(child)))
  }
}

/** Replaces an element's children. */
export function render(parent: Element, ...children: Child[]): void {
  parent.replaceChildren()
  append(parent, children)
}

/** A table with a caption, header row and body rows (wrapped so it scrolls on a narrow screen). */
export function table(
  caption: string,
  head: readonly string[],
  rows: readonly Child[][],
): HTMLElement {
  return h(
    'div',
    { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': caption },
    h(
      'table',
      {},
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, ...head.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((c) => h('td', {}, c))))),
    ),
  )
}

/** A condition's status as a badge: True (ok), False (bad), anything else (unknown). */
export function badge(status: string, label: string = status): HTMLElement {
  const kind = status === 'True' ? 'ok' : status === 'False' ? 'bad' : 'unknown'
  return h('span', { class: `badge ${kind}` }, label)
}

/** One chart's series, oldest first (`undefined`: no data at that point). */
export interface Series {
  title: string
  unit: string
  points: ReadonlyArray<number | undefined>
}

const CHART_W = 240
const CHART_H = 56

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
  const step = series.points.length > 1 ? CHART_W / (series.points.length - 1) : CHART_W
  const coords = series.points
    .map((p, i) =>
      p === undefined
        ? undefined
        : `${(i * step).toFixed(1)},${(CHART_H - 4 - (p / max) * (CHART_H - 8)).toFixed(1)}`,
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
      {
        viewBox: `0 0 ${CHART_W} ${CHART_H}`,
        role: 'img',
        'aria-label': label,
        preserveAspectRatio: 'none',
      },
      h('title', {}, label),
      h('line', { x1: 0, y1: CHART_H - 4, x2: CHART_W, y2: CHART_H - 4, class: 'axis' }),
      coords.length > 0 ? h('polyline', { points: coords.join(' '), class: 'line' }) : null,
    ),
  )
}
