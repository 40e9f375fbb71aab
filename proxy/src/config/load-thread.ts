/**
 * Loading the configuration on a worker thread, so that a reload of a large configuration does
 * not stall the requests the running one serves (docs/reliability.md, "Large configurations").
 * The read, the YAML parse, the `${ENV}` substitution, the Kubernetes translation and the schema
 * validation — nearly all of a reload's time at 10,000 routes (bench/RESULTS.md, "bench:scale") —
 * run in a `node:worker_threads` worker, started on the first reload and kept for the next; the main thread receives the
 * validated configuration as JSON text in parts and parses, revives and freezes one part per turn
 * of the event loop (`./transfer.ts`). What the worker finds wrong comes back as the same `ConfigError`, worded and located
 * exactly as {@link loadConfigSources} words it on the main thread (file, line, field, never
 * content).
 *
 * The compile (CEL programs, key sets) stays on the main thread: its results are functions and
 * objects that cannot cross threads (`../compile.ts` yields between routes instead).
 */
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import { ConfigError, type ConfigIssue, type ErrorCode } from '../errors.js'
import type { ResourceFindings } from './kubernetes/findings.js'
import { configDigest } from './load.js'
import type { ConfigInput } from './read-input.js'
import {
  type ConfigSource,
  configSourceOf,
  loadConfigSources,
  type SourceOptions,
} from './sources.js'
import { type PackedConfig, packConfig, unpackConfig } from './transfer.js'
import { configWarnings } from './warnings.js'

/** Marks the `workerData` of a configuration load, so that the module serves only such a worker. */
const TAG = 'gatehouse:config-load'

interface LoadRequest {
  paths: readonly string[]
  options: SourceOptions
}

/** A loaded configuration, as plain data that crosses threads. */
interface LoadedSource {
  ok: true
  /** The validated configuration, as text in parts (a structured clone of it stalled the main thread). */
  config: PackedConfig
  digest: string
  paths: readonly string[]
  inputs: readonly ConfigInput[]
  format: ConfigSource['format']
  apiGroup: string
  resources: readonly ResourceFindings[]
  warnings: readonly ConfigIssue[]
  /** `configWarnings(config)`, each before and after `locate`. */
  located: readonly (readonly [ConfigIssue, ConfigIssue])[]
}

type LoadReply =
  | LoadedSource
  | {
      ok: false
      error:
        | { kind: 'config'; code: ErrorCode; issues: readonly ConfigIssue[]; file?: string }
        | { kind: 'other'; message: string }
    }

/**
 * {@link loadConfigSources} on a worker thread: resolves with the same {@link ConfigSource}, or
 * rejects with the same {@link ConfigError}. A `ConfigSource` of this load has a `digest`; its
 * `locate` knows the configuration warnings' places, and locates another issue (a compile
 * issue of a Kubernetes source) by translating the resources again on the calling thread.
 */
export function loadConfigSourcesOffThread(
  paths: readonly string[],
  options: SourceOptions = {},
): Promise<ConfigSource> {
  const request: LoadRequest = { paths: [...paths], options }
  return new Promise<LoadReply>((resolve, reject) => {
    loader().ask(request, resolve, reject)
  }).then((reply) => {
    if (!reply.ok) {
      const e = reply.error
      throw e.kind === 'config'
        ? new ConfigError(configCode(e.code), e.issues, e.file)
        : new Error(e.message)
    }
    return revive(reply, paths, options)
  })
}

/** One load in flight: its callbacks. */
interface Pending {
  resolve(reply: LoadReply): void
  reject(err: Error): void
}

/**
 * The load worker: started on the first reload and kept for the next ones (a thread and its
 * module graph cost more to start than a small configuration costs to load; a watcher can fire
 * many reloads in a row). It holds the process open only while a load is in flight. A worker that
 * fails or exits rejects what it had in flight and is started afresh for the next load.
 */
class LoadWorker {
  readonly #worker: Worker
  readonly #pending = new Map<number, Pending>()
  #next = 0
  #gone = false

  constructor() {
    const entry = new URL(import.meta.url)
    this.#worker = entry.pathname.endsWith('.ts')
      ? sourceWorker(entry)
      : new Worker(fileURLToPath(entry), { workerData: { [TAG]: true } })
    this.#worker.unref()
    this.#worker.on('message', ({ id, reply }: { id: number; reply: LoadReply }) => {
      const pending = this.#pending.get(id)
      this.#pending.delete(id)
      if (this.#pending.size === 0) this.#worker.unref()
      pending?.resolve(reply)
    })
    this.#worker.on('error', (err) =>
      this.#fail(new Error(`configuration load failed: ${err.message}`, { cause: err })),
    )
    this.#worker.once('exit', (code) =>
      this.#fail(new Error(`configuration load ended without an answer (exit ${code})`)),
    )
  }

  /** Whether the thread failed or exited: the next load needs a new one. */
  get gone(): boolean {
    return this.#gone
  }

  /** Sends one load; `resolve` gets the worker's reply, `reject` a worker that failed. */
  ask(request: LoadRequest, resolve: Pending['resolve'], reject: Pending['reject']): void {
    const id = this.#next++
    this.#pending.set(id, { resolve, reject })
    this.#worker.ref()
    try {
      this.#worker.postMessage({ id, request })
    } catch (err) {
      // A request that cannot be cloned never reaches the worker: forget it, release the thread.
      this.#pending.delete(id)
      if (this.#pending.size === 0) this.#worker.unref()
      throw err
    }
  }

  #fail(err: Error): void {
    this.#gone = true
    for (const pending of this.#pending.values()) pending.reject(err)
    this.#pending.clear()
  }
}

let shared: LoadWorker | undefined

/** The load worker, started when there is none or the last one is gone. */
function loader(): LoadWorker {
  if (!shared || shared.gone) shared = new LoadWorker()
  return shared
}

/**
 * The worker when this module runs from its TypeScript source (tsx, the tests): the thread
 * registers tsx's loader (`tsx/esm/api`; the `--import tsx` of the process does not reach worker
 * threads) before it imports this module. The build runs JavaScript and needs none of it.
 */
function sourceWorker(entry: URL): Worker {
  const tsx = dirname(createRequire(entry).resolve('tsx/package.json'))
  // tsx's package.json exports `./esm/api` for import as this file.
  const api = pathToFileURL(join(tsx, 'dist/esm/api/index.mjs')).href
  const code = `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}) })`
  return new Worker(code, { eval: true, workerData: { [TAG]: true } })
}

function configCode(code: ErrorCode): Extract<ErrorCode, `GW_ERR_CONFIG_${string}`> {
  return code.startsWith('GW_ERR_CONFIG_')
    ? (code as Extract<ErrorCode, `GW_ERR_CONFIG_${string}`>)
    : 'GW_ERR_CONFIG_INVALID'
}

/** The {@link ConfigSource} of a reply: parsed a part per turn, `Duration`s back in place, frozen. */
async function revive(
  reply: LoadedSource,
  paths: readonly string[],
  options: SourceOptions,
): Promise<ConfigSource> {
  const config = await unpackConfig(reply.config)
  const known = new Map(reply.located.map(([raw, at]) => [issueKey(raw), at]))
  let fallback: ((issue: ConfigIssue) => ConfigIssue) | undefined
  const locate = (issue: ConfigIssue): ConfigIssue => {
    const at = known.get(issueKey(issue))
    if (at) return at
    if (reply.format === 'standalone') return issue
    // A compile issue of a Kubernetes source (rare, and a failing reload): its resource and line
    // come from the translation, which is kept on the worker; translate again here.
    fallback ??= relocator(reply.inputs, paths, options)
    return fallback(issue)
  }
  return {
    config,
    digest: reply.digest,
    paths: reply.paths,
    inputs: reply.inputs,
    format: reply.format,
    apiGroup: reply.apiGroup,
    resources: reply.resources,
    warnings: reply.warnings,
    configWarnings: reply.located.map(([, at]) => at),
    locate,
  }
}

function issueKey(issue: ConfigIssue): string {
  return `${issue.path}\u0000${issue.message}`
}

/** The `locate` of the same inputs translated (and validated) again on this thread. */
function relocator(
  inputs: readonly ConfigInput[],
  paths: readonly string[],
  options: SourceOptions,
): (issue: ConfigIssue) => ConfigIssue {
  try {
    return configSourceOf(inputs, paths, options).locate
  } catch {
    return (issue) => issue
  }
}

/** The worker's side: one load, one reply. */
async function serve(request: LoadRequest): Promise<LoadReply> {
  let reply: LoadReply
  try {
    const source = await loadConfigSources(request.paths, request.options)
    reply = {
      ok: true,
      config: packConfig(source.config),
      digest: configDigest(source.config),
      paths: source.paths,
      inputs: source.inputs,
      format: source.format,
      apiGroup: source.apiGroup,
      resources: source.resources,
      warnings: source.warnings,
      located: configWarnings(source.config).map((w) => [w, source.locate(w)] as const),
    }
  } catch (err) {
    reply = {
      ok: false,
      error:
        err instanceof ConfigError
          ? { kind: 'config', code: err.code, issues: err.issues, file: err.file }
          : { kind: 'other', message: (err as Error)?.message ?? String(err) },
    }
  }
  return reply
}

if (!isMainThread && workerData && typeof workerData === 'object' && TAG in workerData) {
  parentPort?.on('message', ({ id, request }: { id: number; request: LoadRequest }) => {
    void serve(request).then((reply) => parentPort?.postMessage({ id, reply }))
  })
}
