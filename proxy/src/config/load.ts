/**
 * Loading the standalone configuration file: read (bounded, `./read-input.ts`), parse YAML
 * (`./yaml.ts`), substitute `${ENV}` inside the parsed scalars (`./env.ts`), validate against the
 * schema (issues worded by `./issues.ts`), check cross-references (`./cross-references.ts`), then
 * freeze. Every problem found is reported at once, each with the path of the offending field, its
 * line and what to do, and never the text of the file (docs/reliability.md).
 */
import { createHash } from 'node:crypto'
import { type Document, isMap, isSeq, LineCounter, parseDocument } from 'yaml'
import { ConfigError, type ConfigIssue } from '../errors.js'
import { checkReferences } from './cross-references.js'
import { substituteScalars } from './env.js'
import { formatZodIssues, hideUnknownKey } from './issues.js'
import { readConfigInputs } from './read-input.js'
import { rawRouteCount, rawRouteLimit, routeCountIssues } from './route-limit.js'
import { type GatehouseConfig, GatehouseConfigSchema } from './schema.js'
import { workerIssues } from './workers.js'
import { documentIssues, documentValue, yamlOptions } from './yaml.js'

function yamlPathOf(doc: Document, lc: LineCounter, path: string[]): string {
  // Best effort: line numbers help people find a field in a large file.
  let node: unknown = doc.contents
  for (const key of path) {
    if (isMap(node)) node = node.get(key, true)
    else if (isSeq(node)) node = node.get(Number(key), true)
    else return ''
  }
  const range = (node as { range?: [number, number, number] } | undefined)?.range
  if (!range) return ''
  const pos = lc.linePos(range[0])
  return ` (line ${pos.line})`
}

/**
 * Parses and validates configuration text. Throws {@link ConfigError} listing every problem.
 * @param text - YAML (JSON is YAML too)
 * @param file - the file name, used in messages
 */
export function parseConfig(
  text: string,
  file?: string,
  env: NodeJS.ProcessEnv = process.env,
): Readonly<GatehouseConfig> {
  const lc = new LineCounter()
  const doc = parseDocument(text, yamlOptions(lc))
  const yamlIssues = documentIssues(doc, lc)
  if (yamlIssues.length > 0) throw new ConfigError('GW_ERR_CONFIG_PARSE', yamlIssues, file)
  const envIssues = substituteScalars(doc, env)
  if (envIssues.length > 0) {
    const located = envIssues.map((i) => ({
      ...i,
      message: i.message + yamlPathOf(doc, lc, i.path.replace(/\[(\d+)\]/g, '.$1').split('.')),
    }))
    throw new ConfigError('GW_ERR_CONFIG_INVALID', located, file)
  }
  const read = documentValue(doc)
  if ('issue' in read) throw new ConfigError('GW_ERR_CONFIG_PARSE', [read.issue], file)
  return validateDocument(read.value ?? {}, { doc, lines: lc }, file)
}

/**
 * Validates the value of a parsed standalone document (`${ENV}` already substituted), each issue
 * given the line of its field in `where.doc`. `where` is read only for an issue: a document the
 * fast path read (`./yaml-fast.ts`) is parsed by `yaml` only then.
 */
export function validateDocument(
  value: unknown,
  where: { readonly doc: Document; readonly lines: LineCounter },
  file?: string,
): Readonly<GatehouseConfig> {
  return validateConfig(
    value ?? {},
    (i) => ({
      ...i,
      message:
        i.message +
        yamlPathOf(where.doc, where.lines, i.path.replace(/\[(\d+)\]/g, '.$1').split('.')),
    }),
    file,
  )
}

/**
 * Validates a parsed configuration (its route count, the schema, then cross-references) and freezes it: the one
 * validation every source goes through (the standalone file, translated Kubernetes resources).
 * @param locate - adds where an issue was written (a line, a resource) to its message; an issue
 * it maps to `undefined` is dropped
 */
export function validateConfig(
  raw: unknown,
  locate: (issue: ConfigIssue) => ConfigIssue | undefined,
  file?: string,
): Readonly<GatehouseConfig> {
  const located = (issues: ConfigIssue[]) =>
    issues.flatMap((issue) => {
      const at = locate(issue)
      return at ? [hideUnknownKey(issue, at)] : []
    })
  // config.maxRoutes before the schema: the validation and the compile are what a large
  // configuration costs (./route-limit.ts).
  const rawObject = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {}
  const tooMany = routeCountIssues(rawRouteCount(rawObject.routes), rawRouteLimit(rawObject.config))
  if (tooMany.length > 0) throw new ConfigError('GW_ERR_CONFIG_INVALID', tooMany, file)
  const result = GatehouseConfigSchema.safeParse(raw, { reportInput: true })
  if (!result.success) {
    throw new ConfigError('GW_ERR_CONFIG_INVALID', located(formatZodIssues(result.error)), file)
  }
  const refIssues = located([...checkReferences(result.data), ...workerIssues(result.data)])
  if (refIssues.length > 0) throw new ConfigError('GW_ERR_CONFIG_INVALID', refIssues, file)
  return deepFreeze(result.data)
}

/**
 * Reads (a regular file, at most `MAX_CONFIG_BYTES`), parses and validates a configuration file.
 */
export async function loadConfigFile(file: string): Promise<Readonly<GatehouseConfig>> {
  const [input] = await readConfigInputs([file])
  return parseConfig(input?.text ?? '', file)
}

/** Freezes a value and everything in it. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}

/**
 * A digest of a validated configuration (SHA-256 of its JSON, where a `Duration` is its text):
 * what the running proxy compares to tell that a reload changed nothing, made by the load
 * (`./load-thread.ts`) rather than by a walk of both configurations on the event loop.
 */
export function configDigest(config: Readonly<GatehouseConfig>): string {
  return createHash('sha256').update(JSON.stringify(config)).digest('base64url')
}
