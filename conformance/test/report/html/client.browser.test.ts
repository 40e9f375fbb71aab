/**
 * The client mode's HTML report in real Chromium: the hand-written client with a planted fault
 * (it sends its access token in the query: CLI-TOKEN-001) is run through a real scenario by the
 * real bin with `--html`; the page renders, draws the scenario's sequence diagram, highlights the
 * request that broke the requirement, and loads nothing from anywhere.
 *
 * `UPDATE_SCREENSHOTS=1` writes the screenshots docs/client-testing.md shows (docs/images/).
 * Needs Chromium (`npm run setup:test-tools`); without one the suite is reported as skipped.
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, hasChromium, launchChromium } from '../../../../ci/chromium.js'
import { ROOT } from '../../../src/stack.js'
import { conformance, HAND } from './run-bin.js'

const IMAGES = join(ROOT, 'docs/images')
const RED = 'rgb(198, 40, 40)'

const SUITE = hasChromium()
  ? 'the client-mode HTML report in Chromium'
  : `the client-mode HTML report in Chromium (skipped: no Chromium at ${chromiumPath()}; npm run setup:test-tools)`

describe.skipIf(!hasChromium())(SUITE, () => {
  let file: string
  let html: string
  let run: Awaited<ReturnType<typeof conformance>>
  let browser: Browser
  let page: Page
  const requested: string[] = []

  beforeAll(async () => {
    file = join(mkdtempSync(join(tmpdir(), 'html-client-')), 'report.html')
    run = await conformance([
      'client',
      '--command',
      `${HAND} --fault token-in-query`,
      '--scenario',
      'bridged-client-id',
      '--html',
      file,
    ])
    html = readFileSync(file, 'utf8')
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1100, height: 900 } })
    page.on('request', (r) => {
      requested.push(r.url())
    })
    await page.goto(pathToFileURL(file).href)
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
  })

  it('renders the report of the failed run: verdict, summary, the scenario and its diagram', async () => {
    expect(run.code).toBe(1)
    await expect(page.locator('h1').textContent()).resolves.toContain(
      'Gatehouse conformance report',
    )
    await expect(page.locator('.verdict-line').textContent()).resolves.toMatch(/^FAIL — \d+ MUST/)
    await expect(page.locator('table.summary a').first().textContent()).resolves.toBe(
      'bridged-client-id',
    )
    const svg = page.locator('#g--bridged-client-id svg.sequence')
    expect(await svg.isVisible()).toBe(true)
    expect((await svg.boundingBox())?.height).toBeGreaterThan(300)
    // Every recorded request is a step: the console's request count.
    const requests = Number(/bridged-client-id\s+\S+\s+\S+ s\s+(\d+)/.exec(run.stdout)?.[1])
    expect(await svg.locator('g.step').count()).toBe(requests)
  })

  it('highlights the request that sent the token in the query, in red, naming CLI-TOKEN-001', async () => {
    const failing = page.locator('svg.sequence g.step.failing[data-failing~="CLI-TOKEN-001"]')
    expect(await failing.count()).toBe(1)
    await expect(failing.locator('.label').textContent()).resolves.toMatch(
      /^POST \/mcp\?access_token=\[redacted\]/,
    )
    await expect(failing.locator('.marks').textContent()).resolves.toContain('CLI-TOKEN-001 MUST')
    expect(await failing.locator('.highlight').isVisible()).toBe(true)
    // The test's tsconfig has no DOM lib: the page's own function, typed here.
    type Styled = { getComputedStyle(el: unknown): { stroke: string } }
    const stroke = (l: ReturnType<Page['locator']>) =>
      l.evaluate((el) => (globalThis as unknown as Styled).getComputedStyle(el).stroke)
    expect(await stroke(failing.locator('line.ask'))).toBe(RED)
    // A step before it, the first 401, is drawn plainly.
    const first = page.locator('svg.sequence g.step[data-seq="1"]')
    expect(await first.getAttribute('class')).not.toContain('failing')
    expect(await stroke(first.locator('line.ask'))).not.toBe(RED)
    // The failure's card points at the same step.
    const seq = await failing.getAttribute('data-seq')
    await expect(
      page
        .locator('[id="f--bridged-client-id--cli-token-001"] details.evidence summary')
        .textContent(),
    ).resolves.toContain(`step #${seq} of the diagram`)
  })

  it('loads nothing but the file, and shows no token', async () => {
    expect(requested).toEqual([pathToFileURL(file).href])
    // A JWT (RFC 7515 §7.1 compact serialization) would start with a base64url `{"`.
    expect(html).not.toMatch(/eyJ[\w-]{8,}\.[\w-]{8,}\./)
    expect(html).toContain('access_token=[redacted]')
  })

  it.runIf(process.env.UPDATE_SCREENSHOTS === '1')(
    'writes the screenshots docs/client-testing.md shows',
    async () => {
      await page.screenshot({ path: join(IMAGES, 'conformance-html-report.png') })
      await page
        .locator('#g--bridged-client-id svg.sequence')
        .screenshot({ path: join(IMAGES, 'conformance-html-diagram.png') })
      await page
        .locator('[id="f--bridged-client-id--cli-token-001"]')
        .screenshot({ path: join(IMAGES, 'conformance-html-failure.png') })
      expect(readFileSync(join(IMAGES, 'conformance-html-diagram.png')).length).toBeGreaterThan(
        1000,
      )
    },
  )
})
