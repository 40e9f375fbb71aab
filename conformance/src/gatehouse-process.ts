/**
 * Runs the reference proxy (gatehouse) as a child process with a configuration object: from the
 * repository in a checkout (its fresh build, or the sources through tsx: proxy-build.ts), else the bundle the installed package carries
 * (`dist/gatehouse.js`, scripts/build-config.ts), so the embedded stack and the client mode run
 * with nothing but the package.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { referenceProxyCommand } from '@gatehouse/support/proxy-build'
import { stringify } from 'yaml'
import { kubernetesFiles } from './kubernetes-config.js'

/** The package's name, which marks its root (conformance/package.json). */
const PACKAGE_NAME = '@gatehouse/conformance'

/**
 * The conformance package's root: the nearest directory above `from` whose package.json names it
 * (from the sources, conformance/src; from the build, dist/ or dist/chunks/, in a checkout or
 * installed).
 */
export function packageRoot(from: string = fileURLToPath(import.meta.url)): string {
  for (let dir = dirname(from); dir !== dirname(dir); dir = dirname(dir)) {
    const pkg = join(dir, 'package.json')
    if (!existsSync(pkg)) continue
    try {
      if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === PACKAGE_NAME)
        return dir
    } catch {
      // Not a package.json we can read: keep looking upwards.
    }
  }
  throw new Error(`no ${PACKAGE_NAME} package.json above ${from}`)
}

/** The conformance package's root directory. */
export const PACKAGE_ROOT = packageRoot()

/**
 * The repository root in a checkout (where the reference proxy's sources live), with a trailing
 * separator as `new URL('../../', import.meta.url)` gave it before the package carried a proxy.
 */
export const ROOT = `${dirname(PACKAGE_ROOT)}${sep}`
const TSX = join(ROOT, 'node_modules/.bin/tsx')

/** The command line that runs a gatehouse, before `-f <config>`, and its working directory. */
export interface ProxyCommand {
  argv: string[]
  cwd: string
}

/**
 * How to run the reference proxy: `proxyDir`'s sources (a patched copy: a mutant), else the
 * checkout's `proxy/` through tsx, so a run judges the sources as they are now; else the installed
 * package's bundle on this Node. `undefined` when there is neither.
 */
export function referenceProxy(proxyDir?: string): ProxyCommand | undefined {
  const entry = join(proxyDir ?? join(ROOT, 'proxy'), 'bin/gatehouse.ts')
  if (existsSync(entry) && existsSync(TSX))
    return { argv: proxyDir ? [TSX, entry] : referenceProxyCommand(ROOT, TSX), cwd: ROOT }
  const bundle = join(PACKAGE_ROOT, 'dist/gatehouse.js')
  if (!proxyDir && existsSync(bundle))
    return { argv: [process.execPath, bundle], cwd: PACKAGE_ROOT }
  return undefined
}

/** Options of {@link startGatehouse} and stack.ts's `startGateway`. */
export interface GatewayOptions {
  /** The `proxy/` directory to run (`bin/gatehouse.ts` in it). Default: the repository's proxy. */
  proxyDir?: string
  /** Browser origins the MCP routes accept besides {@link APP_ORIGIN} (a test's page). */
  extraOrigins?: readonly string[]
  /** The command line before `-f <config>`, instead of tsx and `bin/gatehouse.ts` (e.g. `node` and
   * a bundle built from mutated sources: `npm run conformance:stryker`). */
  command?: readonly string[]
  /** The process's environment. Default: this process's. */
  env?: NodeJS.ProcessEnv
  /**
   * How the configuration is written: gatehouse's standalone YAML (default) or Kubernetes
   * manifests (`kubernetes-config.ts`), in a directory given to `-f`.
   */
  configFormat?: 'standalone' | 'kubernetes'
}

/** A gatehouse child process started by {@link startGatehouse}. */
export interface GatehouseProcess {
  child: ChildProcess
  /** Everything the process wrote (for diagnostics). */
  output(): string
  /** SIGTERM, then SIGKILL after 5 s; resolves when the process has exited. */
  stop(): Promise<void>
}

/**
 * Starts the reference proxy (or a patched copy, `options.proxyDir`) with a configuration object,
 * written to a temporary YAML file; resolves once it logs that it is listening.
 */
export async function startGatehouse(
  config: Record<string, unknown>,
  options: GatewayOptions = {},
): Promise<GatehouseProcess> {
  const proxy = options.command
    ? { argv: [...options.command], cwd: ROOT }
    : referenceProxy(options.proxyDir)
  if (!proxy) {
    throw new Error(
      options.proxyDir
        ? `the reference proxy is missing: no ${join(options.proxyDir, 'bin/gatehouse.ts')}, or no tsx in ${ROOT}node_modules`
        : `the reference proxy is missing: no ${join(PACKAGE_ROOT, 'dist/gatehouse.js')} (reinstall the package; in a checkout, npm run build); pass --target <base_url> to judge a running gateway`,
    )
  }
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-conformance-'))
  let file = join(dir, 'gatehouse.yaml')
  if (options.configFormat === 'kubernetes') {
    file = join(dir, 'manifests')
    mkdirSync(file)
    for (const [name, text] of Object.entries(kubernetesFiles(config)))
      writeFileSync(join(file, name), text)
  } else {
    writeFileSync(file, stringify(config))
  }
  const [command, ...prefix] = proxy.argv
  const child = spawn(command as string, [...prefix, '-f', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: proxy.cwd,
    env: options.env ?? process.env,
  })
  let out = ''
  child.stdout?.on('data', (c: Buffer) => {
    out += c.toString()
  })
  child.stderr?.on('data', (c: Buffer) => {
    out += c.toString()
  })
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      // SIGTERM first: a launcher in between (tsx, or the Node 22 relaunch of an older Node)
      // passes it on, while a SIGKILL would leave the proxy it started running.
      child.kill('SIGTERM')
      setTimeout(() => child.kill('SIGKILL'), 5000).unref()
      reject(new Error(`the gateway did not start within 30 s:\n${out.slice(-2000)}`))
    }, 30_000)
    const onData = () => {
      if (out.includes('gatehouse listening')) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout?.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the gateway exited (code ${code}) before listening:\n${out.slice(-2000)}`))
    })
  })
  return {
    child,
    output: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(timer)
    },
  }
}
