/**
 * Durations in the configuration file: `250ms`, `30s`, `5m`, `1h`, or compounds like `1m30s`.
 */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

/**
 * Parses a duration string into milliseconds.
 * @returns the milliseconds, or `undefined` when the text is not a duration.
 */
export function parseDuration(text: string): number | undefined {
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy
  let total = 0
  let end = 0
  for (const m of text.matchAll(re)) {
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number)
    end = (m.index ?? 0) + m[0].length
  }
  return end === text.length && text.length > 0 ? total : undefined
}

/** Like {@link parseDuration} for values the schema already validated. */
export function durationMs(text: string): number {
  const ms = parseDuration(text)
  if (ms === undefined) throw new TypeError(`not a duration: ${text}`)
  return ms
}
