/**
 * Runs a client through scenarios: one stack per scenario (several at once, each on its own
 * ports), the client executed against it, then every client requirement that applies judged
 * from what the recorders saw. Results are the server mode's report rows, grouped by scenario.
 */
import { baselineMark, outcomeOf } from '../runner.js'
import type { ReportRow } from '../types.js'
import { CLIENT_CATALOGUE, type ClientRequirement } from './checks/index.js'
import { type ClientRun, executeClient } from './execute.js'
import { Flow } from './flow.js'
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
      results.push({ ...base, status: 'skipped', message: 'not selected' })
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
      if (outcome.status === 'failed' && shown) result.evidence = toEvidence(shown)
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
  return {
    scenario: stack.scenario.name,
    clientScenario: stack.scenario.clientScenario,
    serverUrl: stack.serverUrl,
    run,
    results: judge(stack, entries, run, options),
    requests: entries.length,
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
      const stack = await startScenarioStack(
        scenario,
        options.proxyDir ? { proxyDir: options.proxyDir } : {},
      )
      try {
        reports[i] = await runOnStack(stack, options.command, options)
      } finally {
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
