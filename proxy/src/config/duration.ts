/**
 * Durations in the configuration file: `250ms`, `30s`, `5m`, `1h`, or compounds like `1m30s`.
 * The schema turns each duration field into a {@link Duration} (`./schema/common.ts`), so
 * consumers read milliseconds and the bounds are checked in one place.
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

/**
 * A validated duration: the milliseconds consumers use and the text the user wrote, which is what
 * a JSON dump shows (`toJSON`), so `/config_dump` reads like the file.
 */
export class Duration {
  /** Milliseconds. */
  readonly ms: number
  /** As written in the configuration, e.g. `1m30s`. */
  readonly text: string

  private constructor(ms: number, text: string) {
    this.ms = ms
    this.text = text
  }

  /** The duration a text denotes, or `undefined` when it is not one ({@link parseDuration}). */
  static parse(text: string): Duration | undefined {
    const ms = parseDuration(text)
    return ms === undefined ? undefined : new Duration(ms, text)
  }

  /** Like {@link Duration.parse} for text known to be valid (defaults, tests). @throws TypeError */
  static of(text: string): Duration {
    const d = Duration.parse(text)
    if (!d) throw new TypeError(`not a duration: ${text}`)
    return d
  }

  /** The text as written: JSON dumps show `"30s"`, not an object. */
  toJSON(): string {
    return this.text
  }

  /** The text as written. */
  toString(): string {
    return this.text
  }
}
