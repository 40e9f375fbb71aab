#!/usr/bin/env node
/** `npm run conformance:trace`: regenerates conformance/TRACEABILITY.md. */
import { writeFileSync } from 'node:fs'
import { CATALOGUE } from '../src/catalogue/index.js'
import { renderTraceability } from '../src/traceability.js'

const file = new URL('../TRACEABILITY.md', import.meta.url)
writeFileSync(file, renderTraceability(CATALOGUE))
process.stdout.write(`wrote ${file.pathname}\n`)
