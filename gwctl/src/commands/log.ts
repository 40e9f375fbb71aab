/**
 * `gwctl proxy log`: reads or sets the proxy's log filter through the admin `/logging` endpoint
 * (seed, "Admin interface": GET reads, POST with `level` sets; levels error…trace or a
 * per-module filter such as `info,proxy::dataplane=debug`). The answer is the line
 * `current log level is <filter>`.
 */
import { Command } from 'commander'
import { write } from '../io.js'
import { type Action, adminClientOf } from './context.js'

/** Builds `log`; `setAction` receives the action to run. */
export function logCommand(setAction: (a: Action) => void): Command {
  return new Command('log')
    .description("Show the proxy's log filter, or set it with --level")
    .option('--local', 'the proxy of the local admin interface (the default)')
    .option(
      '--level <filter>',
      'set the filter: error, warn, info, debug, trace or module=level list',
    )
    .addHelpText(
      'after',
      `
Examples:
  gwctl proxy log
  gwctl proxy log --level debug
  gwctl proxy log --level 'info,proxy::dataplane=trace'`,
    )
    .action((opts: { level?: string }, cmd: Command) => {
      const client = adminClientOf(cmd)
      setAction(async (io) => {
        const res = await client.expectOk('/logging', {
          method: opts.level === undefined ? 'GET' : 'POST',
          query: { level: opts.level },
        })
        await write(io.stdout, `${(await res.text()).trimEnd()}\n`)
        return 0
      })
    })
}
