/**
 * The real-peer matrix of docs/peers.md: each pinned MCP client judged by gatehouse's client mode
 * (`npm run conformance -- client --command …`, the official suite's calling convention) against
 * an expected-verdicts baseline, `peers/baseline/<peer>.txt`. A verdict that changes — a new
 * failure, or a listed failure that now passes (stale) — fails the matrix. Every line of a
 * baseline names the MUST/SHOULD the peer breaks and its source.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fastCommand, scriptBundle } from '@gatehouse/support/script-bundle'
import { ROOT } from './paths.js'

/** One client of the matrix. */
export interface MatrixPeer {
  /** Its baseline is `peers/baseline/<name>.txt`. */
  name: string
  /** Its display name, e.g. `MCP Inspector CLI`. */
  title: string
  /** The npm package pinned in peers/package.json (its exact version is read from there). */
  package: string
  /** How it runs, beyond the package (e.g. `--cli, on Node 22.23.3`). */
  note?: string
  /** The `--command` (run from the repository root; the server URL is appended). */
  command: string
  /** Scenarios to run; default every scenario of {@link specVersions}. */
  scenarios?: readonly string[]
  /**
   * The MCP revisions judged (`--spec-version`), for a peer without `scenarios`: the revisions it
   * speaks. A 2026-07-28 scenario judges only a client that speaks 2026-07-28.
   */
  specVersions?: readonly string[]
}

/**
 * Every scenario of the client mode but `cimd`. mcp-remote and the Inspector CLI take a metadata
 * document URL (`--client-metadata-url`), but their redirect URIs (`…/oauth/callback`) are not in
 * the one document the harness's IdP knows (the official suite's, `…/callback`): their CIMD run
 * would judge that limit of the harness (docs/peers.md), not the client.
 */
const ALL_BUT_CIMD = [
  'bridged-client-id',
  'bridged-proxied-dcr',
  'standards-idp',
  'prm-root-only',
  'no-resource-metadata',
  'scope-step-up',
  'scope-retry-limit',
  'runtime-step-up',
  'token-refresh',
  'key-rotation',
  'pre-registered',
  'forged-state',
  'wrong-iss',
  'issuer-mismatch',
]

/**
 * How the matrix starts a client's TypeScript: tsx itself, which is what `npx tsx` (docs/peers.md)
 * runs, without npm's own start-up — about 0.8 s of CPU, once per scenario, for some 120 runs.
 */
const TSX = 'node_modules/.bin/tsx'

/** The pinned clients and how each is run (docs/peers.md, "The real-peer matrix"). */
export const MATRIX: readonly MatrixPeer[] = [
  {
    name: 'sdk-v2-client',
    title: 'MCP SDK v2 client',
    package: '@modelcontextprotocol/client',
    // 2.4.0 has the 2026-07-28 era behind `versionNegotiation`; the wrapper pins it when the
    // scenario asks for that revision (MCP_CONFORMANCE_PROTOCOL_VERSION).
    note: '2026-07-28 pinned in the 2026-07-28 scenarios',
    command: `${TSX} peers/bin/conformance/sdk-v2-client.ts`,
    specVersions: ['2026-07-28', '2025-11-25', '2025-03-26'],
  },
  {
    name: 'sdk-v1-client',
    title: 'MCP SDK 1.x client',
    package: '@modelcontextprotocol/sdk',
    note: 'the example client, conformance/src/client/examples/sdk-client.ts',
    command: `${TSX} conformance/src/client/examples/sdk-client.ts`,
    // 1.x has no 2026-07-28 era.
    specVersions: ['2025-11-25', '2025-03-26'],
  },
  {
    name: 'mcp-remote',
    title: 'mcp-remote',
    package: 'mcp-remote',
    command: `${TSX} peers/bin/conformance/mcp-remote.ts`,
    // Not runtime-step-up: mcp-remote's outcome there is not deterministic. After the runtime
    // 403 it asks for the new scope (CLI-STEP-001 passes), then in some runs redeems the code and
    // gets through, in others never redeems it and hangs until killed (CLI-FLOW-003, SHOULD), so
    // a baseline would fail one way or the other (docs/peers.md). Its probe of the authorization
    // URL (one request sent twice) is judged in conformance/test/client/clients.test.ts.
    scenarios: ALL_BUT_CIMD.filter((s) => s !== 'runtime-step-up'),
  },
  {
    name: 'inspector-cli',
    title: 'MCP Inspector CLI',
    package: '@modelcontextprotocol/inspector',
    note: '`--cli`, on Node 22.23.3',
    command: `${TSX} peers/bin/conformance/inspector-cli.ts`,
    scenarios: ALL_BUT_CIMD,
  },
]

/** One judged requirement of a run's JSON report. */
export interface MatrixResult {
  id: string
  profile: string
  level: string
  status: 'passed' | 'failed' | 'skipped'
  source?: string
  baseline?: 'expected-failure' | 'stale'
}

/** What judging one peer gave. */
export interface MatrixVerdict {
  exitCode: number | null
  results: MatrixResult[]
  /** The end of the harness's output, for a failing test's message. */
  output: string
}

/** The peer's baseline file. */
export function baselinePath(peer: MatrixPeer): string {
  return join(ROOT, 'peers/baseline', `${peer.name}.txt`)
}

/** Runs the client mode over `peer` with its baseline and reads the JSON report. */
export async function judgePeer(peer: MatrixPeer): Promise<MatrixVerdict> {
  const dir = mkdtempSync(join(tmpdir(), `gatehouse-matrix-${peer.name}-`))
  const report = join(dir, 'report.json')
  // The harness and a TypeScript client run from bundles of their sources (about a quarter of the
  // CPU of tsx per start: support/src/script-bundle.ts), the same code as `tsx <file>` runs.
  const args = [
    await scriptBundle(join(ROOT, 'conformance/bin/conformance.ts')),
    'client',
    '--command',
    await fastCommand(peer.command, ROOT),
    '--baseline',
    baselinePath(peer),
    '--json',
    report,
    // The real clients start node, a stdio bridge and a headless sign-in per scenario: on a
    // loaded CI machine that can take longer than the default 30 s without being a hang.
    '--timeout',
    '60000',
    ...(peer.scenarios ? ['--scenario', peer.scenarios.join(',')] : []),
    ...(peer.specVersions ? ['--spec-version', peer.specVersions.join(',')] : []),
  ]
  try {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-6000)
    }
    child.stdout.on('data', keep)
    child.stderr.on('data', keep)
    const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve))
    let results: MatrixResult[] = []
    try {
      results = (JSON.parse(readFileSync(report, 'utf8')) as { results: MatrixResult[] }).results
    } catch {
      // No report: the run itself failed; the output says why.
    }
    return { exitCode, results, output }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Failures the baseline does not expect, and expected failures that passed (stale), as `scenario/ID`. */
export function unexpected(verdict: MatrixVerdict): { newFailures: string[]; stale: string[] } {
  const key = (r: MatrixResult) => `${r.profile}/${r.id}`
  return {
    newFailures: verdict.results
      .filter((r) => r.status === 'failed' && r.baseline !== 'expected-failure')
      .map(key),
    stale: verdict.results.filter((r) => r.baseline === 'stale').map(key),
  }
}
