/**
 * Client of the gatehouse admin interface (seed: "Admin interface", default loopback port 15000).
 * Both TCP and `unix:/path` addresses go through `node:http` (`host`/`port` or `socketPath`):
 * the global fetch cannot dial a Unix socket without undici's Agent, and its default 300 s
 * headers timeout would cut a 300 s CPU profile (the seed's upper limit) short.
 */
import { request as httpRequest } from 'node:http'
import type { Readable } from 'node:stream'
import { GwctlError, usageError } from './errors.js'

/** The default admin port (seed: "the tool assumes 15000"). */
export const DEFAULT_ADMIN_PORT = 15000

/** Where the admin interface listens. */
export type AdminAddress =
  | { kind: 'tcp'; host: string; port: number }
  | { kind: 'unix'; path: string }

/**
 * Resolves the admin address from the global options.
 * `--admin` wins over `-p`; neither means `127.0.0.1:15000` (the seed's default, loopback only).
 * @param options.admin `host:port`, `[v6]:port`, `http://host:port` or `unix:/path`.
 * @param options.port the admin port on 127.0.0.1.
 * @throws GwctlError GWCTL_ERR_USAGE for an address or port that cannot be used.
 */
export function resolveAdminAddress(options: { admin?: string; port?: string }): AdminAddress {
  if (options.admin !== undefined) return parseAdminAddress(options.admin)
  if (options.port !== undefined)
    return { kind: 'tcp', host: '127.0.0.1', port: parsePort(options.port) }
  return { kind: 'tcp', host: '127.0.0.1', port: DEFAULT_ADMIN_PORT }
}

/**
 * Parses an `--admin` value, in the forms `config.adminAddr` takes (`ip:port`, `unix:/path`)
 * plus `http://host:port` as printed by gatehouse at start-up.
 */
export function parseAdminAddress(value: string): AdminAddress {
  if (value.startsWith('unix:')) {
    const path = value.slice('unix:'.length)
    if (!path) throw usageError(`--admin ${value}: expected unix:/path/to/socket`)
    return { kind: 'unix', path }
  }
  const hostPort = value.replace(/^http:\/\//, '').replace(/\/+$/, '')
  const m = /^(\[[^\]]+\]|[^:]+):([^:]+)$/.exec(hostPort)
  if (!m?.[1] || !m[2]) {
    throw usageError(`--admin ${value}: expected host:port (e.g. 127.0.0.1:15000) or unix:/path`)
  }
  return { kind: 'tcp', host: m[1], port: parsePort(m[2], '--admin') }
}

function parsePort(value: string, flag = '--port'): number {
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < 1 || n > 65535) {
    throw usageError(`${flag} ${value}: expected a port number between 1 and 65535`)
  }
  return n
}

/** The address as the user would write it, for messages. */
export function formatAdminAddress(addr: AdminAddress): string {
  return addr.kind === 'unix' ? `unix:${addr.path}` : `${addr.host}:${addr.port}`
}

/** An answer of the admin interface; the body is read at most once. */
export interface AdminResponse {
  status: number
  /** Lower-case header names. */
  headers: Record<string, string>
  /** The body as a stream of chunks. */
  body: AsyncIterable<Uint8Array>
  /** The whole body as text. */
  text(): Promise<string>
  /** The whole body as bytes. */
  bytes(): Promise<Buffer>
}

/** Options of {@link AdminClient.request}. */
export interface AdminRequestOptions {
  /** Default GET. */
  method?: 'GET' | 'POST'
  /** Query parameters; undefined values are left out. */
  query?: Record<string, string | number | undefined>
  /** Cancels the request, or the body while it streams. */
  signal?: AbortSignal
}

/** Talks to one admin address. */
export class AdminClient {
  /** Where requests go. */
  readonly address: AdminAddress

  constructor(address: AdminAddress) {
    this.address = address
  }

  /**
   * Sends one request.
   * @throws GwctlError GWCTL_ERR_ADMIN_UNREACHABLE when no connection can be made, with the
   * address tried, the cause and the hint about `-p` / `--admin` in the message.
   */
  async request(path: string, options: AdminRequestOptions = {}): Promise<AdminResponse> {
    const query = new URLSearchParams()
    for (const [k, v] of Object.entries(options.query ?? {})) {
      if (v !== undefined) query.set(k, String(v))
    }
    const qs = query.size > 0 ? `?${query}` : ''
    try {
      return await nodeRequest(this.address, `${path}${qs}`, options)
    } catch (err) {
      if (options.signal?.aborted) throw err
      throw this.unreachable(err)
    }
  }

  /** Sends a request and fails unless the status is 200. */
  async expectOk(path: string, options: AdminRequestOptions = {}): Promise<AdminResponse> {
    const res = await this.request(path, options)
    if (res.status !== 200) throw await unexpectedStatus(this.address, path, res)
    return res
  }

  private unreachable(err: unknown): GwctlError {
    return new GwctlError(
      'GWCTL_ERR_ADMIN_UNREACHABLE',
      `cannot reach the admin interface at ${formatAdminAddress(this.address)}: ${describeCause(err)}. ` +
        'Is gatehouse running? Use -p <port> or --admin <addr> if config.adminAddr is not localhost:15000.',
      { cause: err },
    )
  }
}

/** The error for a status other than the one expected, quoting the admin's own message. */
export async function unexpectedStatus(
  addr: AdminAddress,
  path: string,
  res: AdminResponse,
): Promise<GwctlError> {
  const body = (await res.text().catch(() => '')).trim().slice(0, 500)
  return new GwctlError(
    'GWCTL_ERR_ADMIN_RESPONSE',
    `the admin interface at ${formatAdminAddress(addr)} answered ${res.status} to ${path}${body ? `: ${body}` : ''}`,
  )
}

/** The innermost useful reason of a connection failure (`connect ECONNREFUSED 127.0.0.1:15000`). */
function describeCause(err: unknown): string {
  let e: unknown = err
  // Wrapped errors keep the socket error as their cause; happy-eyeballs failures aggregate several.
  while (e instanceof Error && e.cause instanceof Error) e = e.cause
  if (e instanceof AggregateError && e.errors[0] instanceof Error) e = e.errors[0]
  if (e instanceof Error) {
    const code = (e as { code?: string }).code
    if (e.message) return e.message
    if (code) return code
  }
  return String(e)
}

function nodeRequest(
  addr: AdminAddress,
  pathAndQuery: string,
  options: AdminRequestOptions,
): Promise<AdminResponse> {
  const target =
    addr.kind === 'unix'
      ? { socketPath: addr.path }
      : { host: addr.host.replace(/^\[|\]$/g, ''), port: addr.port }
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        ...target,
        path: pathAndQuery,
        method: options.method ?? 'GET',
        ...(options.signal ? { signal: options.signal } : {}),
      },
      (res) => {
        const headers: Record<string, string> = {}
        for (const [k, v] of Object.entries(res.headers)) {
          if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v
        }
        resolve(wrap(res.statusCode ?? 0, headers, res))
      },
    )
    req.once('error', reject)
    req.end()
  })
}

function wrap(status: number, headers: Record<string, string>, stream: Readable): AdminResponse {
  const bytes = async () => {
    const chunks: Buffer[] = []
    for await (const c of stream) chunks.push(Buffer.from(c as Uint8Array))
    return Buffer.concat(chunks)
  }
  return {
    status,
    headers,
    body: stream,
    bytes,
    text: async () => (await bytes()).toString('utf8'),
  }
}
