/**
 * Where each part of a translated configuration came from: `policies.mcp-auth.traffic` is
 * `spec.traffic` of `GatewayPolicy default/mcp-auth` in `mcp.yaml`. Validation and compile checks
 * report paths of the translated configuration; {@link Origins.relocate} rewrites them to the
 * resource, its field path and the line, which is what the author of the manifest can act on.
 */
import type { ConfigIssue } from '../../errors.js'
import { formatPath } from '../issues.js'
import { lineOf, type SourceDocument } from './documents.js'
import { type Resource, resourceId } from './resources.js'

interface Origin {
  prefix: string[]
  resource?: Resource
  fragment?: SourceDocument
  field: (string | number)[]
}

/** `a.b[0].c` → `['a', 'b', '0', 'c']` (names are DNS labels: no dots inside a segment). */
export function splitPath(path: string): string[] {
  return path === '' ? [] : path.replace(/\[(\d+)\]/g, '.$1').split('.')
}

/** The origins of a translated configuration. */
export class Origins {
  readonly #list: Origin[] = []

  /** `prefix` (a path of the translated configuration) came from `field` of `resource`. */
  add(prefix: readonly string[], resource: Resource, field: readonly (string | number)[]): void {
    this.#list.push({ prefix: [...prefix], resource, field: [...field] })
  }

  /** `prefix` came from the same path of a standalone fragment. */
  addFragment(prefix: readonly string[], fragment: SourceDocument): void {
    this.#list.push({ prefix: [...prefix], fragment, field: [...prefix] })
  }

  /** An issue at `field` of `resource`, located. */
  locate(resource: Resource, field: readonly (string | number)[], message: string): ConfigIssue {
    return {
      path: `${resourceId(resource)}: ${formatPath(field)}`,
      message: message + lineOf(resource.source, [...resource.path, ...field]),
    }
  }

  /** Rewrites an issue's path to the resource, field and line it came from. */
  relocate(issue: ConfigIssue): ConfigIssue {
    const parts = splitPath(issue.path)
    let best: Origin | undefined
    for (const o of this.#list) {
      if (o.prefix.length > parts.length) continue
      if (!o.prefix.every((p, i) => p === parts[i])) continue
      if (!best || o.prefix.length > best.prefix.length) best = o
    }
    if (!best) return issue
    const rest = parts.slice(best.prefix.length).map((p) => (/^\d+$/.test(p) ? Number(p) : p))
    const field = [...best.field, ...rest]
    if (best.fragment) {
      return { ...issue, message: issue.message + lineOf(best.fragment, field) }
    }
    const r = best.resource as Resource
    return {
      ...issue,
      path: `${resourceId(r)}: ${formatPath(field)}`,
      message: issue.message + lineOf(r.source, [...r.path, ...field]),
    }
  }
}
