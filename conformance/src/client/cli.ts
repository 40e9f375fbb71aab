/**
 * `npm run conformance -- client --command "<cmd>" [options]`: judges an MCP client's OAuth flow.
 * The command is run once per scenario with the official MCP conformance suite's calling
 * convention (execute.ts); the reports are the server mode's (console, JUnit, JSON, baseline),
 * one group per scenario. Exit 0 when no MUST failed, 1 otherwise or when nothing was judged,
 * 2 on bad usage.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { Command, InvalidArgumentError } from 'commander'
import { commaList } from '../cli-options.js'
import { referenceProxy } from '../gatehouse-process.js'
import { clientHtmlReport } from '../report/html/client.js'
import { consoleReport, jsonReport, junitReport } from '../report.js'
import { parseBaseline, summarize } from '../runner.js'
import { parseSpecVersion, SELECTABLE_REVISIONS, type SpecRevision } from '../spec-version.js'
import { CLIENT_CATALOGUE } from './checks/index.js'
import { portRange } from './recorder.js'
import { type ClientResult, runClient, type ScenarioReport, stopRunningStacks } from './run.js'
import { SCENARIOS, scenarioNamed } from './scenarios.js'
import { DEFAULT_REVISIONS, selectScenarios } from './spec-revision.js'

/** `--port-range from-to`: loopback ports, from ≤ to. */
function parseRange(v: string): [number, number] {
  const m = /^(\d+)-(\d+)$/.exec(v)
  const [from, to] = [Number(m?.[1]), Number(m?.[2])]
  if (!m || from < 1 || to > 65535 || from > to)
    throw new InvalidArgumentError(`--port-range: expected from-to such as 41000-41099, got "${v}"`)
  return [from, to]
}

const positive = (name: string) => (v: string) => {
  const n = Number(v)
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError(`${name}: expected a positive integer, got "${v}"`)
  return n
}

/** Writes `text` and exits with `code` once it is flushed. */
function exitAfter(
  text: string,
  code: number,
  stream: NodeJS.WriteStream = process.stdout,
): Promise<never> {
  return new Promise<never>(() => {
    stream.write(text, () => process.exit(code))
  })
}

/** The scenarios and requirements, for `--list`. */
function listing(): string {
  const lines = [
    `Scenarios (the MCP revision each follows; MCP_CONFORMANCE_SCENARIO in brackets; default --spec-version ${DEFAULT_REVISIONS.join(',')}):`,
  ]
  for (const s of SCENARIOS)
    lines.push(`  ${s.name.padEnd(22)} ${s.revision} [${s.clientScenario}] ${s.title}`)
  lines.push('', 'Requirements:')
  for (const r of CLIENT_CATALOGUE) {
    const where = SCENARIOS.filter((s) => r.appliesTo(s)).map((s) => s.name)
    const scope = where.length === SCENARIOS.length ? 'every scenario' : where.join(', ')
    lines.push(
      `  ${r.id.padEnd(15)} ${r.level.padEnd(6)} ${r.text}`,
      `  ${''.padEnd(22)}in: ${scope}`,
    )
  }
  return `${lines.join('\n')}\n`
}

/** One line per scenario: how the client run ended. */
function runsTable(reports: readonly ScenarioReport[]): string {
  // A column at least one space wider than the longest name (idp-endpoints-on-other-hosts: 28).
  const width = Math.max(27, ...reports.map((r) => r.scenario.length + 1))
  const lines = [`${'scenario'.padEnd(width)}exit       time     requests`]
  for (const r of reports) {
    const end = r.error
      ? 'not run'
      : r.run.timedOut
        ? 'timeout'
        : String(r.run.exitCode ?? r.run.signal)
    lines.push(
      `${r.scenario.padEnd(width)}${end.padEnd(11)}${`${(r.run.durationMs / 1000).toFixed(1)} s`.padEnd(9)}${r.requests}`,
    )
  }
  return `${lines.join('\n')}\n\n`
}

/** Runs the client mode with `argv` (after `client`); never returns (it exits). */
export async function clientMain(argv: readonly string[]): Promise<never> {
  const program = new Command()
    .name('conformance client')
    .description("Judge an MCP client's OAuth flow against real-world IdP shapes.")
    .option('--command <cmd>', 'the client to run; the server URL is appended as its last argument')
    .option(
      '--scenario <names>',
      `scenarios to run (default all: ${SCENARIOS.map((s) => s.name).join(', ')})`,
      commaList,
    )
    .option(
      '--spec-version <revisions>',
      `the MCP revisions to judge, comma-separated (${SELECTABLE_REVISIONS.join(', ')}); default ${DEFAULT_REVISIONS.join(',')}: 2025-03-26 scenarios run only when asked for, by this or by --scenario`,
      (value: string, previous?: SpecRevision[]) => {
        try {
          return parseSpecVersion(value, previous)
        } catch (err) {
          throw new InvalidArgumentError((err as Error).message)
        }
      },
    )
    .option('--timeout <ms>', 'time limit of one client run', positive('--timeout'), 30_000)
    .option('--parallel <n>', 'scenarios run at once', positive('--parallel'), 2)
    .option(
      '--cimd-document <file>',
      "your Client ID Metadata Document (JSON; its client_id is its https URL): the cimd scenario's IdP knows it as if it fetched that URL, with your redirect_uris",
    )
    .option(
      '--port-range <from-to>',
      'ports the client sees (the recorders in front of the gateway and the IdP), e.g. 41000-41099 for a client that allows only known redirect or server ports',
      parseRange,
    )
    .option('--only <ids>', 'judge only these requirement IDs', commaList)
    .option('--skip <ids>', 'do not judge these requirement IDs', commaList)
    .option('--baseline <file>', 'expected failures: CLI-… or <scenario>/CLI-… per line')
    .option('--junit <file>', 'write a JUnit XML report')
    .option('--json <file>', 'write a JSON report')
    .option('--html <file>', 'write an HTML report: one page, a sequence diagram per scenario')
    .option('--list', 'list the scenarios and requirements, then exit')
    .showHelpAfterError()
  program.exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2))
  program.parse([...argv], { from: 'user' })
  const opts = program.opts<{
    command?: string
    scenario?: string[]
    specVersion?: SpecRevision[]
    timeout: number
    parallel: number
    only?: string[]
    skip?: string[]
    baseline?: string
    junit?: string
    json?: string
    html?: string
    list?: boolean
    portRange?: [number, number]
    cimdDocument?: string
  }>()
  if (opts.list) return exitAfter(listing(), 0)
  const fail = (message: string) => exitAfter(`conformance client: ${message}\n`, 2, process.stderr)
  if (!opts.command?.trim())
    return fail('--command is required: the client to run, e.g. --command "npx tsx my-client.ts"')
  const unknown = (opts.scenario ?? []).filter((n) => !scenarioNamed(n))
  if (unknown.length > 0)
    return fail(
      `unknown scenario ${unknown.join(', ')}; scenarios are ${SCENARIOS.map((s) => s.name).join(', ')}`,
    )
  const revisions = opts.specVersion
  let baseline: Set<string> | undefined
  if (opts.baseline) {
    try {
      baseline = parseBaseline(readFileSync(opts.baseline, 'utf8'))
    } catch (err) {
      return fail(`cannot read the baseline ${opts.baseline}: ${(err as Error).message}`)
    }
  }
  if (!referenceProxy()) {
    // Every scenario runs the reference proxy: the checkout's sources or the package's build.
    return fail(
      'the client mode runs the reference proxy (gatehouse) in each scenario, and it is missing: run `npm run build` in the checkout, or reinstall the package',
    )
  }
  const scenarios = selectScenarios(SCENARIOS, {
    ...(opts.scenario ? { names: opts.scenario } : {}),
    ...(revisions ? { revisions } : {}),
  })
  if (scenarios.length === 0)
    return fail(
      `no scenario is both named by --scenario and of --spec-version ${revisions?.join(',')}: --list shows each scenario's revision`,
    )
  let cimd: Record<string, unknown> | undefined
  if (opts.cimdDocument) {
    try {
      cimd = JSON.parse(readFileSync(opts.cimdDocument, 'utf8')) as Record<string, unknown>
    } catch (err) {
      return fail(
        `cannot read the metadata document ${opts.cimdDocument}: ${(err as Error).message}`,
      )
    }
    const id = typeof cimd.client_id === 'string' ? cimd.client_id : ''
    if (!/^https:\/\/[^/]+\/.+/.test(id) || !Array.isArray(cimd.redirect_uris))
      return fail(
        `${opts.cimdDocument}: a Client ID Metadata Document needs client_id, an https URL with a path (its own URL), and redirect_uris`,
      )
  }
  const started = performance.now()
  // Interrupted: every scenario's stack (gatehouse processes included) ends with the harness.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void stopRunningStacks().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143))
    })
  }
  let reports: ScenarioReport[]
  try {
    reports = await runClient({
      ...(opts.portRange ? { clientPorts: portRange(...opts.portRange) } : {}),
      ...(cimd ? { cimdDocuments: [cimd] } : {}),
      command: opts.command,
      scenarios,
      timeoutMs: opts.timeout,
      parallel: opts.parallel,
      ...(opts.only ? { only: opts.only } : {}),
      ...(opts.skip ? { skip: opts.skip } : {}),
      ...(baseline ? { baseline } : {}),
      onReport: (r) => {
        const failed = r.results.filter(
          (x) => x.status === 'failed' && x.baseline !== 'expected-failure',
        )
        process.stderr.write(
          `client: ${r.scenario}: ${failed.length ? `${failed.length} failed` : 'ok'}\n`,
        )
      },
    })
  } catch (err) {
    const message = `conformance client: a scenario's stack failed: ${(err as Error).message}\n`
    return exitAfter(message, 1, process.stderr)
  }
  const results: ClientResult[] = reports.flatMap((r) => r.results)
  const groups = reports.map((r) => r.scenario)
  const runs = reports.map((r) => ({
    scenario: r.scenario,
    clientScenario: r.clientScenario,
    serverUrl: r.serverUrl,
    exitCode: r.run.exitCode,
    signal: r.run.signal,
    timedOut: r.run.timedOut,
    durationMs: r.run.durationMs,
    requests: r.requests,
    stderrTail: r.run.stderr.slice(-2000),
    ...(r.error ? { error: r.error } : {}),
    log: r.log,
  }))
  if (opts.junit) writeFileSync(opts.junit, junitReport(results, groups))
  if (opts.json) writeFileSync(opts.json, jsonReport(results, { client: opts.command }, { runs }))
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  const title = `client "${opts.command}", ${reports.length} scenarios (${seconds} s)`
  if (opts.html)
    writeFileSync(opts.html, clientHtmlReport(reports, { title, command: opts.command }))
  const { mustFailed, passed, failed } = summarize(results)
  if (passed + failed === 0) {
    process.stderr.write(
      'conformance client: nothing was judged: every check was skipped (check --only, --skip and --scenario)\n',
    )
  }
  // Baseline entries naming no requirement (a typo, or a requirement renamed) are said first:
  // the report's last line stays `N passed, N failed, N skipped`.
  const known = new Set(CLIENT_CATALOGUE.map((r) => r.id))
  const strays = [...(baseline ?? [])].filter((b) => !known.has(b.split('/').at(-1) ?? ''))
  const note = strays.length
    ? `baseline entries naming no requirement: ${strays.join(', ')}\n\n`
    : ''
  const notRun = reports.filter((r) => r.error)
  const broken = notRun.length
    ? `scenarios not run (the harness's fault, not the client's): ${notRun.map((r) => `${r.scenario}: ${r.error}`).join('; ')}\n\n`
    : ''
  const out = `${runsTable(reports)}${broken}${note}${consoleReport(results, title, groups)}\n`
  return exitAfter(out, mustFailed > 0 || passed + failed === 0 || notRun.length > 0 ? 1 : 0)
}
