/**
 * `gwctl proxy metrics`: the proxy's Prometheus metrics (admin `/metrics`, docs/observability.md) as
 * a table of the series that moved — requests by route, status and policy outcome, auth failures,
 * JWKS refreshes, latencies, open streams, MCP tool calls and denials — or, with `--raw`, the
 * exposition text itself.
 */
import { Command } from 'commander'
import { write } from '../io.js'
import { parseExposition, renderMetrics } from '../render/metrics.js'
import { type Action, adminClientOf } from './context.js'

/** Builds `metrics`; `setAction` receives the action to run. */
export function metricsCommand(setAction: (a: Action) => void): Command {
  return new Command('metrics')
    .description("Show the proxy's metrics (admin /metrics) as a table, or raw with --raw")
    .option('--local', 'the proxy of the local admin interface (the default)')
    .option('--raw', 'print the Prometheus exposition text unchanged')
    .option('--all', 'also show the process and Node.js metrics')
    .option('--filter <text>', 'only metrics whose name contains <text> (e.g. tool_calls)')
    .addHelpText(
      'after',
      `
Series that are zero are left out; histograms show their count and mean.

Examples:
  gwctl proxy metrics
  gwctl proxy metrics --filter mcp_
  gwctl proxy metrics --raw > metrics.txt`,
    )
    .action((opts: { raw?: boolean; all?: boolean; filter?: string }, cmd: Command) => {
      const client = adminClientOf(cmd)
      setAction(async (io) => {
        const text = await (await client.expectOk('/metrics')).text()
        if (opts.raw) {
          await write(io.stdout, text)
          return 0
        }
        const options = {
          ...(opts.all ? { all: true } : {}),
          ...(opts.filter ? { filter: opts.filter } : {}),
        }
        await write(io.stdout, `${renderMetrics(parseExposition(text), options)}\n`)
        return 0
      })
    })
}
