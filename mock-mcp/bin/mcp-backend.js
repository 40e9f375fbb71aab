#!/usr/bin/env node
// The installed `mcp-backend` command runs the build, mock-mcp/dist (`npm run build`, which `npm install`
// runs). In development run the TypeScript source instead: `npx tsx mock-mcp/bin/mcp-backend.ts`.
import { existsSync } from 'node:fs'

const build = new URL('../dist/mcp-backend.js', import.meta.url)
if (!existsSync(build)) {
  process.stderr.write(
    'mcp-backend: mock-mcp/dist is missing; run `npm run build` at the repository root\n',
  )
  process.exit(1)
}
await import(build.href)
