#!/usr/bin/env node
// The installed `gatehouse-conformance` command runs the build, conformance/dist (`npm run build`, which `npm install`
// runs). In development run the TypeScript source instead: `npx tsx conformance/bin/conformance.ts`.
import { existsSync } from 'node:fs'

const build = new URL('../dist/conformance.js', import.meta.url)
if (!existsSync(build)) {
  process.stderr.write(
    'gatehouse-conformance: conformance/dist is missing; run `npm run build` at the repository root\n',
  )
  process.exit(1)
}
await import(build.href)
