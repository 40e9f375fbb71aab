/**
 * Parsing configuration YAML, for the standalone file (`./load.ts`) and Kubernetes manifests
 * (`./kubernetes/documents.ts`) alike, with two properties the `yaml` defaults lack:
 *
 * - Duplicate keys are found in linear time. The library's own check (`uniqueKeys: true`) compares
 *   each new key with every earlier key of its map, which made an 8,000-route file spend seconds
 *   and a 50,000-route one minutes there, blocking the event loop (docs/reliability.md, "Large
 *   configurations").
 * - A syntax error is reported by its kind, line and column, never with the text it was found in:
 *   a configuration path that points at another file (a symlink to a file of secrets) must not have
 *   that file's lines copied into `POST /reload`'s answer, `/config_dump` or the log.
 */
import {
  type Document,
  isScalar,
  type LineCounter,
  type ParseOptions,
  visit,
  type YAMLError,
} from 'yaml'
import type { ConfigIssue } from '../errors.js'

/** Options for `parseDocument` / `parseAllDocuments`: duplicate keys are checked by {@link duplicateKeyIssues}. */
export function yamlOptions(lineCounter: LineCounter): ParseOptions & { uniqueKeys: false } {
  return { lineCounter, prettyErrors: false, uniqueKeys: false }
}

/**
 * One YAML error as a configuration issue: what kind of error, at which line and column. The
 * library's message is kept only up to its first `:` (after it, some messages quote the source:
 * `Not a YAML token: <text>`), and quoted text is dropped.
 */
export function yamlIssue(error: YAMLError, lines: LineCounter): ConfigIssue {
  const head = (error.message.split('\n')[0] ?? '')
    .replace(/ at line \d+, column \d+.*$/, '')
    .replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, '…')
  const colon = head.indexOf(':')
  const what = colon === -1 ? head : head.slice(0, colon)
  const pos = error.pos[0] >= 0 ? lines.linePos(error.pos[0]) : undefined
  return {
    path: '',
    message: `YAML: ${what.trim() || error.code}${pos ? ` (line ${pos.line}, column ${pos.col})` : ''}`,
  }
}

/**
 * Every key written twice in one mapping (YAML 1.2 §3.2.1.1: keys are unique), each reported at
 * the line of its second occurrence. Keys compare as the library's own check compares them: two
 * scalars with the same value.
 */
export function duplicateKeyIssues(doc: Document, lines: LineCounter): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>()
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? pair.key.value : pair.key
        if (!seen.has(key)) {
          seen.add(key)
          continue
        }
        const at = (pair.key as { range?: [number, number, number] } | null)?.range?.[0]
        const line = at === undefined ? '' : ` (line ${lines.linePos(at).line})`
        issues.push({ path: '', message: `YAML: Map keys must be unique${line}` })
      }
    },
  })
  return issues
}

/** Every problem of a parsed document: its syntax errors, then its duplicate keys. */
export function documentIssues(doc: Document, lines: LineCounter): ConfigIssue[] {
  if (doc.errors.length > 0) return doc.errors.map((e) => yamlIssue(e, lines))
  return duplicateKeyIssues(doc, lines)
}

/**
 * The value of a parsed document, or the issue that kept it from having one: an alias without
 * its anchor, or more aliases than the library resolves (its defence against "billion laughs"),
 * reported by kind, never with the alias's name (`yamlIssue`).
 */
export function documentValue(doc: Document): { value: unknown } | { issue: ConfigIssue } {
  try {
    return { value: doc.toJS() }
  } catch (err) {
    const what = (err as Error).message.startsWith('Excessive alias count')
      ? 'too many aliases'
      : 'an alias names no anchor set before it'
    return { issue: { path: '', message: `YAML: ${what}` } }
  }
}
