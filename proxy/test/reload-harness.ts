/**
 * Reload tests' harness: backends that answer with their name (and can hold a response open),
 * configuration directories written by the test, and a gatehouse started from one with the same
 * reload path the CLI wires (loadConfigSourcesOffThread + compile checks).
 */
import { once } from 'node:events'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfigSourcesOffThread } from '../src/config/load-thread.js'
import { type Gatehouse, startGatehouse } from '../src/index.js'
import { capturedLogging } from './helpers.js'

/** A backend answering `<name> <path>`; `/hold` keeps the response open until released. */
export async function nameBackend(name: string) {
  const held: ServerResponse[] = []
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/mcp/hold')) {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.write(`${name} start\n`)
      held.push(res)
      return
    }
    res.writeHead(200, { 'content-type': 'text/plain' })
    res.end(`${name} ${req.url}`)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    port: (server.address() as AddressInfo).port,
    /** Ends every held response with `<name> end`. */
    release() {
      for (const r of held.splice(0)) r.end(`${name} end\n`)
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}

/**
 * The standalone configuration with one gateway per entry of `gateways` and a public route
 * (`allowUnauthenticated`) to `backendPort`.
 */
export function standalone(
  backendPort: number,
  options: { gateways?: string[]; maxAge?: number; adminAddr?: string } = {},
): string {
  const gws = options.gateways ?? ['default']
  return `config: { adminAddr: "${options.adminAddr ?? '127.0.0.1:0'}", logLevel: info, drainTimeout: 5s }
gateways:
${gws.map((g) => `  ${g}: { port: 3000, address: 127.0.0.1 }`).join('\n')}
backends:
  b: { static: { host: 127.0.0.1, port: ${backendPort} } }
routes:
${gws
  .map(
    (g) => `  r-${g}:
    allowUnauthenticated: true
    parentRefs: [{ name: ${g} }]
    rules:
      - matches: [{ path: { type: PathPrefix, value: /mcp } }]
        filters: [{ type: CORS, cors: { allowOrigins: ['*'], maxAge: ${options.maxAge ?? 60} } }]
        backendRefs: [{ name: b }]`,
  )
  .join('\n')}
`
}

/** A fresh directory holding `files`. */
export function configDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-reload-'))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

/** A gatehouse started from `paths`, reloading them as the CLI does; with its logs. */
export async function startFromPaths(
  paths: string[],
): Promise<Gatehouse & { logs: Array<Record<string, unknown>> }> {
  const load = () => loadConfigSourcesOffThread(paths, { env: {} })
  const source = await load()
  const logs: Array<Record<string, unknown>> = []
  const gh = await startGatehouse({
    config: source.config,
    source,
    loadConfig: load,
    ephemeralPorts: true,
    logging: capturedLogging(logs),
  })
  return Object.assign(gh, { logs })
}

/** Polls `check` until it returns a value other than undefined (at most ~20 s). */
export async function until<T>(
  check: () => Promise<T | undefined> | T | undefined,
  what: string,
): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = await check()
    if (v !== undefined) return v
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`gave up waiting for ${what}`)
}

/** GET a gateway path; the body text. */
export async function get(url: string): Promise<string> {
  const res = await fetch(url)
  return res.text()
}
