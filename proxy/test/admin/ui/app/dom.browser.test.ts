/**
 * The UI's view helpers (proxy/src/admin/ui/app/dom.ts) in Chromium, bundled on the fly: text is
 * always text (a value the proxy reports cannot inject markup), tables carry a caption and
 * header cells, badges say their status, and a chart's label reads its latest value.
 */
import { build } from 'esbuild'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, hasChromium, launchChromium } from '../../../../../ci/chromium.js'

const SUITE = hasChromium()
  ? 'UI view helpers (Chromium)'
  : `UI view helpers (skipped: no Chromium at ${chromiumPath()})`

describe.skipIf(!hasChromium())(SUITE, () => {
  let browser: Browser
  let script: string
  beforeAll(async () => {
    browser = await launchChromium()
    const out = await build({
      stdin: {
        contents: "import * as dom from './dom.ts'; (globalThis as any).dom = dom",
        resolveDir: new URL('../../../../src/admin/ui/app/', import.meta.url).pathname,
        loader: 'ts',
      },
      bundle: true,
      write: false,
      format: 'iife',
    })
    script = out.outputFiles[0]?.text ?? ''
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
  })

  it('renders text as text, tables with captions, badges and labelled charts', async () => {
    const page = await browser.newPage()
    await page.setContent('<!doctype html><body></body>')
    await page.addScriptTag({ content: script })
    // Runs in the page (DOM types are the page's, not this program's).
    const result = await page.evaluate(`(() => {
      const dom = globalThis.dom
      const evil = '<img src=x onerror="window.pwned=1">'
      const t = dom.table('Policies', ['Name', 'Status'], [[evil, dom.badge('False')]])
      dom.render(
        document.body,
        dom.h('p', { id: 'p', 'data-x': evil }, evil, 3, null, ['a', false]),
        t,
      )
      document.body.append(
        dom.chart({ title: 'Requests', unit: '/s', points: [1, undefined, 2.5] }),
      )
      return {
        text: document.getElementById('p')?.textContent,
        imgs: document.querySelectorAll('img').length,
        caption: document.querySelector('caption')?.textContent,
        th: [...document.querySelectorAll('th')].map((e) => e.getAttribute('scope')),
        badge: document.querySelector('.badge')?.className,
        chart: document.querySelector('svg')?.getAttribute('aria-label'),
        line: document.querySelector('polyline')?.getAttribute('points'),
      }
        })()`)
    expect(result).toEqual({
      text: '<img src=x onerror="window.pwned=1">3a',
      imgs: 0,
      caption: 'Policies',
      th: ['col', 'col'],
      badge: 'badge bad',
      chart: 'Requests: 2.50 /s now, up to 2.50 /s in the window',
      line: '0.0,32.8 240.0,4.0',
    })
    await page.close()
  })
})
