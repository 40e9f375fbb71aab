/**
 * The request metadata headers `Mcp-Method` and `Mcp-Name` (MCP draft 2026-07-28, Streamable
 * HTTP §Request Metadata, SEP-2243): mirrors of the body's `method` and of `params.name` /
 * `params.uri`, so intermediaries can route without reading the body. The gateway reads the body,
 * and its policies judge the body; a header that says something else is refused, because a
 * component that trusts the header would see another request than the one the policy judged
 * (§Server Validation: "Servers that process the request body MUST reject requests where the
 * values specified in the headers do not match", 400 with `HeaderMismatch`, -32001).
 *
 * Absent headers are accepted: clients of the revisions before 2026-07-28 (the MCP SDKs of today
 * among them) do not send them, and the gateway's decisions never depend on them.
 */
import type { McpBody, McpBodyError } from './json-rpc.js'
import { RPC_ERROR } from './json-rpc.js'

/** Headers as Node's `headersDistinct` gives them: every value of each field. */
export type DistinctHeaders = Readonly<Record<string, readonly string[] | undefined>>

/** MCP draft Streamable HTTP §Value Encoding: `=?base64?<base64 of UTF-8>?=`. */
function decodeValue(value: string): string {
  const m = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(value)
  return m?.[1] !== undefined ? Buffer.from(m[1], 'base64').toString('utf8') : value
}

function mismatch(body: McpBody, message: string): McpBodyError {
  const first = body.messages[0]
  const id = first && first.type !== 'notification' ? (first.id ?? null) : null
  return { code: RPC_ERROR.headerMismatch, message: `Header mismatch: ${message}`, id }
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

/**
 * Checks `Mcp-Method` and `Mcp-Name` against the parsed body.
 * @returns the `HeaderMismatch` error to answer with, or `undefined` when they agree (or are absent).
 */
export function checkMirroredHeaders(
  headers: DistinctHeaders,
  body: McpBody,
): McpBodyError | undefined {
  const method = single(headers, 'mcp-method')
  if ('repeated' in method) {
    return mismatch(body, `Mcp-Method is sent ${method.repeated} times; send it once`)
  }
  if (method.value !== undefined) {
    const expected = method.value
    const other = body.messages.find((m) => m.method !== expected)
    if (other) {
      return mismatch(
        body,
        other.type === 'response'
          ? `Mcp-Method header value '${expected}' on a body that carries a response`
          : `Mcp-Method header value '${expected}' does not match body value '${other.method}'`,
      )
    }
  }
  const name = single(headers, 'mcp-name')
  if ('repeated' in name) {
    return mismatch(body, `Mcp-Name is sent ${name.repeated} times; send it once`)
  }
  if (name.value !== undefined) {
    const expected = decodeValue(name.value)
    for (const m of body.messages) {
      if (!m.target) {
        return mismatch(
          body,
          `Mcp-Name header on ${m.method || 'a response'}, which names no tool, prompt or resource`,
        )
      }
      if (m.target.name !== expected) {
        return mismatch(
          body,
          `Mcp-Name header value '${expected}' does not match body value '${m.target.name}'`,
        )
      }
    }
  }
  return undefined
}
