/**
 * Finding compact JWS and JWE serializations (RFC 7515 §7.1, RFC 7516 §7.1) in free text in one
 * pass, with no backtracking: docs/design/hardening.md measured the regex `/eyJ[\w-]*(?:\.[\w-]*){2,4}/`
 * at seconds for a tool name of `eyJ` repeated (each `eyJ` rescanned the rest of the word).
 *
 * A candidate is a run of base64url characters and dots. Within it, a JWT starts where the
 * base64url text decodes to `{`, optional JSON whitespace and `"` (`eyJ` for `{"`, `eyAi` for
 * `{ "`, `ewog` for `{\n `…: RFC 8259 §2 allows whitespace there, and a token written by hand or
 * by a pretty-printer has it), and takes two to four more dot-separated parts, like the regex did.
 * Each character is looked at a bounded number of times, so the cost is linear in the text.
 */

/** 6-bit values of the base64url alphabet (RFC 4648 §5); -1 for anything else. */
const B64URL = new Int8Array(128).fill(-1)
for (const [i, c] of [
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
].entries()) {
  B64URL[c.charCodeAt(0)] = i
}

const DOT = 46
/** Characters of a header that are decoded to judge it: 16 give 12 bytes. */
const HEADER_PROBE = 16

function isRunChar(c: number): boolean {
  return c === DOT || (c < 128 && (B64URL[c] ?? -1) >= 0)
}

/** JSON whitespace (RFC 8259 §2). */
function isJsonSpace(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d
}

/**
 * Whether the base64url text at `at` (up to the next dot or `end`) decodes to `{`, JSON
 * whitespace and `"`, as the protected header of a JWS or JWE does. Reads at most
 * {@link HEADER_PROBE} characters.
 */
function headerStartsAt(text: string, at: number, end: number): boolean {
  // `{` is 0x7B: its first sextet is `e`, and its last two bits with `"`, a space, TAB, LF or CR
  // make `y` or `w`. A quick test before decoding.
  if (text.charCodeAt(at) !== 0x65) return false
  const second = text.charCodeAt(at + 1)
  if (second !== 0x79 && second !== 0x77) return false
  let bits = 0
  let nbits = 0
  let index = 0
  const stop = Math.min(end, at + HEADER_PROBE)
  for (let i = at; i < stop; i++) {
    const c = text.charCodeAt(i)
    if (c === DOT) break
    bits = ((bits << 6) | (B64URL[c] ?? 0)) & 0xffffff
    nbits += 6
    if (nbits < 8) continue
    nbits -= 8
    const byte = (bits >> nbits) & 0xff
    if (index === 0) {
      if (byte !== 0x7b) return false
    } else if (byte === 0x22) {
      return true
    } else if (!isJsonSpace(byte)) {
      return false
    }
    index++
  }
  // `{` and whitespace as far as the probe reads (or the part ends): judged a header.
  return index >= 2
}

/**
 * Replaces every JWS or JWE in `text` with `replacement`.
 * @returns `text` itself when it holds none.
 */
export function replaceJwts(text: string, replacement: string): string {
  let out = ''
  let copied = 0
  const n = text.length
  let i = 0
  while (i < n) {
    if (!isRunChar(text.charCodeAt(i))) {
      i++
      continue
    }
    const runStart = i
    let dots = 0
    while (i < n && isRunChar(text.charCodeAt(i))) {
      if (text.charCodeAt(i) === DOT) dots++
      i++
    }
    if (dots < 2) continue
    // Within the run [runStart, i): candidates from left to right, dots still ahead counted.
    const runEnd = i
    let ahead = dots
    let p = runStart
    while (p < runEnd && ahead >= 2) {
      const c = text.charCodeAt(p)
      if (c === DOT) {
        ahead--
        p++
        continue
      }
      if (!headerStartsAt(text, p, runEnd)) {
        p++
        continue
      }
      // The header's part, then two to four more parts (as many as there are, at most four).
      let end = p
      let taken = 0
      while (end < runEnd) {
        if (text.charCodeAt(end) === DOT) {
          if (taken === 4) break
          taken++
        }
        end++
      }
      out += text.slice(copied, p) + replacement
      copied = end
      ahead -= taken
      p = end
    }
  }
  return copied === 0 ? text : out + text.slice(copied)
}
