/**
 * One gateway listener: a Fastify server with a single catch-all route that hands the raw
 * request to the pipeline. Bodies are never parsed here (the content-type parser passes the
 * stream through, as @fastify/http-proxy does), so uploads and downloads stream.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import Fastify from 'fastify'
import { GatehouseError } from '../errors.js'
import type { TaskRegistry } from '../telemetry/tasks.js'

/** A listening gateway. */
export interface Listener {
  readonly name: string
  readonly address: string
  readonly port: number
  readonly url: string
  /** Stops accepting, lets in-flight requests finish for up to `drainMs`, then cuts the rest. */
  close(drainMs: number): Promise<void>
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

/**
 * Starts a listener.
 * @throws {@link GatehouseError} `GW_ERR_LISTEN` naming the address and what to do.
 */
export async function startListener(
  name: string,
  address: string,
  port: number,
  handle: (req: IncomingMessage, res: ServerResponse, connectionId: number) => Promise<void>,
  tasks: TaskRegistry,
): Promise<Listener> {
  const app = Fastify({
    logger: false,
    exposeHeadRoutes: false,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    keepAliveTimeout: 65_000,
    requestTimeout: 0,
    bodyLimit: 1024 * 1024 * 1024,
  })
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_req, _payload, done) => done(null))
  const connections = new WeakMap<Socket, number>()
  app.server.on('connection', (socket: Socket) => {
    const conn = tasks.openConnection(name, `${socket.remoteAddress}:${socket.remotePort}`)
    connections.set(socket, conn.id)
    socket.once('close', conn.close)
  })
  app.route({
    method: METHODS,
    url: '*',
    handler: (request, reply) => {
      reply.hijack()
      return handle(request.raw, reply.raw, connections.get(request.raw.socket) ?? 0)
    },
  })
  try {
    await app.listen({ host: address, port })
  } catch (cause) {
    await app.close().catch(() => {})
    const code = (cause as NodeJS.ErrnoException).code
    const why =
      code === 'EADDRINUSE'
        ? 'the address is already in use; stop the other process or change the port'
        : code === 'EADDRNOTAVAIL'
          ? 'the address is not on this host; use 0.0.0.0, 127.0.0.1 or an address of this host'
          : code === 'EACCES'
            ? 'permission denied; ports below 1024 need privileges, pick a higher port'
            : String((cause as Error).message)
    throw new GatehouseError(
      'GW_ERR_LISTEN',
      `gateways.${name}: cannot listen on ${address}:${port}: ${why}`,
      { cause },
    )
  }
  const bound = app.server.address()
  const boundPort = typeof bound === 'object' && bound ? bound.port : port
  const host = address.includes(':') ? `[${address}]` : address
  const removeListener = tasks.addListener(name, `${address}:${boundPort}`)
  return {
    name,
    address,
    port: boundPort,
    url: `http://${host}:${boundPort}`,
    async close(drainMs) {
      removeListener()
      const deadline = setTimeout(() => app.server.closeAllConnections(), drainMs)
      deadline.unref()
      try {
        await app.close()
      } finally {
        clearTimeout(deadline)
      }
    },
  }
}
