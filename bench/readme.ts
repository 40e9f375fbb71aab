/**
 * `npm run bench:readme`: writes the README's performance paragraph from bench/RESULTS.md's latest
 * figures (bench/readme-paragraph.ts) between its markers in README.md. `npm run bench -- --write`
 * runs it after appending its section.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { performanceParagraph, withParagraph } from './readme-paragraph.js'

/** Rewrites README.md's paragraph from RESULTS.md; returns the paragraph. */
export function writeReadmeParagraph(root = new URL('..', import.meta.url).pathname): string {
  const paragraph = performanceParagraph(readFileSync(`${root}bench/RESULTS.md`, 'utf8'))
  const readme = `${root}README.md`
  writeFileSync(readme, withParagraph(readFileSync(readme, 'utf8'), paragraph))
  return paragraph
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(writeReadmeParagraph())
}
