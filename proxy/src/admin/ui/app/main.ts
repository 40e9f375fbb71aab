/**
 * The admin web UI's entry (bundled by `npm run build` into `proxy/dist/ui/app.js`): a header
 * with the views as links (`#status`, `#traffic`, `#debugger`, `#controls`; plain links, so the
 * keyboard and the back button work), a light/dark/system theme switch, and the view of the hash.
 * On a gateway (`ui.gateway`) only the read-only views exist.
 */
import { getJson, type PageInfo } from './api.js'
import { startControls } from './controls-view.js'
import { runCallback, startDebugger } from './debugger-view.js'
import { h, render } from './dom.js'
import { renderStatus, type StatusDocument } from './status-view.js'
import { startTraffic } from './traffic-view.js'

const STATUS_POLL_MS = 3_000

/** Reads the page's `data-` attributes. */
function pageInfo(): PageInfo {
  const d = document.body.dataset
  const mode = d.mode === 'gateway' || d.mode === 'callback' ? d.mode : 'admin'
  return { mode, base: d.base ?? '/ui', version: d.version ?? '', trace: d.trace === '1' }
}

type View = 'status' | 'traffic' | 'debugger' | 'controls'

const TITLES: Record<View, string> = {
  status: 'Status',
  traffic: 'Traffic',
  debugger: 'OAuth flow debugger',
  controls: 'Controls',
}

/** The theme switch: system, light or dark, remembered in this browser. */
function themeSwitch(): HTMLElement {
  const saved = localStorage.getItem('gatehouse-theme') ?? 'system'
  const apply = (theme: string) => {
    if (theme === 'system') delete document.documentElement.dataset.theme
    else document.documentElement.dataset.theme = theme
  }
  apply(saved)
  const select = h(
    'select',
    {
      id: 'theme',
      onchange: (e: Event) => {
        const theme = (e.target as HTMLSelectElement).value
        localStorage.setItem('gatehouse-theme', theme)
        apply(theme)
      },
    },
    ...['system', 'light', 'dark'].map((t) => h('option', { value: t, selected: t === saved }, t)),
  )
  return h('div', { class: 'theme' }, h('label', { for: 'theme' }, 'Theme'), select)
}

function main(): void {
  const page = pageInfo()
  if (page.mode === 'callback') {
    runCallback()
    return
  }
  const views: View[] =
    page.mode === 'admin' ? ['status', 'traffic', 'debugger', 'controls'] : ['status', 'traffic']
  const nav = h(
    'nav',
    { 'aria-label': 'Views' },
    h(
      'ul',
      {},
      ...views.map((v) => h('li', {}, h('a', { href: `#${v}`, id: `nav-${v}` }, TITLES[v]))),
    ),
  )
  const heading = h('h1', {}, page.mode === 'admin' ? 'gatehouse admin' : 'gatehouse status')
  const sub = h(
    'p',
    { class: 'meta' },
    page.mode === 'admin'
      ? `version ${page.version}. No authentication: whoever reaches this address controls the proxy. Keep it on loopback.`
      : `version ${page.version}. Read-only: names and conditions, no configuration values.`,
  )
  const main = h('main', { id: 'view', tabindex: -1 })
  render(document.body, h('header', {}, h('div', {}, heading, sub), themeSwitch(), nav), main)

  let stop: (() => void) | undefined
  let refreshStatus: (() => void) | undefined
  const show = () => {
    const wanted = location.hash.slice(1) as View
    const view = views.includes(wanted) ? wanted : 'status'
    stop?.()
    stop = undefined
    refreshStatus = undefined
    for (const v of views) {
      const link = document.getElementById(`nav-${v}`)
      if (v === view) link?.setAttribute('aria-current', 'page')
      else link?.removeAttribute('aria-current')
    }
    document.title = `${TITLES[view]} · ${page.mode === 'admin' ? 'gatehouse admin' : 'gatehouse status'}`
    const section = h('section', { 'aria-labelledby': 'view-title', id: `view-${view}` })
    render(main, h('h2', { id: 'view-title', class: 'view-title' }, TITLES[view]), section)
    if (view === 'status') {
      const load = () =>
        getJson<StatusDocument>(page.mode === 'admin' ? '/config_dump' : `${page.base}/status.json`)
          .then((doc) => renderStatus(section, doc, page.mode !== 'admin'))
          .catch((err: Error) =>
            render(section, h('p', { role: 'alert' }, `status unavailable: ${err.message}`)),
          )
      void load()
      const timer = setInterval(() => void load(), STATUS_POLL_MS)
      refreshStatus = () => void load()
      stop = () => clearInterval(timer)
    } else if (view === 'traffic') {
      stop = startTraffic(section, page)
    } else if (view === 'debugger') {
      startDebugger(section, page)
    } else {
      startControls(section, () => refreshStatus?.())
    }
  }
  window.addEventListener('hashchange', () => {
    show()
    main.focus()
  })
  show()
}

main()
