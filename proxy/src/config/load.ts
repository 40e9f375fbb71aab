/**
 * Loading the standalone configuration file: read, parse YAML, substitute `${ENV}` inside the
 * parsed scalars (`./env.ts`), validate against the schema (issues worded by `./issues.ts`), check
 * cross-references (`./cross-references.ts`), then freeze. Every problem found is reported at once, each
 * with the path of the offending field and what to do.
 */
import { readFile } from 'node:fs/promises'
import { isMap, isSeq, LineCounter, parseDocument } from 'yaml'
import { ConfigError, type ConfigIssue } from '../errors.js'
import { checkReferences } from './cross-references.js'
import { substituteScalars } from './env.js'
import { formatZodIssues } from './issues.js'
import { type GatehouseConfig, GatehouseConfigSchema } from './schema.js'
import { workerIssues } from './workers.js'

function yamlPathOf(
  doc: ReturnType<typeof parseDocument>,
  lc: LineCounter,
  path: string[],
): string {
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
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: true, uniqueKeys: true })
  if (doc.errors.length > 0) {
    throw new ConfigError(
      'GW_ERR_CONFIG_PARSE',
      doc.errors.map((e) => ({ path: '', message: `YAML: ${e.message.split('\n')[0]}` })),
      file,
    )
  }
  const envIssues = substituteScalars(doc, env)
  if (envIssues.length > 0) {
    const located = envIssues.map((i) => ({
      ...i,
      message: i.message + yamlPathOf(doc, lc, i.path.replace(/\[(\d+)\]/g, '.$1').split('.')),
    }))
    throw new ConfigError('GW_ERR_CONFIG_INVALID', located, file)
  }
  const raw = doc.toJS() ?? {}
  return validateConfig(
    raw,
    (i) => ({
      ...i,
      message: i.message + yamlPathOf(doc, lc, i.path.replace(/\[(\d+)\]/g, '.$1').split('.')),
    }),
    file,
  )
}

/**
 * Validates a parsed configuration (the schema, then cross-references) and freezes it: the one
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
    issues.map(locate).filter((i): i is ConfigIssue => i !== undefined)
  const result = GatehouseConfigSchema.safeParse(raw, { reportInput: true })
  if (!result.success) {
    throw new ConfigError('GW_ERR_CONFIG_INVALID', located(formatZodIssues(result.error)), file)
  }
  const refIssues = located([...checkReferences(result.data), ...workerIssues(result.data)])
  if (refIssues.length > 0) throw new ConfigError('GW_ERR_CONFIG_INVALID', refIssues, file)
  return deepFreeze(result.data)
}

/** Reads, parses and validates a configuration file. */
export async function loadConfigFile(file: string): Promise<Readonly<GatehouseConfig>> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (cause) {
    const reason =
      (cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : String(cause)
    throw new ConfigError(
      'GW_ERR_CONFIG_READ',
      [{ path: '', message: `cannot read the configuration file: ${reason}` }],
      file,
      { cause },
    )
  }
  return parseConfig(text, file)
}

/** Freezes a value and everything in it. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}
