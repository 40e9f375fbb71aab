/**
 * The admin web UI's build (part of `npm run build`, with the proxy's bundle): esbuild bundles the
 * page's script (`proxy/src/admin/ui/app/main.ts`, plain DOM, and `@gatehouse/redact`) and its
 * style into `<proxy dist>/ui/app.js` and `app.css`, minified, for the browsers the UI supports.
 * The proxy serves these two files and nothing else; the page loads nothing from anywhere else.
 */
import { join } from 'node:path'
import { build } from 'esbuild'
import { ROOT } from './build-config.js'

/** The page's sources, relative to the repository root. */
export const UI_SOURCES = {
  script: 'proxy/src/admin/ui/app/main.ts',
  style: 'proxy/src/admin/ui/app/app.css',
} as const

/** Builds the UI into `outdir` (`proxy/dist/ui` once the build is swapped in). */
export async function buildAdminUi(outdir: string): Promise<void> {
  const common = {
    absWorkingDir: ROOT,
    bundle: true,
    minify: true,
    legalComments: 'none' as const,
    logLevel: 'warning' as const,
    // Browsers of the last few years: BroadcastChannel, private fields, top-level ESM.
    target: ['chrome111', 'firefox114', 'safari16.4'],
  }
  await Promise.all([
    build({
      ...common,
      entryPoints: [UI_SOURCES.script],
      outfile: join(outdir, 'app.js'),
      format: 'esm',
      platform: 'browser',
    }),
    build({ ...common, entryPoints: [UI_SOURCES.style], outfile: join(outdir, 'app.css') }),
  ])
}
