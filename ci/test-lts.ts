/**
 * `npm run test:lts [-- <major>...]`: the unit and integration tiers of the vitest suite
 * (scripts/vitest/tiers.ts) and the conformance suite on each maintained Node.js LTS line the root
 * package.json holds (ci/node-lts.ts), after `npm test` ran everything on the machine's Node. Each
 * run puts a directory holding only a `node` link to the LTS binary first on PATH, so every
 * process the tests start — `process.execPath`, a `#!/usr/bin/env node` script such as tsx, a
 * client command `node …` — runs on that line.
 *
 * Left out on these runs, as they run once, on the Node `npm run test:unit` chose:
 * - the e2e tier: whole stacks judged from outside, browsers, the real peers and npm pack. What
 *   in them depends on the runtime — the proxy, the mock IdP and backend, the client mode, as
 *   processes and in-process, over real sockets — the integration tier runs on every line; what
 *   they add is the third-party programs (the peers, Chromium, npm), whose verdict tables judge
 *   pinned versions against baselines, not the Node under them;
 * - the checks of the repository's own files and tools ({@link RUNTIME_INDEPENDENT}): the build and
 *   the module graph, conformance's traceability test, mutation/test (the mutants and the Stryker
 *   sample), bench/test, the generated peer table; and the commands' surface ({@link CLI_SURFACE});
 * - the unit tests that check nothing of the runtime's (ci/runtime-bound.ts): a unit test runs
 *   in-process with no socket and no process, so it runs again only when it, or the module it is
 *   the test of, names a runtime-sensitive API — crypto and jose, HTTP and fetch, streams, zlib,
 *   worker threads, node:sqlite, cluster, TLS, timers, vm, itself or in a module it imports (83 of
 *   the 138 unit files run once, 2026-11-28).
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { ROOT } from '../scripts/build-config.js'
import { bundledNode, SUPPORTED_MAJOR } from '../scripts/supported-node.mjs'
import { EXCLUDE_ENV } from '../vitest.config.js'
import { type LtsNode, ltsNodeBinary, ltsNodes } from './node-lts.js'
import { runtimeFreeUnitFiles } from './runtime-bound.js'

/**
 * The integration tests of the commands' surface — what `gatehouse`, `gwctl` and the conformance
 * command print for their flags, their exit codes and report files — run once, on the machine's
 * Node: what in them depends on the runtime (the proxy serving, the suite judging it over real
 * sockets, the client mode's judge in conformance/test/client/judge.test.ts) runs on every line
 * through the conformance suite and the rest of the integration tier.
 * Together about 260 s of the Node 24 run's 575 s of test time (2026-11-28, shared 2-core machine).
 */
export const CLI_SURFACE = [
  'proxy/test/cli.test.ts',
  'gwctl/test/{cli,commands/*}.test.ts',
  'conformance/test/{bin/conformance,target}.test.ts',
  'conformance/test/client/cli.test.ts',
  'conformance/test/report/html/server.cli.test.ts',
]

/**
 * Test files of the unit and integration tiers that check the repository rather than the runtime:
 * run once, on the machine's Node.
 */
export const RUNTIME_INDEPENDENT = [
  'scripts/test/**',
  'mutation/test/**',
  'conformance/test/traceability.test.ts',
  'bench/test/**',
  'peers/test/peer-table.test.ts',
  ...CLI_SURFACE,
]

/** The vitest projects (tiers) run on every line. */
export const LTS_TIERS = ['unit', 'integration']

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: 'inherit' })
    child.on('error', (err) => {
      process.stderr.write(`test:lts: ${command}: ${err.message}\n`)
      done(1)
    })
    child.on('exit', (code, signal) => done(code ?? (signal ? 1 : 0)))
  })
}

function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(0)} s`
}

/** Runs vitest and the conformance suite on one LTS line; resolves to whether both passed. */
async function testOn(lts: LtsNode): Promise<boolean> {
  const binary = ltsNodeBinary(lts)
  if (!existsSync(binary)) {
    process.stderr.write(
      `test:lts: ${binary} is missing: run npm ci (the optionalDependency ${lts.alias} holds Node ${lts.version})\n`,
    )
    return false
  }
  const bin = mkdtempSync(join(tmpdir(), `gatehouse-node${lts.major}-`))
  try {
    symlinkSync(binary, join(bin, 'node'))
    const env = {
      ...process.env,
      PATH: [bin, join(ROOT, 'node_modules', '.bin'), process.env.PATH ?? ''].join(delimiter),
    }
    const version = spawnSync('node', ['--version'], { env, encoding: 'utf8' }).stdout.trim()
    if (!version.startsWith(`v${lts.major}.`)) {
      process.stderr.write(`test:lts: node on PATH is ${version || 'missing'}, not ${lts.major}\n`)
      return false
    }
    process.stdout.write(
      `\n== Node ${version}: vitest (${LTS_TIERS.join(' and ')} tiers), then the conformance suite ==\n`,
    )
    const started = performance.now()
    const projects = LTS_TIERS.flatMap((tier) => ['--project', tier])
    const unit = await run('vitest', ['run', ...projects], {
      ...env,
      [EXCLUDE_ENV]: JSON.stringify([...RUNTIME_INDEPENDENT, ...runtimeFreeUnitFiles(ROOT)]),
    })
    const unitTime = seconds(started)
    const conformance = await run('tsx', ['conformance/bin/conformance.ts'], env)
    const verdict = unit === 0 && conformance === 0 ? 'passed' : 'FAILED'
    process.stdout.write(
      `test:lts: Node ${version} ${verdict}: vitest ${unit === 0 ? 'passed' : 'failed'} (${unitTime}), conformance ${conformance === 0 ? 'passed' : 'failed'} (${seconds(started)} in all)\n`,
    )
    return unit === 0 && conformance === 0
  } finally {
    rmSync(bin, { recursive: true, force: true })
  }
}

if (process.platform !== 'linux' || process.arch !== 'x64') {
  // The binaries are Linux x64 builds; npm skipped them here (they are optional dependencies).
  process.stdout.write(
    `test:lts skipped: the Node LTS binaries it runs are Linux x64 builds; this is ${process.platform}-${process.arch}\n`,
  )
  process.exit(0)
}
const lines = ltsNodes()
const asked = process.argv.slice(2).map(Number)
const unknown = asked.filter((m) => !lines.some((l) => l.major === m))
if (unknown.length > 0) {
  process.stderr.write(
    `test:lts: no LTS line ${unknown.join(', ')}; tested: ${lines.map((l) => l.major).join(', ')}\n`,
  )
  process.exit(2)
}
// `npm run test:unit` and `npm run conformance` run on the Node that scripts/supported-node.mjs
// chooses: the machine's own when it is supported, else the repository's Node 22. That line was
// tested in full a moment ago; unless asked for by name, it is not run a second time.
const ranOn = Number(process.versions.node.split('.')[0])
const testedMajor = ranOn >= SUPPORTED_MAJOR ? ranOn : bundledNode() ? SUPPORTED_MAJOR : undefined
let ok = true
for (const lts of lines.filter((l) => asked.length === 0 || asked.includes(l.major))) {
  if (asked.length === 0 && lts.major === testedMajor) {
    process.stdout.write(
      `test:lts: Node ${lts.major} skipped: npm run test:unit and npm run conformance ran on it (scripts/supported-node.mjs); npm run test:lts -- ${lts.major} runs it again\n`,
    )
    continue
  }
  ok = (await testOn(lts)) && ok
}
process.exit(ok ? 0 : 1)
