/**
 * The suite as a tool other gateway authors install: `npm pack -w conformance`, installed with
 * `npm install <tarball>` into an empty directory (dependencies from the npm registry, nothing
 * from this repository), then `npx gatehouse-conformance --target <url>` judges a running gateway.
 * The package holds the suite alone: no proxy internals, no mutants, no Stryker (docs/design/layering.md).
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BUNDLES, buildOptions } from '../../scripts/build-config.js'
import {
  type Fixtures,
  ROOT,
  type RunningGateway,
  startFixtures,
  startGateway,
} from '../src/stack.js'

const run = promisify(execFile)

/** The environment without npm's own variables, so that npm in the temporary directory does not
 * inherit this repository's prefix or workspace from an enclosing `npm test`. */
const env = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
)

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

let dir: string
let tarball: string
let app: string
let fixtures: Fixtures
let gateway: RunningGateway

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-pack-'))
  // prepack builds conformance/dist first.
  await run('npm', ['pack', '-w', 'conformance', '--pack-destination', dir], { cwd: ROOT, env })
  const tarballs = readdirSync(dir).filter((f) => f.endsWith('.tgz'))
  expect(tarballs).toEqual([expect.stringMatching(/^gatehouse-conformance-.*\.tgz$/)])
  const filename = tarballs[0] as string
  tarball = join(dir, filename)
  app = join(dir, 'app')
  mkdirSync(app)
  writeFileSync(join(app, 'package.json'), '{ "name": "app", "private": true }\n')
  await run('npm', ['install', '--no-audit', '--no-fund', join(dir, filename)], { cwd: app, env })
  // The reference proxy, from this repository, as the gateway under test.
  fixtures = await startFixtures()
  gateway = await startGateway(fixtures)
}, 240_000)

afterAll(async () => {
  await gateway?.stop()
  await fixtures?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** `npx -- gatehouse-conformance …` in the installed directory (`--` keeps npx from taking `--json`
 * and `--only` for itself); `--no`: never fetched from the registry. */
async function conformance(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run('npx', ['--no', '--', 'gatehouse-conformance', ...args], {
      cwd: app,
      env,
      timeout: 120_000,
    })
    return { code: 0, stdout: r.stdout, stderr: r.stderr }
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string }
    return {
      code: typeof e.code === 'number' ? e.code : -1,
      stdout: e.stdout ?? '',
      stderr: e.stderr ?? '',
    }
  }
}

describe('the packed conformance package', () => {
  it('holds the launcher, the build, README and package.json: no sources, mutants or Stryker', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball])
    const files = stdout.split('\n').filter(Boolean)
    expect(files).toContain('package/bin/gatehouse-conformance.js')
    expect(files).toContain('package/dist/conformance.js')
    const unexpected = files.filter(
      (f) =>
        !/^package\/(README\.md|package\.json|bin\/gatehouse-conformance\.js|dist\/.+\.js)$/.test(
          f,
        ),
    )
    expect(unexpected).toEqual([])
    expect(files.filter((f) => /mutant|stryker|proxy|\.ts$/i.test(f))).toEqual([])
  })

  it('bundles only the suite and the workspaces it speaks through: nothing of proxy/, mutation/ or scripts/', async () => {
    // The build the package ships, with esbuild's record of every source file it inlined.
    const bundle = BUNDLES.find((b) => b.workspace === 'conformance')
    if (!bundle) throw new Error('scripts/build-config.ts has no conformance bundle')
    const { metafile } = await build({ ...buildOptions(bundle), write: false, metafile: true })
    const workspaces = new Set(Object.keys(metafile.inputs).map((path) => path.split('/')[0]))
    expect([...workspaces].sort()).toEqual([
      'conformance',
      'mock-idp',
      'mock-mcp',
      'redact',
      'support',
    ])
  })

  it('starts from the installed package: --help lists the options', async () => {
    const r = await conformance(['--help'])
    expect(r.stdout).toContain('--target')
    expect(r.code).toBe(0)
  })
})

describe('gatehouse-conformance, packed and installed in an empty directory', () => {
  it('installs the suite alone: its build and npm packages, no @gatehouse workspace', () => {
    expect(readdirSync(join(app, 'node_modules/@gatehouse'))).toEqual(['conformance'])
    const installed = JSON.parse(
      readFileSync(join(app, 'node_modules/@gatehouse/conformance/package.json'), 'utf8'),
    ) as { dependencies: Record<string, string> }
    expect(Object.keys(installed.dependencies).filter((d) => d.startsWith('@gatehouse/'))).toEqual(
      [],
    )
    expect(readdirSync(join(app, 'node_modules/@gatehouse/conformance')).sort()).toEqual([
      'README.md',
      'bin',
      'dist',
      'package.json',
    ])
  })

  it('judges a running gateway with --target and passes the checks that need only the target', async () => {
    const report = join(dir, 'report.json')
    const r = await conformance([
      '--target',
      gateway.target.base,
      '--configured-base',
      gateway.target.configuredBase,
      '--no-wait',
      '--only',
      TARGET_ONLY.join(','),
      '--json',
      report,
    ])
    expect(r.stdout).toContain(`Gatehouse conformance — target ${gateway.target.base}`)
    expect(r.stdout).toContain(`${TARGET_ONLY.length} passed, 0 failed`)
    expect(r.code).toBe(0)
    const json = JSON.parse(readFileSync(report, 'utf8')) as {
      results: Array<{ id: string; status: string }>
    }
    const passed = json.results.filter((x) => x.status === 'passed').map((x) => x.id)
    expect(passed.sort()).toEqual([...TARGET_ONLY].sort())
  })

  it('fails with exit 1, saying what it expected, when the gateway does not conform', async () => {
    // The gateway's resource is not at this base: its metadata and challenge must say so.
    const r = await conformance([
      '--target',
      gateway.target.base,
      '--configured-base',
      'http://elsewhere.example:1',
      '--no-wait',
      '--only',
      'AUTH-002,PRM-001',
    ])
    expect(r.stdout).toContain('FAIL AUTH-002')
    expect(r.stdout).toContain(
      'resource_metadata="http://elsewhere.example:1/.well-known/oauth-protected-resource/mcp"',
    )
    expect(r.stdout).toContain('0 passed, 2 failed')
    expect(r.code).toBe(1)
  })

  it('says to pass --target when asked to run the embedded reference proxy, which it does not carry', async () => {
    const r = await conformance(['--only', 'AUTH-001'])
    expect(r.stderr).toContain(
      'the embedded reference proxy runs only in a checkout of the Gatehouse repository; pass --target <base_url>',
    )
    expect(r.code).not.toBe(0)
  })
})
