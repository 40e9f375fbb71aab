/**
 * Reading configuration sources: files and directories of YAML documents, as `kubectl apply -f`
 * reads them. A file may hold several documents (`---`); a directory contributes its `.yaml`,
 * `.yml` and `.json` files in name order, skipping hidden entries (a Kubernetes ConfigMap volume's
 * `..data` and `..<timestamp>` entries: its files are symlinks through `..data`, read once each).
 * `${ENV}` is substituted in each document's scalars, as for the standalone file (`../env.ts`),
 * except in well-known kinds gatehouse skips (`./foreign-kinds.ts`): a `${VAR}` in a CRD's description
 * is not gatehouse's to resolve.
 */
import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { type Document, isMap, isSeq, LineCounter, parseAllDocuments } from 'yaml'
import { ConfigError, type ConfigIssue } from '../../errors.js'
import { substituteScalars } from '../env.js'
import { documentIssues, documentValue, yamlOptions } from '../yaml.js'
import { fastDocumentValues } from '../yaml-fast.js'
import { isForeignKind } from './foreign-kinds.js'

/** One parsed YAML document and where it came from. */
export interface SourceDocument {
  /** The file it was read from. */
  readonly file: string
  /** The whole file's text. */
  readonly text: string
  /** Its position among the file's documents (0-based). */
  readonly index: number
  /**
   * The parsed document (for line numbers). When the value came from the fast path
   * (`../yaml-fast.ts`), `yaml` parses the file the first time this is read: only a load that
   * reports an issue pays for it.
   */
  readonly doc: Document
  readonly lines: LineCounter
  /** Its value, `${ENV}` substituted. */
  value: unknown
}

const EXTENSIONS = /\.(ya?ml|json)$/i

/** The files a path stands for: itself, or a directory's YAML and JSON files in name order. */
export async function sourceFiles(path: string): Promise<string[]> {
  let info: Awaited<ReturnType<typeof stat>>
  try {
    info = await stat(path)
  } catch (cause) {
    const reason =
      (cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : String(cause)
    throw new ConfigError(
      'GW_ERR_CONFIG_READ',
      [{ path: '', message: `cannot read the configuration: ${reason}` }],
      path,
      { cause },
    )
  }
  if (!info.isDirectory()) return [path]
  const names = (await readdir(path)).filter((n) => !n.startsWith('.') && EXTENSIONS.test(n))
  if (names.length === 0) {
    throw new ConfigError(
      'GW_ERR_CONFIG_READ',
      [{ path: '', message: 'the directory holds no .yaml, .yml or .json file' }],
      path,
    )
  }
  return names.sort().map((n) => join(path, n))
}

/**
 * Parses one file's text into its documents (empty ones dropped). Throws {@link ConfigError}
 * naming the file and line of every YAML or `${ENV}` problem.
 */
export function parseDocuments(
  text: string,
  file: string,
  env: NodeJS.ProcessEnv = process.env,
): SourceDocument[] {
  const fast = fastDocumentValues(text)
  if (fast) return fastSourceDocuments(text, file, fast)
  const lines = new LineCounter()
  const docs = parseAllDocuments(text, yamlOptions(lines))
  const list = Array.isArray(docs) ? docs : []
  // Kind, line and column only: never the text (`../yaml.ts`); the resource it is in, when known.
  const issues: ConfigIssue[] = list.flatMap((doc) =>
    documentIssues(doc, lines).map((issue) => ({ ...issue, path: labelOf(doc) ?? issue.path })),
  )
  if (issues.length > 0) throw new ConfigError('GW_ERR_CONFIG_PARSE', issues, file)
  const out: SourceDocument[] = []
  list.forEach((doc, index) => {
    const foreign = isMap(doc.contents) && isForeignKind(doc.get('apiVersion'), doc.get('kind'))
    if (!foreign) {
      const id = resourceLabel(doc)
      for (const issue of substituteScalars(doc, env))
        issues.push({
          path: id ? `${id}: ${issue.path}` : issue.path,
          message:
            issue.message +
            lineOf({ file, text, index, doc, lines, value: undefined }, fieldsOf(issue.path)),
        })
    }
    const read = documentValue(doc)
    if ('issue' in read) {
      issues.push({ ...read.issue, path: labelOf(doc) ?? read.issue.path })
      return
    }
    const value = read.value
    if (value === null || value === undefined) return
    out.push({ file, text, index, doc, lines, value })
  })
  if (issues.length > 0) throw new ConfigError('GW_ERR_CONFIG_INVALID', issues, file)
  return out
}

/**
 * The documents of a file the fast path read (no `${ENV}` in it, no issue in it): their values as
 * read, their `yaml` documents parsed on first use, once for the file.
 */
function fastSourceDocuments(text: string, file: string, values: unknown[]): SourceDocument[] {
  let parsed: { docs: Document[]; lines: LineCounter } | undefined
  const slow = () => {
    if (!parsed) {
      const lines = new LineCounter()
      parsed = { docs: parseAllDocuments(text, yamlOptions(lines)) as Document[], lines }
    }
    return parsed
  }
  const out: SourceDocument[] = []
  values.forEach((value, index) => {
    if (value === null || value === undefined) return
    out.push({
      file,
      text,
      index,
      value,
      get doc() {
        // Same count and order of documents as `yaml` reads (the equivalence test holds it).
        return slow().docs[index] as Document
      },
      get lines() {
        return slow().lines
      },
    })
  })
  return out
}

/** `a.b[0]` → `['a', 'b', '0']`. */
const fieldsOf = (path: string): string[] =>
  path === '' ? [] : path.replace(/\[(\d+)\]/g, '.$1').split('.')

/** {@link resourceLabel}, for a document that may not have parsed. */
function labelOf(doc: Document): string | undefined {
  try {
    return isMap(doc.contents) ? resourceLabel(doc) : undefined
  } catch {
    return undefined
  }
}

/** `Kind namespace/name` of a document that is a resource, for messages. */
function resourceLabel(doc: Document): string | undefined {
  const kind = doc.get('kind')
  const name = doc.getIn(['metadata', 'name'])
  if (typeof kind !== 'string' || typeof name !== 'string') return undefined
  const ns = doc.getIn(['metadata', 'namespace'])
  return `${kind} ${typeof ns === 'string' ? ns : 'default'}/${name}`
}

/** Reads every document of the given files and directories, in order. */
export async function readDocuments(
  paths: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<SourceDocument[]> {
  const out: SourceDocument[] = []
  for (const path of paths) {
    for (const file of await sourceFiles(path)) {
      let text: string
      try {
        text = await readFile(file, 'utf8')
      } catch (cause) {
        throw new ConfigError(
          'GW_ERR_CONFIG_READ',
          [{ path: '', message: `cannot read the configuration file: ${String(cause)}` }],
          file,
          { cause },
        )
      }
      out.push(...parseDocuments(text, file, env))
    }
  }
  return out
}

/** ` (file.yaml line 12)` for a path inside a document, or the nearest ancestor that exists. */
export function lineOf(source: SourceDocument, path: readonly (string | number)[]): string {
  let node: unknown = source.doc.contents
  let found = node
  for (const key of path) {
    if (isMap(node)) node = node.get(key, true)
    else if (isSeq(node)) node = node.get(Number(key), true)
    else node = undefined
    if (node === undefined) break
    found = node
  }
  const range = (found as { range?: [number, number, number] } | undefined)?.range
  if (!range) return ` (${source.file})`
  return ` (${source.file} line ${source.lines.linePos(range[0]).line})`
}
