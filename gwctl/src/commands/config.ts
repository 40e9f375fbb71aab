/**
 * `gwctl proxy config all`: renders a config dump, from a saved `/config_dump` file (`--file`)
 * or live from the admin interface (`--local`), as yaml, json or a short status table.
 * Seed, "Command-line tool": `gwctl proxy config all --file <path> -o yaml`.
 */
import { Command, Option } from 'commander'
import { formatAdminAddress } from '../admin-client.js'
import { asConfigDump, type ConfigDump, readConfigDumpFile } from '../config-dump.js'
import { GwctlError, usageError } from '../errors.js'
import { write } from '../io.js'
import { CONFIG_FORMATS, type ConfigFormat, renderConfig } from '../render/config.js'
import { type Action, adminClientOf } from './context.js'

interface ConfigAllOptions {
  file?: string
  local?: boolean
  output: ConfigFormat
}

/** Builds `config` with its `all` subcommand; `setAction` receives the action to run. */
export function configCommand(setAction: (a: Action) => void): Command {
  const config = new Command('config').description('Show the configuration a proxy runs with')
  config
    .command('all')
    .description(
      'Render a config dump: gateways, listeners, routes, backends and policies with their status',
    )
    .addOption(
      new Option('--file <path>', 'read a saved /config_dump file (JSON or YAML)').conflicts(
        'local',
      ),
    )
    .addOption(new Option('--local', 'read the config dump live from the admin interface'))
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(CONFIG_FORMATS).default('json'),
    )
    .addHelpText(
      'after',
      `
Examples:
  curl -s http://127.0.0.1:15000/config_dump > dump.json
  gwctl proxy config all --file dump.json -o yaml
  gwctl proxy config all --local -o short
  gwctl -p 15001 proxy config all --local -o json`,
    )
    .action((opts: ConfigAllOptions, cmd: Command) => {
      if (!opts.file && !opts.local) {
        throw usageError('proxy config all: give --file <path> or --local')
      }
      setAction(async (io) => {
        const dump = opts.file ? await readConfigDumpFile(opts.file) : await fetchDump(cmd)
        await write(io.stdout, renderConfig(dump, opts.output))
        return 0
      })
    })
  return config
}

async function fetchDump(cmd: Command): Promise<ConfigDump> {
  const client = adminClientOf(cmd)
  const res = await client.expectOk('/config_dump')
  const source = `the /config_dump answer of ${formatAdminAddress(client.address)}`
  let doc: unknown
  try {
    doc = JSON.parse(await res.text())
  } catch (err) {
    throw new GwctlError('GWCTL_ERR_NOT_CONFIG_DUMP', `${source} is not JSON`, { cause: err })
  }
  return asConfigDump(doc, source)
}
