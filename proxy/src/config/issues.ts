/**
 * Turning zod's validation issues into the configuration errors people read: each names the
 * field's path (`gateways.default.port`), what was expected and what kind of value was found,
 * never the value itself when it is text (docs/reliability.md, "Configuration errors show no
 * content"): a path that points at a file of secrets must not have them copied into an answer,
 * `/config_dump` or the log. An unknown key is named only when it reads as a field name.
 */
import type { z } from 'zod'
import type { ConfigIssue } from '../errors.js'

/** `gateways.default.port` from a path of keys and indexes. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`
    else out += out ? `.${String(p)}` : String(p)
  }
  return out
}

/** A number or a duration as written (`3001`, `"11m"`): shown, as it is not text to hide. */
const PLAIN_SCALAR = /^[-+]?\d{1,15}(\.\d{1,6})?(ms|s|m|h)?$/

/**
 * What a value is, without its text: `70000`, `true`, `"11m"` (a number or a duration is shown),
 * `a string of 24 characters`, `an object`, `a list of 3 items`.
 */
export function describeValue(input: unknown): string {
  if (input === undefined) return 'nothing'
  if (input === null) return 'null'
  if (typeof input === 'number' || typeof input === 'boolean') return String(input)
  if (typeof input === 'string') {
    if (PLAIN_SCALAR.test(input)) return JSON.stringify(input)
    if (input.length === 0) return 'an empty string'
    return `a string of ${input.length} character${input.length === 1 ? '' : 's'}`
  }
  if (Array.isArray(input)) return `a list of ${input.length} item${input.length === 1 ? '' : 's'}`
  return typeof input === 'object' ? 'an object' : `a ${typeof input}`
}

/** A key shown in a message: it reads as a field name (letters, digits, `-`, `_`). */
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/

/** Shown instead of an unknown key that does not read as a field name. */
export const HIDDEN_KEY = '<key not shown>'

/** The unknown key an issue names, for {@link hideUnknownKey}. */
const unknownKeys = new WeakMap<ConfigIssue, string>()

/**
 * `located` (an issue of {@link formatZodIssues} once a line was added to it) with its unknown key
 * replaced by {@link HIDDEN_KEY} when the key does not read as a field name: the key stays in the
 * path until then, for the line to be found.
 */
export function hideUnknownKey(original: ConfigIssue, located: ConfigIssue): ConfigIssue {
  const key = unknownKeys.get(original)
  if (key === undefined || FIELD_NAME.test(key)) return located
  return {
    path: located.path.split(key).join(HIDDEN_KEY),
    message: located.message.split(key).join(HIDDEN_KEY),
  }
}

/** Turns zod issues into path-named, actionable messages. */
export function formatZodIssues(error: z.ZodError): ConfigIssue[] {
  const out: ConfigIssue[] = []
  for (const issue of error.issues) {
    const path = formatPath(issue.path)
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const key of issue.keys) {
          const unknown = {
            path: path ? `${path}.${key}` : key,
            message: 'unknown field; check its spelling and place against docs/configuration.md',
          }
          unknownKeys.set(unknown, key)
          out.push(unknown)
        }
        break
      case 'invalid_type': {
        const custom = !issue.message.startsWith('Invalid input')
        out.push({
          path,
          message: custom
            ? issue.message
            : issue.input === undefined
              ? `required field is missing (expected ${issue.expected})`
              : `expected ${issue.expected}, got ${describeValue(issue.input)}`,
        })
        break
      }
      case 'invalid_key':
        // A record key (a gateway, route, backend or policy name): say the rule it broke.
        out.push({
          path,
          message: issue.issues[0]?.message ?? issue.message,
        })
        break
      case 'invalid_union':
        out.push({ path, message: `${issue.message}, got ${describeValue(issue.input)}` })
        break
      case 'invalid_value':
        out.push({
          path,
          message: `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${describeValue(issue.input)}`,
        })
        break
      default:
        out.push({ path, message: issue.message })
    }
  }
  return out
}
