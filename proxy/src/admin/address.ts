/**
 * Binding the admin interface: `host:port` (TCP) or `unix:/path` (a socket file only the owner
 * may open). The seed (Authentication point 5) protects the admin interface by binding it to
 * loopback only, so a non-loopback bind is allowed but announced loudly.
 */
import { lookup } from 'node:dns/promises'
import { chmod, lstat, unlink } from 'node:fs/promises'
import type { Server } from 'node:http'
import { connect, isIP } from 'node:net'
import { GatehouseError } from '../errors.js'

/** Where the admin server listens. */
export type AdminBind = { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; path: string }

/** A bound admin server. */
export interface BoundAdmin {
  /** `http://host:port` or `unix:/path`. */
  url: string
  /** The host that was actually bound (TCP only). */
  host?: string
  /** Whether only local clients can reach it. */
  loopback: boolean
  /** Closes the listener; removes the socket file of a unix bind. */
  close(): Promise<void>
}

/**
 * Parses `config.adminAddr` (already validated by the config schema).
 * @throws GatehouseError GW_ERR_LISTEN when the text is neither form (`off` is handled by the caller).
 */
export function parseAdminAddr(addr: string): AdminBind {
  if (addr.startsWith('unix:')) return { kind: 'unix', path: addr.slice('unix:'.length) }
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s]+)):(\d+)$/.exec(addr)
  const port = Number(m?.[3])
  if (!m || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new GatehouseError(
      'GW_ERR_LISTEN',
      `config.adminAddr: "${addr}" is not "ip:port", "unix:/path/to/socket" or "off"`,
    )
  }
  return { kind: 'tcp', host: (m[1] ?? m[2]) as string, port }
}

/** True for 127.0.0.0/8, ::1 and their IPv4-mapped forms. */
export function isLoopback(ip: string): boolean {
  const v4 = ip.startsWith('::ffff:') ? ip.slice('::ffff:'.length) : ip
  if (isIP(v4) === 4) return v4.startsWith('127.')
  return ip === '::1' || ip === '0:0:0:0:0:0:0:1'
}

/** Resolves a name such as `localhost` to the address to bind (IPs pass through). */
async function resolveHost(host: string): Promise<string> {
  if (isIP(host) !== 0) return host
  try {
    return (await lookup(host)).address
  } catch (cause) {
    throw new GatehouseError(
      'GW_ERR_LISTEN',
      `config.adminAddr: cannot resolve "${host}": ${(cause as Error).message}`,
      { cause },
    )
  }
}

function listen(server: Server, target: { port: number; host: string } | { path: string }) {
  return new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err)
    server.once('error', onError)
    server.listen(target, () => {
      server.off('error', onError)
      resolve()
    })
  })
}

/** True when something answers on the socket path (then it is not stale). */
function socketAlive(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ path })
    s.once('connect', () => {
      s.destroy()
      resolve(true)
    })
    s.once('error', () => resolve(false))
  })
}

/** Removes a leftover socket file from a previous run; refuses to touch anything else. */
async function clearStaleSocket(path: string): Promise<void> {
  const st = await lstat(path).catch(() => undefined)
  if (!st) return
  if (!st.isSocket()) {
    throw new GatehouseError(
      'GW_ERR_LISTEN',
      `config.adminAddr: ${path} exists and is not a socket; remove it or choose another path`,
    )
  }
  if (await socketAlive(path)) {
    throw new GatehouseError(
      'GW_ERR_LISTEN',
      `config.adminAddr: another process serves ${path}; stop it or choose another path`,
    )
  }
  await unlink(path)
}

/**
 * Listens on a unix socket created with mode 0600. The socket file is created synchronously inside
 * `listen()`, so a umask set around that call alone closes the window in which another user could
 * connect before the `chmod` (which stays, for platforms where umask cannot be set, e.g. workers).
 */
function listenOwnerOnly(server: Server, path: string): Promise<void> {
  let previous: number | undefined
  try {
    previous = process.umask(0o177)
  } catch {
    previous = undefined
  }
  try {
    return listen(server, { path })
  } finally {
    if (previous !== undefined) process.umask(previous)
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  })
}

/**
 * Binds the server.
 * @throws GatehouseError GW_ERR_LISTEN naming the address and the cause.
 */
export async function bindAdmin(server: Server, bind: AdminBind): Promise<BoundAdmin> {
  if (bind.kind === 'unix') {
    await clearStaleSocket(bind.path)
    try {
      await listenOwnerOnly(server, bind.path)
    } catch (cause) {
      throw new GatehouseError(
        'GW_ERR_LISTEN',
        `config.adminAddr: cannot listen on unix:${bind.path}: ${(cause as Error).message}`,
        { cause },
      )
    }
    // Only the owner may connect: the admin interface has no authentication of its own.
    await chmod(bind.path, 0o600)
    return {
      url: `unix:${bind.path}`,
      loopback: true,
      close: async () => {
        await closeServer(server)
        await unlink(bind.path).catch(() => undefined)
      },
    }
  }
  const host = await resolveHost(bind.host)
  try {
    await listen(server, { host, port: bind.port })
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code
    const why =
      code === 'EADDRINUSE'
        ? 'address in use; stop the other process or set config.adminAddr to another port (or "off")'
        : (cause as Error).message
    throw new GatehouseError(
      'GW_ERR_LISTEN',
      `config.adminAddr: cannot listen on ${host}:${bind.port}: ${why}`,
      { cause },
    )
  }
  const addr = server.address()
  const port = typeof addr === 'object' && addr ? addr.port : bind.port
  const shown = host.includes(':') ? `[${host}]` : host
  return {
    url: `http://${shown}:${port}`,
    host,
    loopback: isLoopback(host),
    close: () => closeServer(server),
  }
}
