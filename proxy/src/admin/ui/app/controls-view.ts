/**
 * The controls that exist as admin endpoints: the log filter (`GET`/`POST /logging`), a reload
 * (`POST /reload`) and CPU and heap profile downloads (`/debug/pprof/profile`, `/heap`). Each is
 * a same-origin request from this page, which the admin's browser guard (browser-guard.ts)
 * admits and refuses from any other site. Admin address only: the gateway view has none.
 */
import { call, HttpError } from './api.js'
import { h, render } from './dom.js'

/** Starts the page in `root`; `onReloaded` hears a reload that ran (the status page refreshes). */
export function startControls(root: HTMLElement, onReloaded: () => void): void {
  const logResult = h('p', { id: 'log-result', role: 'status' })
  const reloadResult = h('div', { id: 'reload-result', role: 'status' })
  const level = h('input', {
    id: 'log-level',
    name: 'level',
    required: true,
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-describedby': 'log-help',
  }) as HTMLInputElement
  const seconds = h('input', {
    id: 'cpu-seconds',
    type: 'number',
    min: 1,
    max: 300,
    value: 10,
  }) as HTMLInputElement
  const cpuLink = h(
    'a',
    {
      id: 'cpu-profile',
      class: 'button',
      href: '/debug/pprof/profile?seconds=10',
      download: 'gatehouse-cpu.pb.gz',
    },
    'Download CPU profile',
  ) as HTMLAnchorElement
  seconds.addEventListener('input', () => {
    const n = Math.min(300, Math.max(1, Math.round(Number(seconds.value) || 10)))
    cpuLink.href = `/debug/pprof/profile?seconds=${n}`
  })

  const showLevel = async () => {
    try {
      const text = (await call('/logging')).trim()
      logResult.textContent = text
      level.value = text.replace(/^current log level is /, '')
    } catch (err) {
      logResult.textContent = `could not read the log level: ${(err as Error).message}`
    }
  }
  const setLevel = async (e: Event) => {
    e.preventDefault()
    try {
      logResult.textContent = (
        await call(`/logging?level=${encodeURIComponent(level.value)}`, { method: 'POST' })
      ).trim()
    } catch (err) {
      logResult.textContent =
        err instanceof HttpError ? err.body.trim() : `failed: ${(err as Error).message}`
    }
  }
  const reload = async () => {
    render(reloadResult, 'Reloading…')
    let record: { result: string; message: string; at: string }
    try {
      record = JSON.parse(await call('/reload', { method: 'POST' }))
    } catch (err) {
      if (err instanceof HttpError) {
        try {
          record = JSON.parse(err.body)
        } catch {
          render(reloadResult, `reload failed: ${err.body.trim()}`)
          return
        }
      } else {
        render(reloadResult, `reload failed: ${(err as Error).message}`)
        return
      }
    }
    render(
      reloadResult,
      h('p', {}, `Reload: ${record.result}`),
      h('pre', { class: 'wrap' }, record.message),
    )
    onReloaded()
  }

  render(
    root,
    h(
      'section',
      { 'aria-labelledby': 'h-log' },
      h('h2', { id: 'h-log' }, 'Log level'),
      h(
        'form',
        { onsubmit: setLevel },
        h('label', { for: 'log-level' }, 'Log filter'),
        level,
        h('button', { type: 'submit' }, 'Apply'),
      ),
      h(
        'p',
        { id: 'log-help', class: 'hint' },
        'error, warn, info, debug, trace, or per module: info,proxy::httpproxy=trace. Takes effect at once, until restart.',
      ),
      logResult,
    ),
    h(
      'section',
      { 'aria-labelledby': 'h-reload' },
      h('h2', { id: 'h-reload' }, 'Reload'),
      h(
        'p',
        { class: 'hint' },
        'Reads the configuration files again; a configuration that does not validate is refused and the running one stays.',
      ),
      h(
        'button',
        { type: 'button', id: 'reload', onclick: () => void reload() },
        'Reload configuration',
      ),
      reloadResult,
    ),
    h(
      'section',
      { 'aria-labelledby': 'h-profiles' },
      h('h2', { id: 'h-profiles' }, 'Profiles'),
      h('label', { for: 'cpu-seconds' }, 'CPU profile length (seconds, 1–300)'),
      seconds,
      ' ',
      cpuLink,
      ' ',
      h(
        'a',
        {
          id: 'heap-profile',
          class: 'button',
          href: '/debug/pprof/heap',
          download: 'gatehouse-heap.pb.gz',
        },
        'Download heap profile',
      ),
      h('p', { class: 'hint' }, 'gzipped pprof, for go tool pprof or speedscope.'),
    ),
  )
  void showLevel()
}
