/**
 * `npm run build` (also run by `npm install`/`npm ci` through `prepare`, and by `npm start` and
 * `npm test`): compiles each command to JavaScript in `<workspace>/dist/` (see build-config.ts),
 * so the installed bins and the container image run without tsx.
 * `npm run build -- <workspace>...` builds only those workspaces. First it removes npm's
 * `node_modules/.bin/node` link to a tested LTS binary (build-config.ts), so the scripts that follow
 * run on the machine's Node.
 */
import { chmodSync, existsSync, renameSync, rmSync } from 'node:fs'
import { basename, join } from 'node:path'
import { build } from 'esbuild'
import { BUNDLES, buildOptions, unlinkLtsNodeBin } from './build-config.js'
import { buildAdminUi } from './build-ui.js'

unlinkLtsNodeBin()

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
    // Built beside dist/ and swapped in, so a command started meanwhile finds a whole build.
    const next = `${options.outdir}.next-${process.pid}`
    const old = `${options.outdir}.old-${process.pid}`
    rmSync(next, { recursive: true, force: true })
    await build({ ...options, outdir: next })
    // The proxy serves its web UI from dist/ui (scripts/build-ui.ts).
    if (bundle.workspace === 'proxy') await buildAdminUi(join(next, 'ui'))
    // The entry keeps the source's `#!/usr/bin/env node`; make it runnable as it is.
    chmodSync(join(next, `${basename(bundle.entry, '.ts')}.js`), 0o755)
    if (existsSync(options.outdir)) renameSync(options.outdir, old)
    renameSync(next, options.outdir)
    rmSync(old, { recursive: true, force: true })
  }),
)
const ms = (performance.now() - started).toFixed(0)
process.stdout.write(`build: ${bundles.map((b) => `${b.workspace}/dist`).join(', ')} (${ms} ms)\n`)
