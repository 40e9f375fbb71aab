/**
 * The CI recipes of docs/ci-recipes.md, run as printed there against the packed tarball
 * (packed.ts): "judge my server" starts a resource server built on the official SDK (not
 * gatehouse) with no YAML, "judge my client" runs the package's sample client; each with a
 * baseline, whose expected failures do not fail the run and whose stale entries are reported.
 * The GitHub Actions workflow there runs those scripts.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { freePort } from '@gatehouse/support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { ROOT } from '../src/stack.js'
import { type Installed, type Outcome, packAndInstall } from './packed.js'
import { reportSchemaErrors } from './report-schema.js'

const DOC = readFileSync(join(ROOT, 'docs/ci-recipes.md'), 'utf8')

/** The doc's fenced blocks of one language. */
const blocks = (lang: string) =>
  [...DOC.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1] ?? '')

/** The shell recipe saved as `name` (its second line names it). */
function recipe(name: string): string {
  const found = blocks('sh').find((b) => b.split('\n')[1]?.startsWith(`# ${name}:`))
  if (!found) throw new Error(`docs/ci-recipes.md has no sh block for ${name}`)
  return found
}

const TSX = join(ROOT, 'node_modules/.bin/tsx')
/** "Your server": a resource server on the official SDK that reads the suite's environment. */
const SDK_SERVER = `${TSX} ${join(ROOT, 'conformance/test/target/sdk-resource-server.ts')}`

let pkg: Installed
/** The user's repository: the recipes saved in ci/, run from its root. */
let project: string

beforeAll(async () => {
  pkg = await packAndInstall()
  project = join(pkg.dir, 'project')
  mkdirSync(join(project, 'ci'), { recursive: true })
  for (const name of ['judge-my-server.sh', 'judge-my-client.sh'])
    writeFileSync(join(project, 'ci', name), recipe(`ci/${name}`))
}, 300_000)

afterAll(() => {
  if (pkg) rmSync(pkg.dir, { recursive: true, force: true })
})

/** Runs a recipe in the project with `vars` (no registry: the tarball needs none). */
async function runRecipe(name: string, vars: Record<string, string>): Promise<Outcome> {
  const { execFile } = await import('node:child_process')
  return new Promise((resolve) => {
    execFile(
      'sh',
      [join('ci', name)],
      {
        cwd: project,
        env: {
          ...pkg.env,
          npm_config_offline: 'true',
          GATEHOUSE_CONFORMANCE_PACKAGE: pkg.tarball,
          ...vars,
        },
        timeout: 300_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0
        resolve({ code, stdout, stderr })
      },
    )
  })
}

describe('docs/ci-recipes.md, against the packed tarball', () => {
  it('judge my server: a plain resource server needs four environment values, no YAML; a baseline entry that passes is reported stale', async () => {
    writeFileSync(join(project, 'server-baseline.txt'), '# known failures\nPRM-006\n')
    const r = await runRecipe('judge-my-server.sh', {
      SERVER_COMMAND: SDK_SERVER,
      SERVER_PORT: String(await freePort()),
      BASELINE: 'server-baseline.txt',
    })
    expect(r.code, r.stderr + r.stdout.slice(-3000)).toBe(0)
    for (const name of ['ISSUER', 'JWKS_URI', 'AUDIENCE', 'RESOURCE'])
      expect(r.stdout).toMatch(new RegExp(`^  GATEHOUSE_CONFORMANCE_${name}=\\S+$`, 'm'))
    // No gatehouse configuration: the setup is a few lines, not a YAML file.
    expect(r.stdout).not.toMatch(/^(gateways|policies|routes):/m)
    expect(r.stdout).not.toContain('kind: HTTPRoute')
    expect(r.stdout.split('Gatehouse conformance —')[0]?.split('\n').length).toBeLessThan(10)
    expect(r.stdout).toMatch(/PASS PRM-006 .*\(passes: remove it from the baseline\)/)
    // The SDK's requireBearerAuth answers a request without credentials with error="invalid_token"
    // (RFC 6750 §3.1: SHOULD NOT): its one known failure, a SHOULD, which does not fail the run.
    expect(r.stdout).toMatch(/^ {2}FAIL AUTH-027 SHOULD /m)
    expect(r.stdout.match(/^ {2}FAIL .*$/gm)).toHaveLength(1)
    expect(r.stdout).toMatch(/^\d+ passed, 1 failed/m)
    const json = JSON.parse(readFileSync(join(project, 'reports/conformance-server.json'), 'utf8'))
    expect(reportSchemaErrors(json)).toEqual([])
    expect(json.results.find((x: { id: string }) => x.id === 'PRM-006').baseline).toBe('stale')
    expect(readFileSync(join(project, 'reports/conformance-server.xml'), 'utf8')).toContain(
      '<testsuites name="gatehouse-conformance">',
    )
  }, 300_000)

  it('judge my client: fails on a MUST the client misses, passes once the baseline lists it', async () => {
    const vars = {
      CLIENT_COMMAND: `${join(project, '.conformance/node_modules/.bin/gatehouse-conformance')} sample-client`,
      // The sample client (MCP 2025-11-25) names no application_type (2026-07-28).
      SCENARIOS: 'standards-idp,request-metadata',
    }
    const without = await runRecipe('judge-my-client.sh', vars)
    expect(without.code, without.stderr + without.stdout.slice(-3000)).toBe(1)
    expect(without.stdout).toContain('FAIL CLI-REG-005')

    // The doc's example baseline, as printed.
    const baseline = blocks('text').find((b) => b.includes('request-metadata/CLI-REG-005'))
    expect(baseline).toBeDefined()
    writeFileSync(join(project, 'client-baseline.txt'), baseline as string)
    const r = await runRecipe('judge-my-client.sh', { ...vars, BASELINE: 'client-baseline.txt' })
    expect(r.code, r.stderr + r.stdout.slice(-3000)).toBe(0)
    expect(r.stdout).toMatch(/FAIL CLI-REG-005 .*\(expected failure, baseline\)/)
    const json = JSON.parse(readFileSync(join(project, 'reports/conformance-client.json'), 'utf8'))
    expect(reportSchemaErrors(json)).toEqual([])
    expect(json.summary.mustFailed).toBe(0)
  }, 300_000)

  it('the GitHub Actions workflow runs those two scripts on Node 22, on every push', () => {
    const [workflow] = blocks('yaml')
    const parsed = parse(workflow as string) as {
      on: string[]
      jobs: Record<string, { steps: Array<{ run?: string; with?: { 'node-version'?: number } }> }>
    }
    expect(parsed.on).toContain('push')
    const runs = Object.values(parsed.jobs).flatMap((j) => j.steps.map((s) => s.run ?? ''))
    expect(runs).toEqual(
      expect.arrayContaining(['sh ci/judge-my-server.sh', 'sh ci/judge-my-client.sh']),
    )
    for (const job of Object.values(parsed.jobs)) {
      const node = job.steps.find((s) => s.with?.['node-version'])?.with?.['node-version']
      expect(node).toBeGreaterThanOrEqual(22)
    }
  })
})
