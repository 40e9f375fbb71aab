#!/usr/bin/env node
// The installed `mock-idp` command runs the build, mock-idp/dist (`npm run build`, which `npm install`
// runs). In development run the TypeScript source instead: `npx tsx mock-idp/bin/mock-idp.ts`.
import { existsSync } from 'node:fs'

const build = new URL('../dist/mock-idp.js', import.meta.url)
if (!existsSync(build)) {
  process.stderr.write(
    'mock-idp: mock-idp/dist is missing; run `npm run build` at the repository root\n',
  )
  process.exit(1)
}
await import(build.href)
