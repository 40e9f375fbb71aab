/**
 * `${NAME}` substitution in the configuration file. It runs on the parsed YAML's scalars, never on
 * the raw text: an environment value cannot add keys (a newline in a variable used to be able to
 * inject `adminAddr: 0.0.0.0:15000`), and a `${X}` in a comment is not required.
 */
import { type Document, isPair, isScalar, isSeq, type Scalar, visit } from 'yaml'
import type { ConfigIssue } from '../errors.js'
import { formatPath } from './issues.js'

/**
 * Replaces `${NAME}` and `${NAME:-default}` in one string with environment variables. `$${` is a
 * literal `${`. A variable that is unset and has no default is an error naming it.
 */
export function substituteEnv(
  text: string,
  env: NodeJS.ProcessEnv = process.env,
): { text: string; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = []
  const out = text.replace(
    /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (whole, escaped: string, key: string, fallback: string | undefined) => {
      if (escaped) return whole.slice(1)
      const value = env[key]
      if (value !== undefined && value !== '') return value
      if (fallback !== undefined) return fallback
      issues.push({
        path: '',
        message: `environment variable ${key} is not set (referenced as \${${key}}); set it or write \${${key}:-default}`,
      })
      return ''
    },
  )
  return { text: out, issues }
}

/**
 * Substitutes `${ENV}` inside the string scalars of a parsed document, never in its raw text: a
 * value cannot add keys (`X="a\nadminAddr: 0.0.0.0:15000"` stays one string), and a `${…}` in a
 * comment or a key is left alone. A plain (unquoted) scalar that is wholly a number, boolean or
 * null after substitution takes that type, as YAML would have read it (`port: ${PORT}`); a quoted
 * one stays a string.
 */
export function substituteScalars(doc: Document, env: NodeJS.ProcessEnv): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  visit(doc, {
    Scalar(key, node, ancestors) {
      if (key === 'key' || typeof node.value !== 'string' || !node.value.includes('${')) return
      const sub = substituteEnv(node.value, env)
      const path = fieldPath(ancestors, key, node)
      for (const issue of sub.issues) issues.push({ ...issue, path })
      node.value = node.type === 'PLAIN' ? plainValue(sub.text) : sub.text
    },
  })
  return issues
}

/** YAML 1.2 core schema resolution of a plain scalar's text (int, float, bool, null). */
function plainValue(text: string): unknown {
  if (/^(null|Null|NULL|~)$/.test(text)) return null
  if (/^(true|True|TRUE)$/.test(text)) return true
  if (/^(false|False|FALSE)$/.test(text)) return false
  if (
    /^[-+]?[0-9]+$/.test(text) ||
    /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(text)
  )
    return Number(text)
  return text
}

/** `gateways.default.port` for a scalar, from the visitor's ancestors. */
function fieldPath(
  ancestors: readonly unknown[],
  key: number | 'value' | null,
  node: Scalar,
): string {
  const parts: Array<string | number> = []
  const chain = [...ancestors, node]
  chain.forEach((item, i) => {
    const next = chain[i + 1]
    if (isPair(item) && isScalar(item.key)) parts.push(String(item.key.value))
    else if (isSeq(item) && next !== undefined) parts.push(item.items.indexOf(next as never))
  })
  if (typeof key === 'number' && parts.at(-1) !== key) parts.push(key)
  return formatPath(parts)
}
