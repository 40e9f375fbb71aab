#!/usr/bin/env node
// The installed `gatehouse` command runs the build, proxy/dist (`npm run build`, which `npm install`
// runs). In development run the TypeScript source instead: `npx tsx proxy/bin/gatehouse.ts`.
import { existsSync } from 'node:fs'

const build = new URL('../dist/gatehouse.js', import.meta.url)
if (!existsSync(build)) {
  process.stderr.write(
    'gatehouse: proxy/dist is missing; run `npm run build` at the repository root\n',
  )
  process.exit(1)
}
await import(build.href)
