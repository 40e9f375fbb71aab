/**
 * `npm run build` (also run by `npm install`/`npm ci` through `prepare`, and by `npm start` and
 * `npm test`): compiles each command to JavaScript in `<workspace>/dist/` (see build-config.ts),
 * so the installed bins and the container image run without tsx.
 * `npm run build -- <workspace>...` builds only those workspaces.
 */
import { chmodSync, rmSync } from 'node:fs'
import { basename, join } from 'node:path'
import { build } from 'esbuild'
import { BUNDLES, buildOptions } from './build-config.js'

const only = process.argv.slice(2)
const unknown = only.filter((w) => !BUNDLES.some((b) => b.workspace === w))
if (unknown.length > 0) {
  process.stderr.write(
    `build: no bundle for ${unknown.join(', ')}; workspaces: ${BUNDLES.map((b) => b.workspace).join(', ')}\n`,
  )
  process.exit(2)
}
const started = performance.now()
const bundles = BUNDLES.filter((b) => only.length === 0 || only.includes(b.workspace))
await Promise.all(
  bundles.map(async (bundle) => {
    const options = buildOptions(bundle)
    rmSync(options.outdir, { recursive: true, force: true })
    await build(options)
    // The entry keeps the source's `#!/usr/bin/env node`; make it runnable as it is.
    chmodSync(join(options.outdir, `${basename(bundle.entry, '.ts')}.js`), 0o755)
  }),
)
const ms = (performance.now() - started).toFixed(0)
process.stdout.write(`build: ${bundles.map((b) => `${b.workspace}/dist`).join(', ')} (${ms} ms)\n`)
