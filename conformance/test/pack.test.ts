/**
 * The suite as a product (conformance/README.md): packed, installed with `npm install --offline`
 * into an empty folder outside this repository (packed.ts), and run from there — `--version`,
 * `--help`, usage errors, the embedded reference stack (mock IdP, MCP backend and gatehouse, all
 * from the package), `--target` against a gatehouse started separately from this checkout, and
 * `client --command` with the package's sample client. The JSON reports it writes validate
 * against the schema it ships, and its HTML report renders in Chromium with a sequence diagram
 * per client scenario.
 */
import { readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, hasChromium, launchChromium } from '../../ci/chromium.js'
import {
  type Fixtures,
  ROOT,
  type RunningGateway,
  startFixtures,
  startGateway,
} from '../src/stack.js'
import { type Installed, packAndInstall, pathsLeaving } from './packed.js'
import { reportSchemaErrors } from './report-schema.js'

/** Checks that need only the target (not the IdP that the installed tool starts for it). */
const TARGET_ONLY = [
  'AUTH-001',
  'AUTH-002',
  'AUTH-003',
  'AUTH-004',
  'PRM-001',
  'PRM-002',
  'PRM-003',
  'PRM-004',
  'PRM-005',
  'AUTH-023',
  'CORS-001',
  'CORS-002',
  'CORS-003',
  'CORS-005',
  'CORS-006',
]

/**
 * Client scenarios the sample client (a 2025-11-25 SDK client) runs here: each IdP shape, a step-up
 * and a refresh — a few, to keep the run short; conformance/test/client/clients.test.ts runs it
 * through every scenario from the sources.
 */
const SAMPLE_SCENARIOS = ['bridged-client-id', 'standards-idp', 'scope-step-up', 'token-refresh']

let pkg: Installed
let installed: string
let fixtures: Fixtures
let gateway: RunningGateway

beforeAll(async () => {
  pkg = await packAndInstall()
  installed = join(pkg.app, 'node_modules/@gatehouse/conformance')
  // The reference proxy from this checkout, started apart from the installed tool: the target.
  fixtures = await startFixtures()
  gateway = await startGateway(fixtures)
}, 300_000)

afterAll(async () => {
  await gateway?.stop()
  await fixtures?.stop()
  if (pkg) rmSync(pkg.dir, { recursive: true, force: true })
})

/** A JSON report the installed tool wrote, checked against the schema the package ships. */
function validReport(file: string): { summary: { failed: number }; results: unknown[] } {
  const report = JSON.parse(readFileSync(file, 'utf8'))
  expect(reportSchemaErrors(report, join(installed, 'report.schema.json'))).toEqual([])
  return report
}

describe('the packed conformance package', () => {
  it('holds the launcher, the build, the report schema, README and LICENSE: no sources, mutants or Stryker', async () => {
    const { stdout } = await pkg.exec('tar', ['-tzf', pkg.tarball])
    const files = stdout.split('\n').filter(Boolean)
    expect(files).toEqual(
      expect.arrayContaining([
        'package/bin/gatehouse-conformance.js',
        'package/dist/conformance.js',
        'package/dist/gatehouse.js',
        'package/report.schema.json',
        'package/LICENSE',
      ]),
    )
    const unexpected = files.filter(
      (f) =>
        !/^package\/(README\.md|LICENSE|package\.json|report\.schema\.json|bin\/gatehouse-conformance\.js|dist\/.+\.js)$/.test(
          f,
        ),
    )
    expect(unexpected).toEqual([])
    expect(files.filter((f) => /mutant|stryker|\.ts$/i.test(f))).toEqual([])
  })

  it('is publishable: not private, licensed, no dependencies to fetch', () => {
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'))
    expect(manifest.private).toBeUndefined()
    expect(manifest.license).toBe('Apache-2.0')
    expect(manifest.dependencies ?? {}).toEqual({})
    expect(manifest.bin).toEqual({ 'gatehouse-conformance': 'bin/gatehouse-conformance.js' })
  })

  it('installs alone, offline, with no link into the repository', () => {
    expect(readdirSync(join(pkg.app, 'node_modules')).sort()).toEqual([
      '.bin',
      '.package-lock.json',
      '@gatehouse',
    ])
    expect(readdirSync(join(pkg.app, 'node_modules/@gatehouse'))).toEqual(['conformance'])
    expect(pathsLeaving(pkg.app)).toEqual([])
    expect(pkg.app.startsWith(ROOT)).toBe(false)
  })
})

describe('gatehouse-conformance, installed in an empty folder', () => {
  it('--version prints the package version, run as the README says: npx gatehouse-conformance', {
    timeout: 60_000,
  }, async () => {
    const version = JSON.parse(readFileSync(join(ROOT, 'conformance/package.json'), 'utf8'))
      .version as string
    const r = await pkg.npx(['--version'])
    expect(r.stdout.trim()).toBe(version)
    expect(r.code).toBe(0)
  })

  it('--help shows both modes with an example each', { timeout: 60_000 }, async () => {
    const r = await pkg.conformance(['--help'])
    expect(r.stdout).toContain('Usage: gatehouse-conformance')
    expect(r.stdout).toMatch(/Test my server[^\n]*\n\s+gatehouse-conformance --target http/)
    expect(r.stdout).toMatch(
      /Test my client[^\n]*\n[^\n]*\n\s+gatehouse-conformance client --command/,
    )
    expect(r.code).toBe(0)
  })

  it('says what is wrong with bad arguments in a line or two, with no stack trace, and exits 2', async () => {
    for (const args of [
      ['--profile', 'nope'],
      ['--target', 'not a url'],
    ]) {
      const r = await pkg.conformance(args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr).toMatch(/^(error|gatehouse-conformance): /m)
      // A stack frame: `    at fn (file:line:col)`.
      expect(r.stderr).not.toMatch(/^\s+at .*:\d+:\d+\)?$/m)
    }
    const client = await pkg.conformance(['client'])
    expect(client.code).toBe(2)
    expect(client.stderr).toContain('--command is required')
  }, 180_000)

  it('judges the embedded reference stack, carried by the package: every profile passes', async () => {
    const report = join(pkg.dir, 'embedded.json')
    const r = await pkg.conformance(['--json', report])
    expect(r.code, r.stderr + r.stdout.slice(-3000)).toBe(0)
    expect(r.stdout).toContain('embedded reference proxy (gatehouse')
    expect(r.stdout.match(/^ {2}FAIL .*$/gm) ?? []).toEqual([])
    expect(r.stdout).toMatch(/^\d{2,} passed, 0 failed, 0 skipped$/m)
    for (const profile of ['core', 'bridged-idp', 'flow', 'cors', 'admin', 'broker', 'tls'])
      expect(r.stdout).toContain(`[${profile}]`)
    expect(validReport(report).summary.failed).toBe(0)
  }, 300_000)

  it('judges a gatehouse started separately with --target, and passes the checks that need only the target', async () => {
    const report = join(pkg.dir, 'target.json')
    const r = await pkg.conformance([
      '--target',
      gateway.target.base,
      '--configured-base',
      gateway.target.configuredBase,
      '--yes',
      '--only',
      TARGET_ONLY.join(','),
      '--json',
      report,
    ])
    expect(r.stdout).toContain(`Gatehouse conformance — target ${gateway.target.base}`)
    expect(r.stdout).toContain(`${TARGET_ONLY.length} passed, 0 failed`)
    expect(r.code).toBe(0)
    const passed = (validReport(report).results as Array<{ id: string; status: string }>)
      .filter((x) => x.status === 'passed')
      .map((x) => x.id)
    expect(passed.sort()).toEqual([...TARGET_ONLY].sort())
  }, 120_000)

  it('fails with exit 1, saying what it expected, when the gateway does not conform', async () => {
    // The gateway's resource is not at this base: its metadata and challenge must say so.
    const r = await pkg.conformance([
      '--target',
      gateway.target.base,
      '--configured-base',
      'http://elsewhere.example:1',
      '--yes',
      '--only',
      'AUTH-002,PRM-001',
    ])
    expect(r.stdout).toContain('FAIL AUTH-002')
    expect(r.stdout).toContain(
      'resource_metadata="http://elsewhere.example:1/.well-known/oauth-protected-resource/mcp"',
    )
    expect(r.stdout).toContain('0 passed, 2 failed')
    expect(r.code).toBe(1)
  }, 120_000)

  it('judges the sample client with client --command: every requirement it reaches passes', async () => {
    const report = join(pkg.dir, 'client.json')
    const html = join(pkg.dir, 'client.html')
    const sample = `${join(pkg.app, 'node_modules/.bin/gatehouse-conformance')} sample-client`
    const r = await pkg.conformance([
      'client',
      '--command',
      sample,
      '--spec-version',
      '2025-11-25',
      '--scenario',
      SAMPLE_SCENARIOS.join(','),
      '--json',
      report,
      '--html',
      html,
    ])
    expect(r.code, r.stderr + r.stdout.slice(-3000)).toBe(0)
    expect(r.stdout.match(/^ {2}FAIL .*$/gm) ?? []).toEqual([])
    expect(r.stdout).toMatch(/^\d+ passed, 0 failed, \d+ skipped$/m)
    const json = validReport(report) as { runs?: Array<{ scenario: string; exitCode: number }> }
    expect(json.runs?.map((x) => [x.scenario, x.exitCode]).sort()).toEqual(
      SAMPLE_SCENARIOS.map((s) => [s, 0]).sort(),
    )
    // The HTML report the installed tool wrote renders in Chromium: a sequence diagram of the
    // recorded traffic for each scenario, each with at least one request.
    if (!hasChromium())
      throw new Error(`no Chromium at ${chromiumPath()}: npm run setup:test-tools`)
    const browser = await launchChromium()
    try {
      const page = await browser.newPage()
      await page.goto(pathToFileURL(html).href)
      await expect(page.locator('.verdict-line').textContent()).resolves.toMatch(/^PASS/)
      const diagrams = page.locator('svg.sequence')
      expect(await diagrams.count()).toBe(SAMPLE_SCENARIOS.length)
      for (let i = 0; i < SAMPLE_SCENARIOS.length; i++) {
        expect(await diagrams.nth(i).locator('g.step').count()).toBeGreaterThan(0)
        expect(await diagrams.nth(i).isVisible()).toBe(true)
      }
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('says in one line that the reference proxy is missing when the package lost it, with no stack trace', async () => {
    const proxy = join(installed, 'dist/gatehouse.js')
    renameSync(proxy, `${proxy}.gone`)
    try {
      const r = await pkg.conformance(['--only', 'AUTH-001'])
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(
        /^gatehouse-conformance: the reference proxy is missing: .*--target/m,
      )
      expect(r.stderr).not.toMatch(/^\s+at .*:\d+:\d+\)?$/m)
    } finally {
      renameSync(`${proxy}.gone`, proxy)
    }
  }, 120_000)
})
