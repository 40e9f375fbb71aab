/**
 * The `gatehouse` command: `gatehouse -f <config.yaml>` runs the proxy; `--validate` checks a
 * file and exits. Exit codes: 0 ok, 1 invalid configuration or start-up failure, 2 bad usage.
 */
import { parseArgs } from 'node:util'
import { onShutdownSignals } from '@gatehouse/support'
import { GatehouseError } from './errors.js'
import type { Gatehouse } from './index.js'
import { VERSION } from './version.js'

const USAGE = `Usage: gatehouse -f <config.yaml | manifests.yaml | dir/> [-f ...] [--validate]

Protects an MCP server with OAuth 2.0 bearer JWTs from an external identity provider.

Options:
  -f, --file <path>   configuration: the standalone file, or Kubernetes manifests (several
                      documents, kind: List, or a directory of them); repeatable.
                      \${ENV} and \${ENV:-default} are substituted
      --api-group <g> API group of GatewayBackend and GatewayPolicy (default gateway.example.dev)
      --validate      check the configuration file and exit (0 valid, 1 invalid)
  -v, --version       print the version
  -h, --help          print this help

Reload: the files are watched; SIGHUP and admin POST /reload reload them too. A configuration
that fails validation is refused and the running one keeps serving.

Docs: docs/configuration.md (every field, "Kubernetes resources"), docs/admin-api.md (admin interface).`

/**
 * Runs the command.
 * @returns the exit code (the process exits with it once the proxy stopped).
 */
export async function run(argv: readonly string[]): Promise<number> {
  let values: {
    file?: string[]
    'api-group'?: string
    validate?: boolean
    version?: boolean
    help?: boolean
  }
  try {
    ;({ values } = parseArgs({
      args: [...argv],
      options: {
        file: { type: 'string', short: 'f', multiple: true },
        'api-group': { type: 'string' },
        validate: { type: 'boolean' },
        version: { type: 'boolean', short: 'v' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }))
  } catch (err) {
    process.stderr.write(`gatehouse: ${(err as Error).message}\n\n${USAGE}\n`)
    return 2
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`)
    return 0
  }
  if (values.version) {
    process.stdout.write(`gatehouse ${VERSION}\n`)
    return 0
  }
  if (!values.file || values.file.length === 0) {
    process.stderr.write(`gatehouse: missing -f <config.yaml>\n\n${USAGE}\n`)
    return 2
  }
  try {
    // Loaded only now, so that --help, --version and usage errors stay cheap (no proxy, no
    // dependencies: the build puts these imports in chunks of their own).
    const { loadConfigSources, requireListener, resourceProblems } = await import(
      './config/sources.js'
    )
    const loadOptions = values['api-group'] ? { apiGroup: values['api-group'] } : {}
    const source = await loadConfigSources(values.file, loadOptions)
    const { config } = source
    const label = values.file.join(', ')
    const { compileOrThrow } = await import('./compile.js')
    if (values.validate) {
      await compileOrThrow(config, label, source.locate)
      const { configWarnings } = await import('./config/warnings.js')
      const warnings = [
        ...source.warnings,
        ...configWarnings(config).map(source.locate),
        ...resourceProblems(source.resources),
      ]
      for (const w of warnings)
        process.stderr.write(`gatehouse: warning: ${w.path}: ${w.message}\n`)
      const n = (o: object) => Object.keys(o).length
      const resources =
        source.format === 'kubernetes' ? `${source.resources.length} resource(s) -> ` : ''
      process.stdout.write(
        `${label}: configuration is valid (${resources}${n(config.gateways)} gateway(s), ${n(config.routes)} route(s), ${n(config.backends)} backend(s), ${n(config.policies)} policy(ies))\n`,
      )
      return 0
    }
    requireListener(config, label)
    // Handlers first: a signal that arrives while starting (or just after the "listening" line)
    // must still stop gracefully, not kill the process with the default action.
    // The first signal drains (the proxy logs its own stop, and this function returns once
    // stopped); a second one exits at once, without draining.
    let gatehouse: Gatehouse | undefined
    let early: NodeJS.Signals | undefined
    onShutdownSignals(
      async (signal) => {
        if (gatehouse) await gatehouse.stop(signal)
        else early = signal
      },
      { name: 'gatehouse', announce: false, exit: false },
    )
    const { startGatehouse } = await import('./index.js')
    // Compiled (and its issues located) by the running proxy when it applies the result.
    const loadConfig = () => loadConfigSources(values.file as string[], loadOptions)
    gatehouse = await startGatehouse({ config, configFile: label, source, loadConfig })
    if (early) void gatehouse.stop(early)
    const running = gatehouse
    // Reload triggers: SIGHUP and changes to the files (admin POST /reload is the third).
    const onHup = () => void running.reload('SIGHUP')
    process.on('SIGHUP', onHup)
    const { watchSources } = await import('./config/watch.js')
    const watcher = watchSources(values.file, () => void running.reload('watch'), {
      log: running.logging.logger('proxy::config'),
    })
    await gatehouse.stopped
    watcher.close()
    process.off('SIGHUP', onHup)
    return 0
  } catch (err) {
    if (err instanceof GatehouseError) {
      process.stderr.write(`gatehouse: ${err.message}\n`)
      return 1
    }
    process.stderr.write(`gatehouse: unexpected error: ${(err as Error).stack ?? String(err)}\n`)
    return 1
  }
}
