/**
 * Loading the configuration from what `gatehouse -f` names: one or more files or directories,
 * holding the standalone configuration, Kubernetes manifests (`kubectl apply -f` input: several
 * documents, `kind: List`, a directory), or both (a standalone document with `config:` beside
 * manifests). Manifests are translated (`./kubernetes/translate.ts`) and then validated exactly as
 * a standalone file is (`validateConfig`); errors name the resource, the field and the line.
 */
import { ConfigError, type ConfigIssue } from '../errors.js'
import { parseDocuments } from './kubernetes/documents.js'
import type { ResourceFindings } from './kubernetes/findings.js'
import { DEFAULT_API_GROUP, sortDocuments } from './kubernetes/resources.js'
import { translateResources } from './kubernetes/translate.js'
import { validateConfig, validateDocument } from './load.js'
import { type ConfigInput, MAX_CONFIG_BYTES, readConfigInputs } from './read-input.js'
import type { GatehouseConfig } from './schema.js'

/** Options of {@link loadConfigSources}. */
export interface SourceOptions {
  /** API group of GatewayBackend and GatewayPolicy. Default `gateway.example.dev`. */
  apiGroup?: string
  /** Environment for `${ENV}`. Default `process.env`. */
  env?: NodeJS.ProcessEnv
  /**
   * The files' text as read before (a cluster worker is given what its primary accepted), instead
   * of reading `paths` again. Default: read them.
   */
  inputs?: readonly ConfigInput[]
  /** The most bytes read, all files together. Default {@link MAX_CONFIG_BYTES} (8 MiB). */
  maxBytes?: number
}

/** A loaded configuration and what was learnt on the way. */
export interface ConfigSource {
  config: Readonly<GatehouseConfig>
  /** The files and directories it was read from, as given. */
  paths: readonly string[]
  /** The text of every file read, as read: what the cluster primary hands to its workers. */
  inputs: readonly ConfigInput[]
  /** `kubernetes` when any document was a resource. */
  format: 'standalone' | 'kubernetes'
  /** API group of GatewayBackend and GatewayPolicy. */
  apiGroup: string
  /** Per-resource findings (Kubernetes only; empty otherwise). */
  resources: readonly ResourceFindings[]
  /** Resources ignored and other warnings of the translation. */
  warnings: readonly ConfigIssue[]
  /** Rewrites a compile-time issue's path (`policies.x...`) to where it was written. */
  locate(issue: ConfigIssue): ConfigIssue
  /**
   * A digest of `config` when the load computed one (`./load-thread.ts`), so that telling an
   * unchanged configuration costs the running proxy no walk of it.
   */
  digest?: string
  /**
   * `configWarnings(config)`, located, when the load made them (`./load-thread.ts`), so that
   * logging them after a reload costs the running proxy no walk of the configuration.
   */
  configWarnings?: readonly ConfigIssue[]
}

/**
 * Reads, translates and validates the configuration at `paths`. Throws {@link ConfigError} listing
 * every problem found, each located.
 */
export async function loadConfigSources(
  paths: readonly string[],
  options: SourceOptions = {},
): Promise<ConfigSource> {
  const inputs = options.inputs ?? (await readConfigInputs(paths, options.maxBytes))
  return configSourceOf(inputs, paths, options)
}

/**
 * {@link loadConfigSources} of files already read: parses, translates and validates `inputs`.
 * Throws {@link ConfigError} listing every problem found, each located.
 */
export function configSourceOf(
  inputs: readonly ConfigInput[],
  paths: readonly string[],
  options: Omit<SourceOptions, 'inputs' | 'maxBytes'> = {},
): ConfigSource {
  const env = options.env ?? process.env
  const label = paths.join(', ')
  const apiGroup = options.apiGroup ?? DEFAULT_API_GROUP
  const docs = inputs.flatMap((i) => parseDocuments(i.text, i.file, env))
  const sorted = sortDocuments(docs)
  if (sorted.issues.length > 0) throw new ConfigError('GW_ERR_CONFIG_INVALID', sorted.issues, label)
  const only = sorted.fragments[0]
  if (sorted.resources.length === 0 && sorted.fragments.length === 1 && only) {
    // A standalone file, read as it always was (its own line numbers, its own messages), from
    // the document parsed above: parsing it twice doubled the cost of a large file.
    const config = validateDocument(only.value, only, only.file)
    return {
      config,
      paths,
      inputs,
      apiGroup,
      format: 'standalone',
      resources: [],
      warnings: [],
      locate: (i) => i,
    }
  }
  if (sorted.resources.length === 0) {
    throw new ConfigError(
      'GW_ERR_CONFIG_INVALID',
      [
        {
          path: '',
          message:
            sorted.fragments.length === 0
              ? 'no configuration found: expected the standalone configuration or Kubernetes resources'
              : 'more than one standalone configuration document; merge them into one',
        },
      ],
      label,
    )
  }
  const t = translateResources(sorted.resources, sorted.fragments, { apiGroup })
  if (t.errors.length > 0) throw new ConfigError('GW_ERR_CONFIG_INVALID', t.errors, label)
  const locate = (i: ConfigIssue) => t.origins.relocate(i)
  // No listener at all is what a controller sees before its Gateway exists: routes report
  // NoMatchingParent, and only starting needs a listener (see `requireListener`).
  const gatewayless = Object.keys(t.raw.gateways as object).length === 0
  const config = validateConfig(
    t.raw,
    (i) => (i.path === 'gateways' && gatewayless ? undefined : locate(i)),
    label,
  )
  return {
    config,
    paths,
    inputs,
    apiGroup,
    format: 'kubernetes',
    resources: t.findings.list(),
    warnings: t.warnings,
    locate,
  }
}

/**
 * Throws when the configuration has no gateway to listen on (possible with manifests whose
 * Gateway is missing), saying what to add.
 */
export function requireListener(config: Readonly<GatehouseConfig>, label: string): void {
  if (Object.keys(config.gateways).length > 0) return
  throw new ConfigError(
    'GW_ERR_CONFIG_INVALID',
    [
      {
        path: 'Gateway',
        message:
          'no HTTP listener to serve: add a Gateway (gateway.networking.k8s.io/v1) with an HTTP listener that the HTTPRoutes name in parentRefs, or a standalone document with gateways.<name>.port',
      },
    ],
    label,
  )
}

/** The problems that keep resources from being served, one line each, for logs and `--validate`. */
export function resourceProblems(resources: readonly ResourceFindings[]): ConfigIssue[] {
  const out: ConfigIssue[] = []
  for (const r of resources) {
    const id = `${r.kind} ${r.namespace}/${r.name}`
    for (const c of r.conditions) {
      if (c.status === 'False')
        out.push({ path: id, message: `${c.type} False (${c.reason}): ${c.message}` })
    }
    for (const p of r.parents ?? []) {
      for (const c of p.conditions) {
        if (c.status === 'False' && c.type === 'Accepted')
          out.push({
            path: `${id} parent ${p.parentRef.namespace}/${p.parentRef.name}`,
            message: `${c.type} False (${c.reason}): ${c.message}`,
          })
      }
    }
  }
  return out
}
