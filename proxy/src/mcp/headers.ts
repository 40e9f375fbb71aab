/**
 * The request metadata headers `Mcp-Method` and `Mcp-Name` (MCP 2026-07-28, Streamable HTTP
 * §Request Metadata, SEP-2243): mirrors of the body's `method` and of `params.name` /
 * `params.uri` (the tasks extension's `params.taskId` on `tasks/get|update|cancel`, SEP-2663),
 * so intermediaries can route without reading the body. The gateway reads the body, and its
 * policies judge the body; a header that says something else is refused, because a component that
 * trusts the header would see another request than the one the policy judged (§Server Validation:
 * "Servers that process the request body MUST reject requests where the values specified in the
 * headers do not match", 400 with `HeaderMismatch`, -32020).
 *
 * Legacy requests (era.ts; 2025-11-25 and before) may omit the headers: the clients of those
 * revisions do not send them, and the gateway's decisions never depend on them. Modern ones must
 * send them (§Server Validation: "A required standard header (`MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name`) is missing" is a validation failure, and "Intermediaries MUST return
 * an appropriate HTTP error status"), in visible ASCII, Base64-encoded per §Value Encoding where
 * needed; `Mcp-Param-*` headers are checked by param-headers.ts.
 */
import { type DistinctHeaders, decodeHeaderValue, isSafeHeaderValue } from './header-value.js'
import type { McpBody, McpBodyError, McpMessage } from './json-rpc.js'
import { RPC_ERROR } from './json-rpc.js'
import { checkParamHeaders, type ParamHeaderSpecs } from './param-headers.js'

export type { DistinctHeaders } from './header-value.js'

/** MCP 2026-07-28 Streamable HTTP §Standard Request Headers: methods that require `Mcp-Name`. */
export const NAME_REQUIRED: ReadonlySet<string> = new Set([
  'tools/call',
  'resources/read',
  'prompts/get',
])

/** The lenient decoding legacy requests had: a value not matching the sentinel is compared as is. */
function decodeLegacy(value: string): string {
  const m = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(value)
  return m?.[1] !== undefined ? Buffer.from(m[1], 'base64').toString('utf8') : value
}

function firstId(body: McpBody) {
  const first = body.messages[0]
  return first && first.type !== 'notification' ? (first.id ?? null) : null
}

function mismatch(body: McpBody, message: string): McpBodyError {
  return {
    code: RPC_ERROR.headerMismatch,
    message: `Header mismatch: ${message}`,
    id: firstId(body),
  }
}

/** The single value of a header, or an error when it is repeated. */
function single(
  headers: DistinctHeaders,
  name: string,
): { value: string | undefined } | { repeated: number } {
  const values = headers[name]
  if (!values || values.length === 0) return { value: undefined }
  if (values.length > 1) return { repeated: values.length }
  return { value: values[0] }
}

/** Shown in a message: a long or odd value is cut (it is the client's own value). */
function shown(value: string): string {
  return value.length > 200 ? `${value.slice(0, 200)}…` : value
}

/** What `Mcp-Name` mirrors in a message: its target, or (modern) the task it names. */
function nameOf(m: McpMessage): string | undefined {
  return m.target?.name ?? (m.modern ? m.taskId : undefined)
}

/** Options of {@link checkMirroredHeaders}. */
export interface MirrorOptions {
  /** The request is of the modern era (era.ts): headers required, values decoded strictly. */
  modern?: boolean
  /** The `x-mcp-header` annotations known for a tool (param-headers.ts). */
  params?: ParamHeaderSpecs
}

function checkMethod(
  headers: DistinctHeaders,
  body: McpBody,
  modern: boolean,
): McpBodyError | undefined {
  const method = single(headers, 'mcp-method')
  if ('repeated' in method) {
    return mismatch(body, `Mcp-Method is sent ${method.repeated} times; send it once`)
  }
  if (method.value === undefined) {
    const request = modern ? body.messages.find((m) => m.type === 'request') : undefined
    return request
      ? mismatch(body, `Mcp-Method header missing; a ${request.method} request carries it`)
      : undefined
  }
  const expected = method.value
  if (modern && !isSafeHeaderValue(expected)) {
    return mismatch(body, 'Mcp-Method header value contains characters outside visible ASCII')
  }
  const other = body.messages.find((m) => m.method !== expected)
  if (!other) return undefined
  return mismatch(
    body,
    other.type === 'response'
      ? `Mcp-Method header value '${shown(expected)}' on a body that carries a response`
      : `Mcp-Method header value '${shown(expected)}' does not match body value '${other.method}'`,
  )
}

function checkName(
  headers: DistinctHeaders,
  body: McpBody,
  modern: boolean,
): McpBodyError | undefined {
  const name = single(headers, 'mcp-name')
  if ('repeated' in name) {
    return mismatch(body, `Mcp-Name is sent ${name.repeated} times; send it once`)
  }
  if (name.value === undefined) {
    const request = modern
      ? body.messages.find((m) => m.type === 'request' && NAME_REQUIRED.has(m.method))
      : undefined
    return request
      ? mismatch(body, `Mcp-Name header missing; a ${request.method} request carries it`)
      : undefined
  }
  let expected: string
  if (modern) {
    const decoded = decodeHeaderValue(name.value)
    if ('invalid' in decoded) return mismatch(body, `Mcp-Name header value ${decoded.invalid}`)
    expected = decoded.value
  } else {
    expected = decodeLegacy(name.value)
  }
  for (const m of body.messages) {
    const actual = nameOf(m)
    if (actual === undefined) {
      return mismatch(
        body,
        `Mcp-Name header on ${m.method || 'a response'}, which names no tool, prompt, resource or task`,
      )
    }
    if (actual !== expected) {
      return mismatch(
        body,
        `Mcp-Name header value '${shown(expected)}' does not match body value '${shown(actual)}'`,
      )
    }
  }
  return undefined
}

/**
 * Checks `Mcp-Method`, `Mcp-Name` and (modern `tools/call`) `Mcp-Param-*` against the parsed body.
 * @returns the `HeaderMismatch` error to answer with, or `undefined` when they agree (or, in a
 *   legacy request, are absent).
 */
export function checkMirroredHeaders(
  headers: DistinctHeaders,
  body: McpBody,
  options: MirrorOptions = {},
): McpBodyError | undefined {
  const modern = options.modern === true
  const failed = checkMethod(headers, body, modern) ?? checkName(headers, body, modern)
  if (failed || !modern) return failed
  for (const m of body.messages) {
    if (m.method !== 'tools/call' || !m.target) continue
    const problem = checkParamHeaders(headers, m.target, options.params?.(m.target.name))
    if (problem) return mismatch(body, problem)
  }
  return undefined
}
