/**
 * `npm run conformance` as an operator runs it: the real bin in a child process whose stdin is a
 * pipe, not a terminal (as in CI).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { freePort, runProcess, sendJson } from '@gatehouse/support'
import { scriptBundle } from '@gatehouse/support/script-bundle'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../../src/stack.js'

const BIN = join(ROOT, 'conformance/bin/conformance.ts')
/** The bin, bundled from its sources (support/src/script-bundle.ts): what tsx would run. */
const BUNDLE = await scriptBundle(BIN)

/** Runs the bin to its end with stdin a pipe that is closed at once. */
function conformance(args: string[]) {
  return runProcess('node', [BUNDLE, ...args], { cwd: ROOT })
}

/** An admin interface that answers GET /memory, enough for ADM-008 to pass. */
let admin: Server
let adminUrl: string
let closedTarget: string

beforeAll(async () => {
  admin = createServer((req, res) => {
    sendJson(res, req.url === '/memory' ? 200 : 404, { rss: 1, heapUsed: 1 })
  })
  await new Promise<void>((r) => admin.listen(0, '127.0.0.1', r))
  adminUrl = `http://127.0.0.1:${(admin.address() as AddressInfo).port}`
  closedTarget = `http://127.0.0.1:${await freePort()}`
})
afterAll(() => new Promise<void>((r) => admin.close(() => r())))

describe('conformance bin', () => {
  it('exits 1 saying nothing was judged when --only selects no requirement', async () => {
    const run = await conformance(['--only', 'NONE-000'])
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/nothing was judged: every check was skipped/)
    expect(run.stdout).toMatch(/0 passed, 0 failed, \d+ skipped/)
  }, 60_000)

  it('refuses an MCP revision --spec-version does not offer with exit 2, naming the ones it does', async () => {
    const run = await conformance(['--spec-version', '2024-11-05'])
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(
      /unknown MCP revision "2024-11-05".*2026-07-28, 2025-11-25, 2025-03-26/,
    )
  }, 60_000)

  it('exits 1 saying nothing was judged when the target offers none of the selected profile', async () => {
    const run = await conformance(['--target', closedTarget, '--yes', '--profile', 'admin'])
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/nothing was judged/)
  }, 60_000)

  it('with --target and no terminal, refuses to run without --yes (it cannot wait for Enter)', async () => {
    const run = await conformance(['--target', closedTarget, '--only', 'ADM-008'])
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/stdin is not a terminal.*pass --yes/)
    expect(run.stdout).not.toMatch(/passed, .* failed/)
  }, 60_000)

  it('with --target --yes, prints a configuration for the plain-HTTP IdP and the --admin port, then judges without a terminal', async () => {
    const run = await conformance([
      '--target',
      closedTarget,
      '--admin',
      adminUrl,
      '--yes',
      '--only',
      'ADM-008',
    ])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(/1 passed, 0 failed, \d+ skipped/)
    const adminPort = new URL(adminUrl).port
    expect(run.stdout).toContain(`adminAddr: 127.0.0.1:${adminPort}`)
    expect(run.stdout).not.toContain('adminAddr: 127.0.0.1:15000')
    // The embedded mock-idp is plain HTTP: no BackendTLSPolicy, and its own port in the backend.
    expect(run.stdout).not.toContain('BackendTLSPolicy')
    const issuer = /issuer: (http:\/\/127\.0\.0\.1:(\d+)\/oauth2\/default)/.exec(run.stdout)
    expect(issuer, 'the printed issuer').not.toBeNull()
    const idpPort = issuer?.[2]
    expect(run.stdout).toMatch(
      new RegExp(
        `name: idp-jwks\\nspec:\\n  static:\\n    host: 127\\.0\\.0\\.1\\n    port: ${idpPort}\\n`,
      ),
    )
  }, 60_000)
})
