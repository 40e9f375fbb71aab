#!/usr/bin/env node
/**
 * `npm run docs:counts`: rewrites the count regions of README.md and conformance/README.md
 * (src/counts.ts) from the catalogue and `mutation/mutants/`. `-- --check` only reports the files
 * out of step and exits 1 when there is one.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { COUNTED_FILES, currentCounts, rewriteCounts } from '../src/counts.js'
import { ROOT } from '../src/mutants.js'

const check = process.argv.includes('--check')
const counts = currentCounts()
const stale: string[] = []
for (const file of COUNTED_FILES) {
  const text = readFileSync(join(ROOT, file), 'utf8')
  const next = rewriteCounts(text, counts, file)
  if (next === text) continue
  stale.push(file)
  if (!check) writeFileSync(join(ROOT, file), next)
}
process.stdout.write(
  stale.length === 0
    ? 'docs:counts: every count region is up to date\n'
    : `docs:counts: ${check ? 'out of step' : 'rewrote'}: ${stale.join(', ')}\n`,
)
process.exitCode = check && stale.length > 0 ? 1 : 0
