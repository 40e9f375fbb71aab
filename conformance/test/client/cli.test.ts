/**
 * `npm run conformance -- client …` as a client author runs it: the real bin in a child process,
 * its exit codes, console report, JUnit and JSON files and the expected-failures baseline.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runProcess } from '@gatehouse/support'
import { fastCommand, scriptBundle } from '@gatehouse/support/script-bundle'
import { describe, expect, it } from 'vitest'
import { SCENARIOS } from '../../src/client/scenarios.js'
import { ROOT } from '../../src/stack.js'

const BIN = join(ROOT, 'conformance/bin/conformance.ts')
const TSX = join(ROOT, 'node_modules/.bin/tsx')
// The bin and the client start from bundles of their sources (support/src/script-bundle.ts).
const HAND = await fastCommand(
  `${TSX} ${join(ROOT, 'conformance/test/client/clients/hand-client.ts')}`,
  ROOT,
)
const BUNDLE = await scriptBundle(BIN)

function conformance(args: string[]) {
  return runProcess('node', [BUNDLE, 'client', ...args], { cwd: ROOT })
}

describe('conformance client', () => {
  it('lists every scenario with the revision it follows and the MCP_CONFORMANCE_SCENARIO it sends, and every requirement', async () => {
    const run = await conformance(['--list'])
    expect(run.code).toBe(0)
    for (const s of SCENARIOS)
      expect(run.stdout).toContain(`${s.name.padEnd(22)} ${s.revision} [${s.clientScenario}]`)
    expect(run.stdout).toMatch(/CLI-PKCE-001\s+MUST/)
  }, 60_000)

  it('refuses to run without --command, or with an unknown scenario (exit 2)', async () => {
    const none = await conformance([])
    expect(none.code).toBe(2)
    expect(none.stderr).toMatch(/--command is required/)
    const unknown = await conformance(['--command', 'true', '--scenario', 'nope'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/unknown scenario nope; scenarios are bridged-client-id/)
  }, 60_000)

  it('refuses a --spec-version it does not judge, or one no named scenario follows (exit 2)', async () => {
    const bad = await conformance(['--command', 'true', '--spec-version', '2024-11-05'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(
      /unknown MCP revision "2024-11-05"; --spec-version takes 2026-07-28, 2025-11-25, 2025-03-26/,
    )
    const none = await conformance([
      '--command',
      'true',
      '--scenario',
      'legacy-metadata',
      '--spec-version',
      '2026-07-28',
    ])
    expect(none.code).toBe(2)
    expect(none.stderr).toMatch(
      /no scenario is both named by --scenario and of --spec-version 2026-07-28/,
    )
  }, 60_000)

  it('fails a client whose MUST fails (exit 1) and writes JUnit and JSON grouped by scenario', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-cli-'))
    const run = await conformance([
      '--command',
      `${HAND} --fault exit-1`,
      '--scenario',
      'bridged-client-id',
      '--junit',
      join(dir, 'r.xml'),
      '--json',
      join(dir, 'r.json'),
      '--port-range',
      '41700-41799',
    ])
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/bridged-client-id\s+1\s/)
    expect(run.stdout).toMatch(/FAIL CLI-FLOW-001 MUST/)
    expect(run.stdout).toMatch(/expected exit code 0; got exit 1/)
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(/^\d+ passed, 1 failed, 0 skipped$/)
    const junit = readFileSync(join(dir, 'r.xml'), 'utf8')
    expect(junit).toMatch(
      /<testsuite name="bridged-client-id" tests="\d+" failures="1" skipped="0">/,
    )
    const json = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as {
      summary: { failed: number }
      runs: Array<{
        scenario: string
        exitCode: number
        clientScenario: string
        serverUrl: string
        log: Array<{ side: string; method: string; url: string; status: number }>
      }>
    }
    // --port-range: the server URL the client got is in the range.
    const port = Number(new URL(json.runs[0]?.serverUrl ?? '').port)
    expect(port).toBeGreaterThanOrEqual(41700)
    expect(port).toBeLessThanOrEqual(41799)
    // Each scenario's request log, redacted: no authorization code, no token.
    const log = json.runs[0]?.log ?? []
    expect(log.some((e) => e.side === 'idp' && e.url.includes('/v1/authorize'))).toBe(true)
    expect(JSON.stringify(log)).not.toMatch(/[?&]code=(?!\[redacted\])/)
    expect(JSON.stringify(log)).not.toMatch(/eyJ[\w-]+\.[\w-]+\./)
    expect(json.summary.failed).toBe(1)
    expect(json.runs).toEqual([
      expect.objectContaining({
        scenario: 'bridged-client-id',
        clientScenario: 'auth/metadata-default',
        exitCode: 1,
      }),
    ])
  }, 120_000)

  it('puts the server URL where the command says {url}, instead of appending it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-cli-'))
    const out = join(dir, 'argv.txt')
    const script = join(dir, 'argv.mjs')
    writeFileSync(
      script,
      "import { writeFileSync } from 'node:fs'\nwriteFileSync(process.argv[2], process.argv.slice(3).join('|'))\n",
    )
    const run = await conformance([
      '--command',
      `node ${script} ${out} {url} last`,
      '--scenario',
      'bridged-client-id',
    ])
    expect(run.code).toBe(1)
    expect(readFileSync(out, 'utf8')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp\|last$/)
  }, 120_000)

  it("goes on when a scenario's stack cannot start, reports it once and exits 1", async () => {
    // One port for two recorders a stack: every stack fails to start, none aborts the run.
    const run = await conformance([
      '--command',
      HAND,
      '--scenario',
      'bridged-client-id,standards-idp',
      '--port-range',
      '41800-41800',
    ])
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/bridged-client-id\s+not run/)
    expect(run.stdout).toMatch(/standards-idp\s+not run/)
    expect(run.stdout).toMatch(
      /scenarios not run \(the harness's fault, not the client's\): bridged-client-id: its stack did not start: --port-range 41800-41800 is used up/,
    )
    expect(run.stdout).toMatch(/not reached: its stack did not start/)
  }, 120_000)

  it("CIMD works with the client's own metadata document URL and redirect path (--cimd-document)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-cli-'))
    const url = 'https://client.example.org/oauth/metadata.json'
    const redirect = 'http://127.0.0.1:4567/oauth/done'
    const doc = join(dir, 'metadata.json')
    writeFileSync(
      doc,
      JSON.stringify({
        client_id: url,
        client_name: 'a client with its own document',
        redirect_uris: [redirect],
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        response_types: ['code'],
      }),
    )
    const run = await conformance([
      '--command',
      `HAND_CIMD_URL=${url} HAND_REDIRECT_URI=${redirect} ${HAND}`,
      '--scenario',
      'cimd',
      '--cimd-document',
      doc,
    ])
    expect(run.code, run.stdout.slice(-1500)).toBe(0)
    expect(run.stdout).toMatch(/PASS CLI-REG-003/)
    expect(run.stdout).toMatch(/PASS CLI-FLOW-001/)
  }, 120_000)

  it('passes with the failure in the baseline, and says which baseline entries now pass', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-cli-'))
    const baseline = join(dir, 'baseline.txt')
    writeFileSync(baseline, '# known\nCLI-FLOW-001\nbridged-client-id/CLI-PKCE-001\nCLI-NOPE-001\n')
    const run = await conformance([
      '--command',
      `${HAND} --fault exit-1`,
      '--scenario',
      'bridged-client-id',
      '--baseline',
      baseline,
    ])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/FAIL CLI-FLOW-001 MUST .*\(expected failure, baseline\)/)
    expect(run.stdout).toMatch(/PASS CLI-PKCE-001 MUST .*\(passes: remove it from the baseline\)/)
    expect(run.stdout).toMatch(/baseline entries naming no requirement: CLI-NOPE-001/)
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(/^\d+ passed, 0 failed, 0 skipped$/)
  }, 120_000)
})
