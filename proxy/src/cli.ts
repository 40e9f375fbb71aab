/**
 * The `gatehouse` command: `gatehouse -f <config.yaml>` runs the proxy; `--validate` checks a
 * file and exits. Exit codes: 0 ok, 1 invalid configuration or start-up failure, 2 bad usage.
 */
import { parseArgs } from 'node:util'
import { onShutdownSignals } from '@gatehouse/support'
import type { IpcEndpoint } from './cluster/ipc.js'
import type { ConfigInput } from './config/read-input.js'
import { GatehouseError } from './errors.js'
import type { Gatehouse, ReloadTrigger } from './index.js'
import type { Logging } from './telemetry/logging.js'
import { VERSION } from './version.js'

const USAGE = `Usage: gatehouse -f <config.yaml | manifests.yaml | dir/> [-f ...] [--validate [--strict] [--online]]

Protects an MCP server with OAuth 2.0 bearer JWTs from an external identity provider.

Options:
  -f, --file <path>   configuration: the standalone file, or Kubernetes manifests (several
                      documents, kind: List, or a directory of them); repeatable.
                      \${ENV} and \${ENV:-default} are substituted
      --api-group <g> API group of GatewayBackend and GatewayPolicy (default gateway.example.dev)
      --state-dir <d> where broker policies without a store block keep their state
                      (<d>/state.sqlite; default $GATEHOUSE_STATE_DIR, else .gatehouse
                      beside the first -f path)
      --validate      check the configuration file and exit: 0 valid, 1 invalid or when a
                      resource would not be served as written (a reference to nothing)
      --strict        with --validate: exit 1 on any warning too
      --online        with --validate: also fetch each provider's discovery document and
                      keys, and exit 1 when one is missing, names another issuer or has no
                      jwks_uri (docs/idp/)
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
    'state-dir'?: string
    validate?: boolean
    strict?: boolean
    online?: boolean
    version?: boolean
    help?: boolean
  }
  try {
    ;({ values } = parseArgs({
      args: [...argv],
      options: {
        file: { type: 'string', short: 'f', multiple: true },
        'api-group': { type: 'string' },
        'state-dir': { type: 'string' },
        validate: { type: 'boolean' },
        strict: { type: 'boolean' },
        online: { type: 'boolean' },
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
  if (values.strict && !values.validate) {
    process.stderr.write(`gatehouse: --strict goes with --validate\n\n${USAGE}\n`)
    return 2
  }
  if (values.online && !values.validate) {
    process.stderr.write(`gatehouse: --online goes with --validate\n\n${USAGE}\n`)
    return 2
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
    const { default: cluster } = await import('node:cluster')
    if (cluster.isWorker) {
      // A cluster worker loads what the primary accepted, never the files: they may have changed
      // since (a refused edit), and every worker must serve the same configuration.
      const { IpcPeer } = await import('./cluster/ipc.js')
      const primary = new IpcPeer(process as unknown as IpcEndpoint)
      const label = values.file.join(', ')
      const files = values.file
      const inputs = () => primary.call<ConfigInput[]>('config.inputs', [])
      const source = await loadConfigSources(files, { ...loadOptions, inputs: await inputs() })
      // A reload parses and validates on a worker thread, so the data plane keeps answering.
      const { loadConfigSourcesOffThread } = await import('./config/load-thread.js')
      const loadConfig = async () =>
        loadConfigSourcesOffThread(files, { ...loadOptions, inputs: await inputs() })
      const { stateDirOf } = await import('./config/state-dir.js')
      const stateDir = stateDirOf(files, values['state-dir'])
      const { startGatehouse } = await import('./index.js')
      return await serveWorker(() =>
        startGatehouse({
          config: source.config,
          configFile: label,
          source,
          loadConfig,
          primary,
          stateDir,
          trimWhenIdle: true,
        }),
      )
    }
    const source = await loadConfigSources(values.file, loadOptions)
    const { config } = source
    const label = values.file.join(', ')
    const { compileOrThrow } = await import('./lifecycle/compile.js')
    if (values.validate) {
      await compileOrThrow(config, label, source.locate)
      const { configWarnings } = await import('./config/warnings.js')
      const warnings = [...source.warnings, ...configWarnings(config).map(source.locate)]
      for (const w of warnings)
        process.stderr.write(`gatehouse: warning: ${w.path}: ${w.message}\n`)
      // A resource left out (a policy or backend reference resolving to nothing) changes what is
      // served: the configuration is not what its author wrote, so it does not validate.
      const problems = resourceProblems(source.resources)
      for (const p of problems) process.stderr.write(`gatehouse: error: ${p.path}: ${p.message}\n`)
      if (values.online) {
        const { checkProvidersOnline } = await import('./auth/online-check.js')
        const online = await checkProvidersOnline(config)
        for (const p of online) {
          process.stderr.write(`gatehouse: error: ${p.path}: ${p.message}\n`)
        }
        if (online.length > 0) {
          process.stderr.write(
            `gatehouse: ${label}: ${online.length} problem(s) found at the identity provider(s) (--online)\n`,
          )
          return 1
        }
      }
      const n = (o: object) => Object.keys(o).length
      const resources =
        source.format === 'kubernetes' ? `${source.resources.length} resource(s) -> ` : ''
      const counts = `${resources}${n(config.gateways)} gateway(s), ${n(config.routes)} route(s), ${n(config.backends)} backend(s), ${n(config.policies)} policy(ies)`
      if (problems.length > 0) {
        process.stderr.write(
          `gatehouse: ${label}: ${problems.length} resource(s) would not be served as written (${counts})\n`,
        )
        return 1
      }
      if (values.strict && warnings.length > 0) {
        process.stderr.write(
          `gatehouse: ${label}: ${warnings.length} warning(s), refused by --strict (${counts})\n`,
        )
        return 1
      }
      process.stdout.write(`${label}: configuration is valid (${counts})\n`)
      return 0
    }
    requireListener(config, label)
    const { stateDirOf } = await import('./config/state-dir.js')
    const stateDir = stateDirOf(values.file, values['state-dir'])
    // Compiled (and its issues located) by the running proxy when it applies the result. Read,
    // parsed and validated on a worker thread, so that requests are answered meanwhile
    // (docs/reliability.md, "Large configurations").
    const { loadConfigSourcesOffThread } = await import('./config/load-thread.js')
    const loadConfig = () => loadConfigSourcesOffThread(values.file as string[], loadOptions)
    const { workerCount } = await import('./config/workers.js')
    const workers = workerCount(config)
    if (workers > 1) {
      // The primary runs no proxy: it compiles each configuration itself (at start and for every
      // reload) so that a broken one is refused here, before it reaches any worker.
      await compileOrThrow(config, label, source.locate)
      const loadCompiled = async () => {
        const next = await loadConfig()
        await compileOrThrow(next.config, label, next.locate)
        return next
      }
      const { startCluster } = await import('./cluster/primary.js')
      return await serve(
        () => startCluster({ config, source, workers, loadConfig: loadCompiled }),
        values.file,
      )
    }
    const { startGatehouse } = await import('./index.js')
    return await serve(
      () =>
        startGatehouse({
          config,
          configFile: label,
          source,
          loadConfig,
          stateDir,
          trimWhenIdle: true,
        }),
      values.file,
    )
  } catch (err) {
    // A broker store file that cannot be used (SqliteStoreError, matched by name so that this
    // module does not load the store): its message says what was wrong and what to do.
    if (err instanceof GatehouseError || (err as Error)?.name === 'SqliteStoreError') {
      process.stderr.write(`gatehouse: ${(err as Error).message}\n`)
      return 1
    }
    process.stderr.write(`gatehouse: unexpected error: ${(err as Error).stack ?? String(err)}\n`)
    return 1
  }
}

/** What {@link serve} runs: a single proxy, or a cluster primary. */
interface Running {
  readonly logging: Logging
  reload(trigger: ReloadTrigger): Promise<unknown>
  stop(reason: string): Promise<void>
  readonly stopped: Promise<string>
}

/**
 * Runs the proxy (or the cluster primary) until it stops: signals stop it gracefully, SIGHUP and
 * changes to `files` reload it.
 */
async function serve(start: () => Promise<Running>, files: string[]): Promise<number> {
  // Handlers first: a signal that arrives while starting (or just after the "listening" line)
  // must still stop gracefully, not kill the process with the default action.
  // The first signal drains (the proxy logs its own stop, and this function returns once
  // stopped); a second one exits at once, without draining.
  let running: Running | undefined
  let early: NodeJS.Signals | undefined
  onShutdownSignals(
    async (signal) => {
      if (running) await running.stop(signal)
      else early = signal
    },
    { name: 'gatehouse', announce: false, exit: false },
  )
  const started = await start()
  running = started
  if (early) void started.stop(early)
  // Reload triggers: SIGHUP and changes to the files (admin POST /reload is the third).
  const onHup = () => void started.reload('SIGHUP')
  process.on('SIGHUP', onHup)
  const { watchSources } = await import('./config/watch.js')
  const watcher = watchSources(files, () => void started.reload('watch'), {
    log: started.logging.logger('proxy::config'),
  })
  await started.stopped
  watcher.close()
  process.off('SIGHUP', onHup)
  return 0
}

/**
 * Runs a cluster worker until it stops. The primary coordinates: it reloads the worker, and stops
 * it (the worker drains, then exits). SIGINT and SIGHUP, which a terminal sends to every process
 * of the group, are left to the primary; SIGTERM sent to the worker alone, or the primary going away,
 * stops it too.
 */
async function serveWorker(start: () => Promise<Gatehouse>): Promise<number> {
  let gatehouse: Gatehouse | undefined
  let early: string | undefined
  const stopFor = (reason: string) => {
    if (gatehouse) void gatehouse.stop(reason)
    else early ??= reason
  }
  process.on('SIGINT', () => {})
  // The primary reloads every worker; a SIGHUP sent to the whole group must not end this one.
  process.on('SIGHUP', () => {})
  process.on('SIGTERM', () => stopFor('SIGTERM'))
  process.once('disconnect', () => stopFor('the cluster primary exited'))
  gatehouse = await start()
  if (early) void gatehouse.stop(early)
  await gatehouse.stopped
  return 0
}
