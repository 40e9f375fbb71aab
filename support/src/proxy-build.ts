/**
 * How the suite and the tests start the reference proxy: from its build (`proxy/bin/gatehouse.js`,
 * which runs `proxy/dist/gatehouse.js`) when `npm run build` wrote that after the last change to
 * every source it bundles, else from the TypeScript source through tsx. The suite starts a proxy
 * per scenario (the client mode, the real-peer matrix), and the tests that need a process of its own
 * (support/src/gatehouse.ts) start it dozens of times: the build starts on about a third of the
 * CPU (2026-11-28, `--validate` of the standalone example on Node 22: 1.0 s against 3.0 s of
 * user+system time). A source newer than the build — an edit since the last `npm run build` —
 * makes it run the source, so what is judged is never older than the working tree.
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** What `npm run build` bundles into `proxy/dist/gatehouse.js` (scripts/build-config.ts). */
export const PROXY_BUILD_INPUTS = ['proxy/src', 'proxy/bin', 'redact/src', 'support/src']

/** The newest modification time (ms) of the files under `dirs` (relative to `root`), or 0. */
export function newestSource(root: string, dirs: readonly string[] = PROXY_BUILD_INPUTS): number {
  let newest = 0
  for (const dir of dirs) {
    const abs = join(root, dir)
    if (!existsSync(abs)) continue
    for (const file of readdirSync(abs, { recursive: true, encoding: 'utf8' })) {
      const stat = statSync(join(abs, file))
      if (stat.isFile() && stat.mtimeMs > newest) newest = stat.mtimeMs
    }
  }
  return newest
}

/** Whether `root`'s proxy build is newer than every source it bundles. */
export function proxyBuildIsFresh(root: string): boolean {
  return buildIsFresh(root, 'proxy/dist/gatehouse.js', PROXY_BUILD_INPUTS)
}

/** What `npm run build` bundles into `gwctl/dist/gwctl.js`: gwctl and the proxy's config code. */
export const GWCTL_BUILD_INPUTS = ['gwctl/src', 'gwctl/bin', ...PROXY_BUILD_INPUTS]

/** Whether the build `build` (relative to `root`) is newer than every file under `inputs`. */
export function buildIsFresh(root: string, build: string, inputs: readonly string[]): boolean {
  const file = join(root, build)
  return existsSync(file) && statSync(file).mtimeMs > newestSource(root, inputs)
}

const fresh = new Map<string, boolean>()

/**
 * The command (program and arguments, `-f <file>` to follow) that runs `root`'s reference proxy:
 * `node proxy/bin/gatehouse.js` on this process's Node when the build is fresh (checked once per
 * process), else `tsx proxy/bin/gatehouse.ts`.
 */
export function referenceProxyCommand(root: string, tsx: string): string[] {
  if (!fresh.has(root)) fresh.set(root, proxyBuildIsFresh(root))
  return fresh.get(root)
    ? [process.execPath, join(root, 'proxy/bin/gatehouse.js')]
    : [tsx, join(root, 'proxy/bin/gatehouse.ts')]
}
