/**
 * A requirement's level is the RFC 2119 keyword of the sentence it cites, never stricter (issue
 * 23): every requirement carries that sentence (`quote`), and {@link keywordLevel} reads the
 * level back out of it for `conformance/test/levels.test.ts`.
 */
import type { Level } from './types.js'

/** RFC 2119 / RFC 8174 keywords (upper case only, RFC 8174 §2), by the level they state. */
const KEYWORDS: ReadonlyArray<[RegExp, Level]> = [
  [/\b(MUST(?: NOT)?|REQUIRED|SHALL(?: NOT)?)\b/g, 'MUST'],
  [/\b(SHOULD(?: NOT)?|RECOMMENDED|NOT RECOMMENDED)\b/g, 'SHOULD'],
  [/\b(MAY|OPTIONAL)\b/g, 'MAY'],
]

/**
 * The levels a sentence states, strongest first (empty when it has no keyword: a descriptive
 * statement, as the seed's are).
 */
export function keywordLevels(sentence: string): Level[] {
  return KEYWORDS.filter(([re]) => (sentence.match(re) ?? []).length > 0).map(([, l]) => l)
}

/**
 * The level of a quoted sentence: its one keyword level, or undefined when it states none or
 * several (then the quote must be cut to the clause the check judges).
 */
export function keywordLevel(sentence: string): Level | undefined {
  const levels = keywordLevels(sentence)
  return levels.length === 1 ? levels[0] : undefined
}
