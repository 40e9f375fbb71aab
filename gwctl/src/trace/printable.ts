/**
 * Untrusted text made safe for a terminal and for a file someone later `cat`s: trace events carry
 * what clients and backends chose (paths, tool names, error messages), and a control character in
 * them would reach the terminal as a command — ESC sequences that retitle the window, clear the
 * screen or recolour text, BEL, CR/LF that forge timeline lines, the 8-bit C1 controls (CSI U+009B
 * is ESC [ to some terminals), and the bidirectional overrides that make text read differently
 * from what it is (CVE-2021-42574, "Trojan Source").
 */

/**
 * Anything but the safe ranges: so C0 controls, DEL, C1 controls, U+200E/U+200F (direction
 * marks), U+2028/U+2029 (line/paragraph separators), U+202A-U+202E and U+2066-U+2069
 * (bidirectional embeddings, overrides and isolates). Written as what is safe, so the pattern
 * itself holds no control character.
 */
const UNSAFE =
  /[^\x20-\x7e\u00a0-\u200d\u2010-\u2027\u202f-\u2065\u206a-\uffff\u{10000}-\u{10ffff}]/gu

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

function unicodeEscape(c: string): string {
  return `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`
}

/**
 * Text for one line of the terminal UI or plain-text timeline: every unsafe character shown as
 * an escape (`\n`, `\u001b`), a backslash doubled so an escape cannot be faked.
 */
export function printable(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(UNSAFE, (c) => SHORT[c] ?? unicodeEscape(c))
}

/**
 * One JSON Lines record: `JSON.stringify` already escapes C0 controls; the rest of
 * {@link UNSAFE} (DEL, C1, separators, bidirectional controls) becomes `\uXXXX` too, which is
 * still the same JSON value.
 */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE, unicodeEscape)
}
