/**
 * The HTML report of the client mode (`client --html`): one section per scenario with its
 * sequence diagram, drawn from the runs' recorded traffic.
 */
import { CLIENT_CATALOGUE } from '../../client/checks/index.js'
import type { ScenarioReport } from '../../client/run.js'
import { type Clause, htmlReport, type ScenarioSection } from './page.js'
import { endOf, trafficDiagram } from './traffic-diagram.js'

/** What the client-mode page says besides the runs. */
export interface ClientHtmlOptions {
  /** The console report's title. */
  title: string
  /** `--command`. */
  command: string
  /** When the run ended; default now. */
  generatedAt?: Date
}

/** The sentence each client requirement cites, by ID. */
function clientClauses(): Map<string, Clause> {
  return new Map(CLIENT_CATALOGUE.map((r) => [r.id, { quote: r.quote }]))
}

/** A scenario's section: how its run ended and its diagram. */
export function scenarioSection(r: ScenarioReport): ScenarioSection {
  return {
    name: r.scenario,
    clientScenario: r.clientScenario,
    end: endOf(r),
    requests: r.requests,
    stderrTail: r.run.stderr.slice(-4000),
    diagram: trafficDiagram({
      scenario: r.scenario,
      run: r.run,
      ...(r.error ? { error: r.error } : {}),
      results: r.results,
      traffic: r.traffic ?? [],
      failingSteps: r.failingSteps ?? {},
    }),
  }
}

/** The page for a client-mode run. */
export function clientHtmlReport(
  reports: readonly ScenarioReport[],
  options: ClientHtmlOptions,
): string {
  return htmlReport({
    mode: 'client',
    title: options.title,
    generatedAt: (options.generatedAt ?? new Date()).toISOString(),
    results: reports.flatMap((r) => r.results),
    groups: reports.map((r) => r.scenario),
    clauses: clientClauses(),
    facts: [
      ['client command', options.command],
      ['scenarios', String(reports.length)],
    ],
    scenarios: new Map(reports.map((r) => [r.scenario, scenarioSection(r)])),
  })
}
