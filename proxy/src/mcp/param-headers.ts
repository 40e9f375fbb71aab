/**
 * `Mcp-Param-{Name}` headers (MCP 2026-07-28 Streamable HTTP §Custom Headers from Tool
 * Parameters): a tool's `inputSchema` may mark a parameter with `x-mcp-header: <Name>`, and a
 * client mirrors that argument into `Mcp-Param-<Name>`. "Any server that processes the message
 * body MUST validate that encoded header values, after decoding if Base64-encoded, match the
 * corresponding values in the request body", and "Client omits header but value is in body" is
 * to be rejected; "Intermediate servers that do not recognize an `Mcp-Param-{Name}` header MUST
 * forward it and otherwise ignore it".
 *
 * The gateway recognizes the annotations of the tools it saw in the `tools/list` answers it
 * filtered ({@link ToolParamHeaders}); for a tool it has not seen, the headers are forwarded
 * unjudged and the backend, which processes the body too, validates them.
 */
import { type DistinctHeaders, decodeHeaderValue } from './header-value.js'
import type { McpTarget } from './json-rpc.js'

/** One `x-mcp-header` annotation of a tool. */
export interface ParamHeaderSpec {
  /** The header's name, lower case (`mcp-param-region`). */
  header: string
  /** As the tool spells it (`Mcp-Param-Region`), for messages. */
  display: string
  /** The chain of `properties` keys to the annotated parameter. */
  path: readonly string[]
}

/** The annotations known for a tool, `undefined` when the tool was not seen. */
export type ParamHeaderSpecs = (tool: string) => readonly ParamHeaderSpec[] | undefined

/** RFC 9110 §5.1 `1*tchar` (§Schema Extension: "MUST match HTTP field-name token syntax"). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
/** Nesting of `properties` the gateway follows. */
const MAX_DEPTH = 16

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * The annotations of one input schema, read only along chains of `properties` keys (§Schema
 * Extension: "MUST only be applied to properties that are statically reachable from the schema
 * root"); an annotation that is not a token is skipped (such a tool is invalid, and clients leave
 * it out of their lists).
 */
export function annotationsOf(inputSchema: unknown): ParamHeaderSpec[] {
  const found: ParamHeaderSpec[] = []
  const walk = (schema: unknown, path: string[]) => {
    if (!isObject(schema) || path.length >= MAX_DEPTH || !isObject(schema.properties)) return
    for (const [key, child] of Object.entries(schema.properties)) {
      if (!isObject(child)) continue
      const name = child['x-mcp-header']
      if (typeof name === 'string' && TOKEN.test(name)) {
        found.push({
          header: `mcp-param-${name.toLowerCase()}`,
          display: `Mcp-Param-${name}`,
          path: [...path, key],
        })
      }
      walk(child, [...path, key])
    }
  }
  walk(inputSchema, [])
  return found
}

/** Tools whose annotations are kept (the most recently listed). */
export const MAX_KNOWN_TOOLS = 10_000

/** The `x-mcp-header` annotations of the tools a route's lists showed, bounded. */
export class ToolParamHeaders {
  readonly #tools = new Map<string, readonly ParamHeaderSpec[]>()

  /** Records a listed tool (an item of a `tools/list` result). */
  learn(tool: unknown): void {
    if (!isObject(tool) || typeof tool.name !== 'string') return
    const specs = annotationsOf(tool.inputSchema)
    this.#tools.delete(tool.name)
    this.#tools.set(tool.name, specs)
    if (this.#tools.size > MAX_KNOWN_TOOLS) {
      const oldest = this.#tools.keys().next().value
      if (oldest !== undefined) this.#tools.delete(oldest)
    }
  }

  /** The annotations of a tool, `undefined` when none of its definitions was seen. */
  readonly lookup: ParamHeaderSpecs = (tool) => this.#tools.get(tool)
}

function valueAt(args: Readonly<Record<string, unknown>> | undefined, path: readonly string[]) {
  let v: unknown = args
  for (const key of path) {
    if (!isObject(v) || !Object.hasOwn(v, key)) return undefined
    v = v[key]
  }
  return v
}

/** A decimal number as a header carries it (§Server Validation: compare integers numerically). */
const NUMBER = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/

/** Whether a decoded header value mirrors a body value (§Value Encoding: type conversion). */
function mirrors(header: string, value: unknown): boolean {
  if (typeof value === 'string') return header === value
  if (typeof value === 'boolean') return header === String(value)
  if (typeof value === 'number') return NUMBER.test(header) && Number(header) === value
  return false
}

/**
 * Checks a `tools/call`'s `Mcp-Param-*` headers against its arguments.
 * @param specs - the tool's annotations; `undefined` (not seen): nothing is judged.
 * @returns what does not match, or `undefined`.
 */
export function checkParamHeaders(
  headers: DistinctHeaders,
  target: McpTarget,
  specs: readonly ParamHeaderSpec[] | undefined,
): string | undefined {
  for (const spec of specs ?? []) {
    const values = headers[spec.header] ?? []
    const where = `arguments.${spec.path.join('.')}`
    if (values.length > 1) return `${spec.display} is sent ${values.length} times; send it once`
    const value = valueAt(target.arguments, spec.path)
    const raw = values[0]
    if (value === undefined || value === null) {
      if (raw !== undefined) return `${spec.display} header sent, but ${where} has no value`
      continue
    }
    if (raw === undefined) return `${spec.display} header missing; ${where} has a value`
    const decoded = decodeHeaderValue(raw)
    if ('invalid' in decoded) return `${spec.display} header value ${decoded.invalid}`
    if (!mirrors(decoded.value, value)) {
      return `${spec.display} header value does not match body value of ${where}`
    }
  }
  return undefined
}
