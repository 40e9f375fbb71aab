/**
 * The one gatehouse configuration builder and launcher of the tests and harnesses that run
 * `gatehouse -f <file>` as a process of its own (restarts, signals, workers, Node versions). A
 * test that can start the proxy in-process does that instead (proxy/test/helpers.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { withFreePort } from './free-port.js'
import { type Launched, launch } from './process.js'
import { proxyBuildIsFresh } from './proxy-build.js'

/** The proxy's command from source (run through tsx). */
export const GATEHOUSE_BIN = fileURLToPath(new URL('../../proxy/bin/gatehouse.ts', import.meta.url))
/** The repository's root. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/**
 * The node arguments that run the proxy's command with `args`:
 * `spawn(process.execPath, gatehouseArgs('-f', file))`. Its build (`proxy/dist/gatehouse.js`) while
 * that is newer than every source it bundles — what `npm test` runs after `npm run build`, on about
 * a third of the CPU of a start from source — else the source through tsx, so a test never runs
 * code older than the working tree (proxy-build.ts).
 */
export function gatehouseArgs(...args: string[]): string[] {
  // The bundle itself, not its launcher: the launcher runs it again on Node 22 when this Node is
  // older, and a test's signals would then reach the launcher, not the proxy.
  if (proxyBuildIsFresh(ROOT)) return [join(ROOT, 'proxy/dist/gatehouse.js'), ...args]
  return ['--import', createRequire(import.meta.url).resolve('tsx'), GATEHOUSE_BIN, ...args]
}

/** What {@link gatehouseConfig} builds on. */
export interface GatehouseConfigParts {
  /** The port of the gateway `default` on 127.0.0.1. */
  port: number
  /** `config` fields; `adminAddr` defaults to `off`. */
  config?: Record<string, unknown>
  /** Any other top-level section (`backends`, `routes`, `policies`, …), as written. */
  [section: string]: unknown
}

/**
 * A gatehouse configuration: the sections given, with the gateway `default` on
 * `127.0.0.1:<port>` (any `gateways` given is replaced) and admin off unless `config.adminAddr`
 * says otherwise.
 */
export function gatehouseConfig(parts: GatehouseConfigParts): Record<string, unknown> {
  const { port, config, ...sections } = parts
  return {
    ...sections,
    config: { adminAddr: 'off', ...config },
    gateways: { default: { port, address: '127.0.0.1' } },
  }
}

const dirs = new Set<string>()

/**
 * Writes `config` to `gatehouse.yaml` in `dir` (default: a fresh temporary directory, removed when
 * this process exits), as JSON, which is YAML too.
 * @returns the file's path.
 */
export function writeGatehouseConfig(config: object, dir?: string): string {
  let target = dir
  if (!target) {
    target = mkdtempSync(join(tmpdir(), 'gatehouse-test-'))
    if (dirs.size === 0) {
      process.once('exit', () => {
        for (const d of dirs) rmSync(d, { recursive: true, force: true })
      })
    }
    dirs.add(target)
  }
  const file = join(target, 'gatehouse.yaml')
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`)
  return file
}

/** Options of {@link launchGatehouse}. */
export interface LaunchGatehouseOptions {
  /** The node binary (default this process's): an LTS line for node:sqlite. */
  node?: string
  cwd?: string
  env?: NodeJS.ProcessEnv
  /** Output that says it is ready (default `gatehouse listening`). */
  ready?: string | RegExp
}

/**
 * Starts `gatehouse -f <file>` from source and resolves once it says it listens.
 * @throws when it exits first (a port in use says `EADDRINUSE`, which {@link startGatehouseProcess}
 * retries), with its output.
 */
export async function launchGatehouse(
  file: string,
  options: LaunchGatehouseOptions = {},
): Promise<Launched> {
  const launched = launch(options.node ?? process.execPath, gatehouseArgs('-f', file), {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.env ? { env: options.env } : {}),
  })
  try {
    await launched.waitForOutput(options.ready ?? 'gatehouse listening')
  } catch (err) {
    await launched.stop('SIGKILL')
    throw err
  }
  return launched
}

/** A gatehouse process started by {@link startGatehouseProcess}. */
export interface GatehouseProcess extends Launched {
  /** The port of its gateway `default`. */
  port: number
  /** Its configuration file. */
  file: string
}

/**
 * Builds a configuration around `sections` on a free port, writes it and launches it; on another
 * port again when the one chosen was taken before gatehouse bound it.
 */
export function startGatehouseProcess(
  sections: Omit<GatehouseConfigParts, 'port'>,
  options: LaunchGatehouseOptions = {},
): Promise<GatehouseProcess> {
  return withFreePort(async (port) => {
    const file = writeGatehouseConfig(gatehouseConfig({ ...sections, port }))
    return Object.assign(await launchGatehouse(file, options), { port, file })
  })
}
