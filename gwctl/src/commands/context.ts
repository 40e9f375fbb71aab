/**
 * What every subcommand gets: the I/O of the run and the admin client built from the global
 * `-p, --port` / `--admin` options.
 */
import type { Command } from 'commander'
import { AdminClient, resolveAdminAddress } from '../admin-client.js'
import type { CliIo } from '../io.js'

/** The global options (declared on the root command, accepted before or after a subcommand). */
export interface GlobalOptions {
  port?: string
  admin?: string
}

/** The admin client for a command, from its global options. */
export function adminClientOf(cmd: Command): AdminClient {
  return new AdminClient(resolveAdminAddress(cmd.optsWithGlobals<GlobalOptions>()))
}

/** A subcommand's action: returns the exit code of the run. */
export type Action = (io: CliIo) => Promise<number>
