#!/usr/bin/env node
/**
 * `npm run peers:table`: rewrites the generated peer-matrix table in README.md and
 * conformance/README.md (peers/src/peer-table.ts) from the pins and baselines.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../src/paths.js'
import { peerTable, TABLE_FILES, withTable } from '../src/peer-table.js'

for (const file of TABLE_FILES) {
  const path = join(ROOT, file)
  const before = readFileSync(path, 'utf8')
  const after = withTable(before, peerTable(file), file)
  if (after !== before) writeFileSync(path, after)
  process.stdout.write(`${file}: ${after === before ? 'in step' : 'rewritten'}\n`)
}
