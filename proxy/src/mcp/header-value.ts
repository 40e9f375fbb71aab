/**
 * Header values of the MCP request metadata (MCP 2026-07-28 Streamable HTTP §Value Encoding):
 * what `Mcp-Name` and `Mcp-Param-*` carry, in visible ASCII or Base64-encoded UTF-8.
 */

/** Headers as Node's `headersDistinct` gives them: every value of each field. */
export type DistinctHeaders = Readonly<Record<string, readonly string[] | undefined>>

/** What a header value decodes to, or why it cannot be read. */
export type Decoded = { value: string } | { invalid: string }

const SENTINEL = /^=\?base64\?(.*)\?=$/s
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
/** RFC 9110 §5.5 field values as the revision allows them: visible ASCII, space, tab. */
const SAFE_VALUE = /^[\t\x20-\x7e]*$/

/** Whether a header value holds only visible ASCII, space and tab (RFC 9110 §5.5). */
export function isSafeHeaderValue(raw: string): boolean {
  return SAFE_VALUE.test(raw)
}

/**
 * MCP 2026-07-28 Streamable HTTP §Value Encoding: a value in visible ASCII, or
 * `=?base64?<Base64 of UTF-8>?=` ("Servers and intermediaries that need to inspect these values
 * MUST decode them"). Strict: a value with other characters, a sentinel whose content is not
 * canonical Base64, or whose bytes are not UTF-8, is invalid (§Server Validation: "A header value
 * contains invalid characters" is a validation failure).
 */
export function decodeHeaderValue(raw: string): Decoded {
  if (!SAFE_VALUE.test(raw)) return { invalid: 'contains characters outside visible ASCII' }
  const m = SENTINEL.exec(raw)
  if (!m) return { value: raw }
  const content = m[1] ?? ''
  if (!BASE64.test(content)) return { invalid: 'is not valid =?base64?…?= encoding' }
  try {
    const bytes = Buffer.from(content, 'base64')
    return { value: new TextDecoder('utf-8', { fatal: true }).decode(bytes) }
  } catch {
    return { invalid: 'does not decode to UTF-8' }
  }
}
