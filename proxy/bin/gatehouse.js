#!/usr/bin/env node
// The installed `gatehouse` command runs the build, proxy/dist (`npm run build`, which `npm install`
// runs). In development run the TypeScript source instead: `npx tsx proxy/bin/gatehouse.ts`.
import { existsSync } from 'node:fs'

// On a Node older than 22, the command runs again on the repository's Node 22 package when it is
// installed (scripts/supported-node.mjs; absent from a packed workspace, which runs as it is).
const launcher = new URL('../../scripts/supported-node.mjs', import.meta.url)
const relaunched =
  existsSync(launcher) && (await import(launcher.href)).relaunchOnSupportedNode(import.meta.url)
if (!relaunched) {
  const build = new URL('../dist/gatehouse.js', import.meta.url)
  if (!existsSync(build)) {
    process.stderr.write(
      'gatehouse: proxy/dist is missing; run `npm run build` at the repository root\n',
    )
    process.exit(1)
  }
  await import(build.href)
}
