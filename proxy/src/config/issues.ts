/**
 * Turning zod's validation issues into the configuration errors people read: each names the
 * field's path (`gateways.default.port`), what was expected and what was found.
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

function describeInput(input: unknown): string {
  if (input === undefined) return 'nothing'
  const s = JSON.stringify(input)
  return s.length > 60 ? `${s.slice(0, 57)}...` : s
}

/** Turns zod issues into path-named, actionable messages. */
export function formatZodIssues(error: z.ZodError): ConfigIssue[] {
  const out: ConfigIssue[] = []
  for (const issue of error.issues) {
    const path = formatPath(issue.path)
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const key of issue.keys) {
          out.push({
            path: path ? `${path}.${key}` : key,
            message: 'unknown field; check its spelling and place against docs/configuration.md',
          })
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
              : `expected ${issue.expected}, got ${describeInput(issue.input)}`,
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
        out.push({ path, message: `${issue.message}, got ${describeInput(issue.input)}` })
        break
      case 'invalid_value':
        out.push({
          path,
          message: `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${describeInput(issue.input)}`,
        })
        break
      default:
        out.push({ path, message: issue.message })
    }
  }
  return out
}
