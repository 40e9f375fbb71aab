/**
 * The gwctl command line: `run(argv)` parses, runs one subcommand and returns the exit code.
 * Exit codes: 0 success, 1 the operation failed (admin unreachable, bad file, 404 …), 2 the
 * command line is wrong, 130 interrupted by Ctrl-C before the operation completed.
 */
import { Command, CommanderError } from 'commander'
import { configCommand } from './commands/config.js'
import type { Action } from './commands/context.js'
import { logCommand } from './commands/log.js'
import { metricsCommand } from './commands/metrics.js'
import { profileCommand } from './commands/profile.js'
import { statusCommand } from './commands/status.js'
import { traceCommand } from './commands/trace.js'
import { GWCTL_VERSION, versionCommand } from './commands/version.js'
import { GwctlError } from './errors.js'
import { type CliIo, withDefaults, write } from './io.js'

/** Builds the command tree; the chosen subcommand hands its action to `setAction`. */
export function buildProgram(io: CliIo, setAction: (a: Action) => void): Command {
  const program = new Command('gwctl')
    .description('Debug a standalone gatehouse proxy through its admin interface')
    .version(GWCTL_VERSION, '--version', 'print the gwctl version')
    .option('-p, --port <port>', 'admin port on 127.0.0.1 (default 15000)')
    .option('--admin <addr>', 'admin address: host:port or unix:/path (overrides -p)')
    .addHelpText(
      'after',
      `
The admin interface listens on config.adminAddr (default localhost:15000).

Examples:
  gwctl proxy config all --local -o short
  gwctl proxy status
  gwctl proxy trace --local
  gwctl -p 15001 proxy profile heap --local
  gwctl --admin unix:/run/gatehouse/admin.sock proxy log --level debug`,
    )
  const proxy = new Command('proxy').description('Inspect and debug a running proxy')
  proxy.addCommand(configCommand(setAction))
  proxy.addCommand(traceCommand(setAction))
  proxy.addCommand(profileCommand(setAction))
  proxy.addCommand(logCommand(setAction))
  proxy.addCommand(metricsCommand(setAction))
  proxy.addCommand(statusCommand(setAction))
  program.addCommand(proxy)
  program.addCommand(versionCommand(setAction))
  configureTree(program, io)
  return program
}

/** addCommand does not pass settings down, so every command gets them here. */
function configureTree(cmd: Command, io: CliIo): void {
  cmd
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .showHelpAfterError('(add --help for usage)')
  for (const sub of cmd.commands) configureTree(sub, io)
}

/**
 * Runs gwctl with `argv` (without `node` and the script), writing to `io`.
 * @returns the process exit code; nothing is thrown for an expected failure.
 */
export async function run(argv: readonly string[], io: Partial<CliIo> = {}): Promise<number> {
  const cliIo = withDefaults(io)
  let action: Action | undefined
  const program = buildProgram(cliIo, (a) => {
    action = a
  })
  try {
    await program.parseAsync([...argv], { from: 'user' })
    if (!action) return 0
    return await action(cliIo)
  } catch (err) {
    if (err instanceof CommanderError) {
      // commander already printed help or the error; help asked for is success, a wrong line is 2.
      return err.exitCode === 0 ? 0 : 2
    }
    if (err instanceof GwctlError) {
      await write(cliIo.stderr, `gwctl: ${err.message}\n`)
      return err.exitCode
    }
    await write(cliIo.stderr, `gwctl: unexpected failure: ${(err as Error).stack ?? String(err)}\n`)
    return 1
  }
}
