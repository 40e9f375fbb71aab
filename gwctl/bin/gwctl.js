#!/usr/bin/env node
// The installed `gwctl` command runs the build, gwctl/dist (`npm run build`, which `npm install`
// runs). In development run the TypeScript source instead: `npx tsx gwctl/bin/gwctl.ts`.
import { existsSync } from 'node:fs'

const build = new URL('../dist/gwctl.js', import.meta.url)
if (!existsSync(build)) {
  process.stderr.write('gwctl: gwctl/dist is missing; run `npm run build` at the repository root\n')
  process.exit(1)
}
await import(build.href)
