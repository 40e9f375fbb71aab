/**
 * Runs a client through scenarios: one stack per scenario (several at once, each on its own
 * ports), the client executed against it, then every client requirement that applies judged
 * from what the recorders saw. Results are the server mode's report rows, grouped by scenario.
 */

import { redactUrl } from '@gatehouse/redact'
import { baselineMark, NOT_SELECTED, outcomeOf } from '../runner.js'
import type { ReportRow } from '../types.js'
import { CLIENT_CATALOGUE, type ClientRequirement } from './checks/index.js'
import { type ClientRun, executeClient } from './execute.js'
import { Flow } from './flow.js'
import type { PortPicker } from './recorder.js'
import { progressOf } from './refusal.js'
import { type ScenarioStack, startScenarioStack } from './scenario-stack.js'
import type { ClientScenario } from './scenarios.js'
import { type Recorded, toEvidence } from './traffic.js'

/** A client check's result: a report row whose group (`profile`) is the scenario. */
export type ClientResult = ReportRow

/** Selection and baseline. */
export interface JudgeOptions {
  only?: readonly string[]
  skip?: readonly string[]
  /** Expected failures: `CLI-…` (every scenario) or `<scenario>/CLI-…`. */
  baseline?: ReadonlySet<string>
  catalogue?: readonly ClientRequirement[]
  /** Told the exchange a failure's evidence shows (the HTML report highlights that step). */
  onEvidence?(id: string, e: Recorded): void
}

/** One scenario's run and its judgement. */
export interface ScenarioReport {
  scenario: string
  /** What the client was told (`MCP_CONFORMANCE_SCENARIO`). */
  clientScenario: string
  serverUrl: string
  run: ClientRun
  results: ClientResult[]
  /** Requests the recorders saw. */
  requests: number
  /** The requests, redacted (report.json). */
  log: LogEntry[]
  /** Why the scenario could not be run (its stack did not start): nothing was judged. */
  error?: string
  /**
   * The recorded exchanges, unredacted, in memory only (the HTML report's sequence diagram
   * redacts what it shows; report.json carries {@link log}).
   */
  traffic?: readonly Recorded[]
  /** Requirement ID → `seq` of the exchange its failure's evidence shows. */
  failingSteps?: Record<string, number>
}

/** One recorded request as report.json carries it: no credential, code or token. */
export interface LogEntry {
  seq: number
  side: Recorded['side']
  method: string
  url: string
  status: number
  reshaped?: string
}

/** The redacted request log of a run. */
function logOf(entries: readonly Recorded[]): LogEntry[] {
  return entries.map((e) => ({
    seq: e.seq,
    side: e.side,
    method: e.method,
    url: redactUrl(e.url.href),
    status: e.status,
    ...(e.reshaped ? { reshaped: e.reshaped } : {}),
  }))
}

/** Stacks running now: ended by {@link stopRunningStacks} when the harness is interrupted. */
const RUNNING = new Set<ScenarioStack>()

/** Stops every scenario stack still running (SIGINT/SIGTERM of the harness: no orphans). */
export async function stopRunningStacks(): Promise<void> {
  await Promise.all([...RUNNING].map((s) => s.stop().catch(() => {})))
  RUNNING.clear()
}

/** Options of {@link runClient}. */
export interface ClientRunOptions extends JudgeOptions {
  command: string
  scenarios: readonly ClientScenario[]
  /** Per client run; the official suite's default is 30 s. */
  timeoutMs: number
  /** Scenarios run at once. */
  parallel: number
  /** The `proxy/` to run (a mutant), default the repository's. */
  proxyDir?: string
  /** Ports the client sees (the recorders'), from `--port-range`; default free ones. */
  clientPorts?: PortPicker
  /** The client's own Client ID Metadata Documents (`--cimd-document`), known to CIMD IdPs. */
  cimdDocuments?: readonly Record<string, unknown>[]
  /** Called as each scenario is judged (progress). */
  onReport?(r: ScenarioReport): void
}

/** Judges one run against every applicable requirement. */
export function judge(
  stack: Pick<ScenarioStack, 'scenario' | 'facts'>,
  entries: readonly Recorded[],
  run: ClientRun,
  options: JudgeOptions = {},
): ClientResult[] {
  const flow = new Flow(entries, stack.facts)
  const progress = progressOf(flow, stack.facts, run)
  const scenario = stack.scenario
  const results: ClientResult[] = []
  for (const req of options.catalogue ?? CLIENT_CATALOGUE) {
    if (!req.appliesTo(scenario)) continue
    const base = {
      id: req.id,
      level: req.level,
      profile: scenario.name,
      source: req.source,
      text: req.text,
      durationMs: req.id === 'CLI-FLOW-001' ? run.durationMs : 0,
    }
    const selected =
      (!options.only || options.only.includes(req.id)) && !options.skip?.includes(req.id)
    if (!selected) {
      results.push({ ...base, status: 'skipped', message: NOT_SELECTED })
      continue
    }
    if (req.needs && !progress.reached.has(req.needs)) {
      results.push({ ...base, status: 'skipped', message: `not reached: ${progress.cause}` })
      continue
    }
    let shown: Recorded | undefined
    let result: ClientResult
    try {
      req.check({
        scenario,
        facts: stack.facts,
        flow,
        run,
        progress,
        evidence: (e) => {
          shown = e
        },
      })
      result = { ...base, status: 'passed' }
    } catch (err) {
      const outcome = outcomeOf(err)
      result = { ...base, ...outcome }
      if (outcome.status === 'failed' && shown) {
        result.evidence = toEvidence(shown)
        options.onEvidence?.(req.id, shown)
      }
    }
    const listed =
      options.baseline?.has(req.id) || options.baseline?.has(`${scenario.name}/${req.id}`)
    const mark = baselineMark(result.status, listed ?? false)
    if (mark) result.baseline = mark
    results.push(result)
  }
  return results
}

/** Runs the client once on a started stack and judges the run. */
export async function runOnStack(
  stack: ScenarioStack,
  command: string,
  options: JudgeOptions & { timeoutMs: number },
): Promise<ScenarioReport> {
  await stack.beginRun()
  const context = stack.facts.context
  const run = await executeClient({
    command,
    serverUrl: stack.serverUrl,
    clientScenario: stack.scenario.clientScenario,
    protocolVersion: stack.scenario.protocolVersion,
    scenario: stack.scenario.name,
    ...(context ? { context } : {}),
    timeoutMs: options.timeoutMs,
  })
  // Answers still streaming when the client ended finish with its connections.
  await new Promise((r) => setTimeout(r, 50))
  const entries = [...stack.traffic.entries]
  const failingSteps: Record<string, number> = {}
  const onEvidence = (id: string, e: Recorded) => {
    failingSteps[id] = e.seq
    options.onEvidence?.(id, e)
  }
  return {
    scenario: stack.scenario.name,
    clientScenario: stack.scenario.clientScenario,
    serverUrl: stack.serverUrl,
    run,
    results: judge(stack, entries, run, { ...options, onEvidence }),
    requests: entries.length,
    log: logOf(entries),
    traffic: entries,
    failingSteps,
  }
}

/** The report of a scenario that could not be run: every requirement skipped with the cause. */
function notRun(scenario: ClientScenario, error: string, options: JudgeOptions): ScenarioReport {
  const results: ClientResult[] = (options.catalogue ?? CLIENT_CATALOGUE)
    .filter((r) => r.appliesTo(scenario))
    .map((r) => ({
      id: r.id,
      level: r.level,
      profile: scenario.name,
      source: r.source,
      text: r.text,
      status: 'skipped',
      message: `not reached: ${error}`,
      durationMs: 0,
    }))
  return {
    scenario: scenario.name,
    clientScenario: scenario.clientScenario,
    serverUrl: '',
    run: { exitCode: null, signal: null, timedOut: false, durationMs: 0, stdout: '', stderr: '' },
    results,
    requests: 0,
    log: [],
    error,
  }
}

/** Runs the client through the scenarios, `parallel` at a time; reports in scenario order. */
export async function runClient(options: ClientRunOptions): Promise<ScenarioReport[]> {
  const reports: ScenarioReport[] = new Array(options.scenarios.length)
  let next = 0
  const worker = async () => {
    while (next < options.scenarios.length) {
      const i = next++
      const scenario = options.scenarios[i] as ClientScenario
      let stack: ScenarioStack
      try {
        stack = await startScenarioStack(
          scenario,
          options.proxyDir ? { proxyDir: options.proxyDir } : {},
          options.clientPorts,
          options.cimdDocuments,
        )
      } catch (err) {
        // One scenario's stack (it stopped what it had started) does not end the run.
        reports[i] = notRun(scenario, `its stack did not start: ${(err as Error).message}`, options)
        options.onReport?.(reports[i] as ScenarioReport)
        continue
      }
      RUNNING.add(stack)
      try {
        reports[i] = await runOnStack(stack, options.command, options)
      } catch (err) {
        reports[i] = notRun(scenario, `the run failed: ${(err as Error).message}`, options)
      } finally {
        RUNNING.delete(stack)
        await stack.stop()
      }
      options.onReport?.(reports[i] as ScenarioReport)
    }
  }
  await Promise.all(
    Array.from(
      { length: Math.max(1, Math.min(options.parallel, options.scenarios.length)) },
      worker,
    ),
  )
  return reports
}
