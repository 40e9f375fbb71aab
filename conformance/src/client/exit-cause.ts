/**
 * The line of a client's stderr that says why it ended, for a report: the error message, not the
 * stack frame, the `Node.js v…` trailer or the property dump that an uncaught error leaves last.
 */
import { redactText } from '@gatehouse/redact'

/** A stack frame (`    at f (file:1:2)`). */
const FRAME = /^\s*at\s/
/** What Node prints around an uncaught error besides its message. */
const NOISE = /^(?:\s*\^+\s*|Node\.js v\d\S*|\s*[{}]\s*|\s+\w+: .*)$/
/** An error's message line at the start of a line: `Error: …`, `TypeError: …`, `Foo [E_X]: …`. */
const MESSAGE = /^(?:Uncaught\s+)?[A-Z]?\w*(?:Error|Exception)\b(?:\s*\[[^\]]*\])?:\s*\S/
/** The cause Node prints inside an uncaught error's property dump. */
const CAUSE = /^\s+\[cause\]:\s*(.+)$/

/**
 * Why a client ended, from its stderr: the last error message that starts a line (with the
 * `[cause]` Node printed after it), else the last line that is not a stack frame or Node's
 * trailer; redacted and cut to `max` characters. `'no stderr'` when there is nothing to quote.
 */
export function exitCause(stderr: string, max = 200): string {
  const lines = stderr.split('\n').map((l) => l.trimEnd())
  let at = -1
  for (let i = lines.length - 1; i >= 0 && at < 0; i--) if (MESSAGE.test(lines[i] ?? '')) at = i
  let line: string | undefined
  if (at >= 0) {
    const cause = lines
      .slice(at + 1)
      .map((l) => CAUSE.exec(l)?.[1])
      .find((c) => c !== undefined)
    line = `${lines[at]}${cause ? ` (cause: ${cause})` : ''}`
  } else {
    line = lines.filter((l) => l.trim() !== '' && !FRAME.test(l) && !NOISE.test(l)).at(-1)
    line ??= lines.filter((l) => l.trim() !== '' && !FRAME.test(l)).at(-1)
  }
  return redactText(line?.trim() ?? '').slice(0, max) || 'no stderr'
}
