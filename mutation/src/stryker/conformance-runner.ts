/**
 * A Stryker test runner (plugin `gatehouse-conformance`) whose tests are the conformance
 * catalogue, judged over HTTP against the proxy as a real process.
 *
 * Stryker instruments the proxy's sources in its sandbox with every mutant behind a switch
 * (mutant schemata); the instrumented code reads the active mutant from the environment variable
 * `__STRYKER_ACTIVE_MUTANT__` when it loads. So one build serves every mutant: `init` bundles the
 * sandbox's `proxy/bin/gatehouse.ts` with the project's own esbuild options (as `npm run build`
 * does) and starts mock-idp and mcp-backend once; each mutant run starts `node <bundle>` with that
 * variable set, runs the catalogue against it (stopping at the first failed check, unless Stryker
 * says `disableBail`) and stops it.
 *
 * Honest counting: a mutant is killed only when a check failed — the failed requirement is its
 * `killedBy`. A mutant whose proxy does not start is a runtime error (Stryker leaves it out of
 * the score, neither killed nor survived). Coverage: the dry run starts the unmutated proxy with
 * a hook that writes the instrumented code's coverage counters on exit; a mutant the catalogue
 * never reaches is reported by Stryker as "no coverage" (a survivor) without a run.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CATALOGUE } from '@gatehouse/conformance/internal/catalogue'
import { runChecks } from '@gatehouse/conformance/internal/runner'
import {
  type Fixtures,
  type RunningGateway,
  startFixtures,
  startGateway,
} from '@gatehouse/conformance/internal/stack'
import type { Requirement, Result } from '@gatehouse/conformance/internal/types'
import type { MutantCoverage } from '@stryker-mutator/api/core'
import type { Logger } from '@stryker-mutator/api/logging'
import { commonTokens, declareClassPlugin, PluginKind, tokens } from '@stryker-mutator/api/plugin'
import {
  type DryRunOptions,
  type DryRunResult,
  DryRunStatus,
  type MutantRunOptions,
  type MutantRunResult,
  MutantRunStatus,
  type TestResult,
  type TestRunner,
  type TestRunnerCapabilities,
  TestStatus,
} from '@stryker-mutator/api/test-runner'
import { build } from 'esbuild'
import { BUNDLES, buildOptions } from '../../../scripts/build-config.js'

/** Stryker's switch: the instrumented code activates the mutant this variable names. */
const ACTIVE_MUTANT_ENV = '__STRYKER_ACTIVE_MUTANT__'
/** Where the coverage hook writes the instrumented code's counters. */
const COVERAGE_FILE_ENV = 'GATEHOUSE_STRYKER_COVERAGE_FILE'

/**
 * Preloaded into the dry run's proxy (`--import`): on exit, writes Stryker's coverage counters
 * (`globalThis.__stryker__.mutantCoverage`, filled by the instrumented code) to a file.
 */
const COVERAGE_HOOK = `import { writeFileSync } from 'node:fs'
process.on('exit', () => {
  const coverage = globalThis.__stryker__?.mutantCoverage ?? { static: {}, perTest: {} }
  writeFileSync(process.env.${COVERAGE_FILE_ENV}, JSON.stringify(coverage))
})`

/** The catalogue in run order (those marked `last`, which may stop the target, at the end). */
const ORDERED: readonly Requirement[] = [
  ...CATALOGUE.filter((r) => !r.last),
  ...CATALOGUE.filter((r) => r.last),
]

/** The conformance catalogue as a Stryker test runner. */
export class ConformanceTestRunner implements TestRunner {
  static inject = tokens(commonTokens.logger)
  private fixtures: Fixtures | undefined
  private bundleDir: string | undefined
  private entry = ''

  constructor(private readonly log: Logger) {}

  capabilities(): TestRunnerCapabilities {
    // Every run starts a new proxy process.
    return { reloadEnvironment: true }
  }

  async init(): Promise<void> {
    // Stryker runs this worker in its sandbox, whose proxy/ holds the instrumented sources.
    const sandbox = process.cwd()
    const proxy = BUNDLES.find((b) => b.workspace === 'proxy')
    if (!proxy) throw new Error('scripts/build-config.ts has no proxy bundle')
    // Under proxy/ so that the bundle resolves its npm packages as proxy/dist does.
    this.bundleDir = mkdtempSync(join(sandbox, 'proxy', '.stryker-bundle-'))
    const options = buildOptions(proxy)
    await build({
      ...options,
      absWorkingDir: sandbox,
      entryPoints: [join(sandbox, 'proxy', proxy.entry)],
      outdir: this.bundleDir,
    })
    this.entry = join(this.bundleDir, 'gatehouse.js')
    this.fixtures = await startFixtures()
  }

  async dryRun(options: DryRunOptions): Promise<DryRunResult> {
    const coverageDir = mkdtempSync(join(tmpdir(), 'gatehouse-stryker-coverage-'))
    const coverageFile = join(coverageDir, 'coverage.json')
    const collect = options.coverageAnalysis !== 'off'
    const hook = `--import=data:text/javascript,${encodeURIComponent(COVERAGE_HOOK)}`
    const env: NodeJS.ProcessEnv = collect
      ? {
          ...this.baseEnv(),
          [COVERAGE_FILE_ENV]: coverageFile,
          NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${hook}`.trim(),
        }
      : this.baseEnv()
    try {
      const gateway = await this.start(env)
      let results: Result[]
      try {
        results = await this.judge(gateway, true)
      } finally {
        await gateway.stop()
      }
      const tests = results.map(toTestResult)
      if (!collect) return { status: DryRunStatus.Complete, tests }
      const mutantCoverage = JSON.parse(readFileSync(coverageFile, 'utf8')) as MutantCoverage
      // The proxy serves every check, so its counters are not per test: "static" coverage,
      // for which Stryker runs the whole catalogue.
      return { status: DryRunStatus.Complete, tests, mutantCoverage }
    } catch (err) {
      return { status: DryRunStatus.Error, errorMessage: (err as Error).message }
    } finally {
      rmSync(coverageDir, { recursive: true, force: true })
    }
  }

  async mutantRun(options: MutantRunOptions): Promise<MutantRunResult> {
    const env = { ...this.baseEnv(), [ACTIVE_MUTANT_ENV]: options.activeMutant.id }
    let gateway: RunningGateway
    try {
      gateway = await this.start(env)
    } catch (err) {
      // No check ran: not counted as killed.
      return { status: MutantRunStatus.Error, errorMessage: (err as Error).message }
    }
    try {
      const results = await this.judge(gateway, options.disableBail)
      const failed = results.filter((r) => r.status === 'failed')
      if (failed.length === 0) {
        return { status: MutantRunStatus.Survived, nrOfTests: results.length }
      }
      return {
        status: MutantRunStatus.Killed,
        killedBy: failed.map((r) => r.id),
        failureMessage: `${failed[0]?.id}: ${failed[0]?.message ?? ''}`,
        nrOfTests: results.length,
      }
    } finally {
      await gateway.stop()
    }
  }

  async dispose(): Promise<void> {
    await this.fixtures?.stop()
    if (this.bundleDir) rmSync(this.bundleDir, { recursive: true, force: true })
  }

  /** This process's environment without a mutant switch of its own. */
  private baseEnv(): NodeJS.ProcessEnv {
    const { [ACTIVE_MUTANT_ENV]: _, ...env } = process.env
    return env
  }

  private async start(env: NodeJS.ProcessEnv): Promise<RunningGateway> {
    if (!this.fixtures) throw new Error('the conformance runner was not initialised')
    const fixtures = this.fixtures
    const options = { command: [process.execPath, this.entry], env }
    // One more try when the process does not come up: on a loaded machine another process can
    // take the free port between its discovery and the gateway's bind (as conformance:mutants).
    return startGateway(fixtures, options).catch((err: Error) => {
      this.log.debug(`gateway did not start, trying once more: ${err.message}`)
      return startGateway(fixtures, options)
    })
  }

  /** Runs the checks in order; stops at the first failure unless `all`. */
  private async judge(gateway: RunningGateway, all: boolean): Promise<Result[]> {
    const results: Result[] = []
    for (const requirement of ORDERED) {
      const [result] = await runChecks(gateway.target, { catalogue: [requirement] })
      if (!result) continue
      results.push(result)
      if (result.status === 'failed' && !all) break
    }
    return results
  }
}

function toTestResult(r: Result): TestResult {
  const base = { id: r.id, name: `${r.id} ${r.text}`, timeSpentMs: r.durationMs }
  if (r.status === 'failed') {
    return { ...base, status: TestStatus.Failed, failureMessage: r.message ?? 'failed' }
  }
  return { ...base, status: r.status === 'passed' ? TestStatus.Success : TestStatus.Skipped }
}

/** Stryker's plugin list for this module: the test runner `gatehouse-conformance`. */
export const strykerPlugins = [
  declareClassPlugin(PluginKind.TestRunner, 'gatehouse-conformance', ConformanceTestRunner),
]
