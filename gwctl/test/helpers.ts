/**
 * Test helpers: the real gwctl binary as a child process, a real gatehouse with its admin
 * interface on a free port in front of a tiny HTTP backend, and a scripted admin server for the
 * faults a real gatehouse cannot produce on demand (a 404 profile endpoint on Linux, a broken
 * stream, a non-dump answer).
 */
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { type Gatehouse, parseConfig, startGatehouse } from '@gatehouse/proxy'
import { launch, type ProcessResult, sendJson } from '@gatehouse/support'
import { buildIsFresh, GWCTL_BUILD_INPUTS } from '@gatehouse/support/proxy-build'
import { stringify } from 'yaml'

/**
 * Node's arguments that run gwctl: its build (`gwctl/dist/gwctl.js`, what the installed bin runs)
 * while that is newer than every source it bundles — what `npm test` runs after `npm run build`,
 * on about a quarter of the CPU of a start from source (2026-11-28, `--help`: 0.3 s against 1.2 s
 * of user+system time) — else the source through tsx, so a test never runs code older than the
 * working tree.
 */
export const GWCTL_ARGS: readonly string[] = buildIsFresh(
  fileURLToPath(new URL('../../', import.meta.url)),
  'gwctl/dist/gwctl.js',
  GWCTL_BUILD_INPUTS,
)
  ? [fileURLToPath(new URL('../dist/gwctl.js', import.meta.url))]
  : [
      '--import',
      createRequire(import.meta.url).resolve('tsx'),
      fileURLToPath(new URL('../bin/gwctl.ts', import.meta.url)),
    ]
/** The saved config dump fixture. */
export const DUMP_FIXTURE = fileURLToPath(new URL('./fixtures/config-dump.json', import.meta.url))
/** A fixture directory path. */
export const fixture = (name: string) =>
  fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))

/** What a finished gwctl run left behind. */
export type GwctlResult = ProcessResult

/** A running gwctl process whose output is collected as it comes. */
export interface GwctlProcess {
  child: ChildProcess
  /** Output so far. */
  stdout(): string
  stderr(): string
  /** Resolves once stdout contains `text`. */
  waitForStdout(text: string): Promise<void>
  /** Resolves once stderr contains `text`. */
  waitForStderr(text: string): Promise<void>
  /** Resolves when the process exits. */
  done: Promise<GwctlResult>
}

/** Starts `node --import tsx bin/gwctl.ts ...args` (async: the servers of the test live in this process). */
export function spawnGwctl(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): GwctlProcess {
  const gwctl = launch(process.execPath, [...GWCTL_ARGS, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...options.env },
  })
  return {
    child: gwctl.child,
    stdout: gwctl.stdout,
    stderr: gwctl.stderr,
    waitForStdout: (text) => gwctl.waitForOutput(text, 'stdout'),
    waitForStderr: (text) => gwctl.waitForOutput(text, 'stderr'),
    done: gwctl.exited,
  }
}

/** Runs gwctl to completion. */
export function runGwctl(
  args: readonly string[],
  options: { cwd?: string } = {},
): Promise<GwctlResult> {
  return spawnGwctl(args, options).done
}

/** A plain HTTP backend that answers every request with 200 and a small JSON body. */
export async function startBackend(): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      sendJson(res, 200, { ok: true, path: req.url })
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    port: (server.address() as AddressInfo).port,
    close: () => closeServer(server),
  }
}

/** A real gatehouse with its admin interface, plus its backend. */
export interface LiveGatehouse {
  gatehouse: Gatehouse
  /** Data-plane base URL. */
  url: string
  /** `host:port` of the admin interface, as `--admin` takes it. */
  admin: string
  /** The admin port, as `-p` takes it. */
  adminPort: string
  close(): Promise<void>
}

/**
 * Starts gatehouse with one gateway, one public route `mcp` on `/mcp` to the backend, and the admin
 * interface on `adminAddr` (default a free loopback port).
 */
export async function startLiveGatehouse(adminAddr = '127.0.0.1:0'): Promise<LiveGatehouse> {
  const backend = await startBackend()
  const config = parseConfig(
    stringify({
      config: { adminAddr, logLevel: 'error' },
      gateways: { default: { port: 3000, address: '127.0.0.1' } },
      backends: { 'mcp-backend': { static: { host: '127.0.0.1', port: backend.port } } },
      routes: {
        mcp: {
          rules: [
            {
              matches: [{ path: { type: 'PathPrefix', value: '/mcp' } }],
              backendRefs: [{ name: 'mcp-backend' }],
            },
          ],
          // Public on purpose: gwctl's tests read the admin interface, not authentication.
          allowUnauthenticated: true,
        },
      },
    }),
    'gwctl-test.yaml',
  )
  const gatehouse = await startGatehouse({ config, ephemeralPorts: true })
  const adminUrl = gatehouse.adminUrl ?? ''
  const admin = adminUrl.replace(/^http:\/\//, '')
  return {
    gatehouse,
    url: gatehouse.gateways[0]?.url ?? '',
    admin,
    adminPort: admin.split(':').at(-1) ?? '',
    close: async () => {
      await gatehouse.stop('test finished')
      await backend.close()
    },
  }
}

/** A scripted admin server: each path answers with the given handler. */
export async function startScriptedAdmin(
  routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void>,
): Promise<{ admin: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    const handler = routes[path]
    if (handler) handler(req, res)
    else {
      res.writeHead(404, { 'content-type': 'text/plain' })
      res.end('not found\n')
    }
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    admin: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => closeServer(server),
  }
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections()
  return new Promise((resolve) => server.close(() => resolve()))
}
