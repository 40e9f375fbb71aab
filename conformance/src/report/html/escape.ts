/**
 * The one way recorded content enters the HTML report. Everything a report shows from a run —
 * URLs, headers, bodies, messages, a client's stderr — came from a server or client under test,
 * so it is untrusted twice over: it may carry credentials (redacted here once more with
 * `@gatehouse/redact`, whatever the recorder already did) and markup (escaped, so it is text in
 * both the HTML and the inline SVG).
 */
import { redactHeaderValue, redactText } from '@gatehouse/redact'

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/**
 * Escapes text for HTML and SVG text and attribute values (quoted): `& < > " '`. Characters
 * that are not allowed in XML 1.0 (C0 controls but tab, newline, return) become U+FFFD, so a
 * hostile byte cannot end the SVG's parse.
 */
export function escapeHtml(text: string): string {
  let out = ''
  for (const c of text) {
    const code = c.codePointAt(0) ?? 0
    out +=
      ENTITIES[c] ??
      ((code < 0x20 && c !== '\t' && c !== '\n' && c !== '\r') || code === 0xfffe || code === 0xffff
        ? '\ufffd'
        : c)
  }
  return out
}

/** Recorded text as it may be shown: credentials redacted, then escaped. */
export function shown(text: string): string {
  return escapeHtml(redactText(text))
}

/** A recorded header as it may be shown: its value redacted by name and by shape, escaped. */
export function shownHeader(name: string, value: string): string {
  return escapeHtml(redactText(redactHeaderValue(name, value)))
}

/** Cuts `text` to `max` characters, marking the cut with `…`. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, Math.max(0, max - 1))}…` : text
}
