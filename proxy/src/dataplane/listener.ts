/**
 * One gateway listener: a node:http server that hands every request, raw, to the pipeline.
 * Bodies are never parsed here, so uploads and downloads stream.
 *
 * The listener enforces the gateway's `limits` with Node's own mechanisms — `headersTimeout` and
 * `requestTimeout` (slowloris: headers and bodies that trickle), `maxHeaderSize`,
 * `server.maxConnections` — and answers what the server would answer bare (client errors, an
 * unknown `Expect`, `CONNECT`, requests arriving while it drains) with the JSON error body.
 * None of the deadlines bounds a response: an SSE stream stays open as long as its session.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import {
  createServer as createHttpsServer,
  type Server as HttpsServer,
  Server as HttpsServerClass,
} from 'node:https'
import type { Socket } from 'node:net'
import type { Logger } from 'pino'
import type { GatewayLimitsConfig } from '../config/schema.js'
import { GatehouseError, RequestError } from '../errors.js'
import { fromRequestError, sendLocal } from '../http/local-response.js'
import type { TaskRegistry } from '../telemetry/tasks.js'
import { type ServerCertificates, watchCertificates } from './certificates.js'
import { onClientError, onConnectMethod, onUnknownExpectation } from './client-errors.js'

/** A listening gateway. */
export interface Listener {
  readonly name: string
  readonly address: string
  readonly port: number
  readonly url: string
  /** Stops accepting, lets in-flight requests finish for up to `drainMs`, then cuts the rest. */
  close(drainMs: number): Promise<void>
  /**
   * An HTTPS listener: serves `next` to new connections from now on (a reload read them again).
   * Connections already open keep the certificate they were given.
   */
  setCertificates(next: ServerCertificates): void
}

/** What {@link startListener} needs. */
export interface ListenerOptions {
  name: string
  address: string
  /** Port to bind; 0 picks a free one. */
  port: number
  limits: GatewayLimitsConfig
  handle: (req: IncomingMessage, res: ServerResponse, connectionId: number) => Promise<void>
  tasks: TaskRegistry
  log: Logger
  /** HTTPS: the certificates to serve (./certificates.ts); absent: plain HTTP. */
  tls?: ServerCertificates | undefined
}

/** While draining, how often connections that became idle are closed. */
const IDLE_SWEEP_MS = 100

/** How often a warning about refused connections may be logged. */
const DROP_LOG_INTERVAL_MS = 10_000

function draining(name: string): RequestError {
  return new RequestError(
    'GW_ERR_DRAINING',
    `gateway "${name}" is shutting down and takes no new requests; retry on another instance`,
  )
}

function listenError(name: string, address: string, port: number, cause: unknown): GatehouseError {
  const code = (cause as NodeJS.ErrnoException).code
  const why =
    code === 'EADDRINUSE'
      ? 'the address is already in use; stop the other process or change the port'
      : code === 'EADDRNOTAVAIL'
        ? 'the address is not on this host; use 0.0.0.0, 127.0.0.1 or an address of this host'
        : code === 'EACCES'
          ? 'permission denied; ports below 1024 need privileges, pick a higher port'
          : String((cause as Error).message)
  return new GatehouseError(
    'GW_ERR_LISTEN',
    `gateways.${name}: cannot listen on ${address}:${port}: ${why}`,
    { cause },
  )
}

/** Creates the server with the gateway's limits (HTTPS when it has certificates). */
function createLimitedServer(
  limits: GatewayLimitsConfig,
  tls: { current(): ServerCertificates } | undefined,
): Server | HttpsServer {
  const headersTimeout = limits.headersTimeout.ms
  const options = {
    headersTimeout,
    requestTimeout: limits.requestTimeout.ms,
    // Deadlines are checked on this period: a few checks per headersTimeout, at most every 30 s.
    connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.round(headersTimeout / 4))),
    maxHeaderSize: limits.maxHeaderSize,
    keepAliveTimeout: 65_000,
    // The pipeline checks Host (RFC 9112 §3.2) and answers with a JSON body; Node's check would not.
    requireHostHeader: false,
  }
  const first = tls?.current()
  const server = first
    ? createHttpsServer({
        ...options,
        ...first.defaultPair,
        minVersion: first.config.minVersion,
        // RFC 6066 §3: the certificate for the server name the client asked for.
        SNICallback: (servername, done) => done(null, tls?.current().select(servername)),
      })
    : createServer(options)
  server.maxConnections = limits.maxConnections
  return server
}

/** Logs refused connections (`server.maxConnections`), at most once per interval, with a count. */
function dropLogger(name: string, maxConnections: number, log: Logger): () => void {
  let dropped = 0
  let lastLog = 0
  return () => {
    dropped++
    const now = Date.now()
    if (now - lastLog < DROP_LOG_INTERVAL_MS) return
    lastLog = now
    log.warn(
      { gateway: name, maxConnections, refused: dropped },
      `gateway "${name}": limits.maxConnections (${maxConnections}) reached, new connections are closed`,
    )
    dropped = 0
  }
}

/**
 * Stops accepting and waits for the connections to end: answers still to come say
 * `Connection: close`, connections are closed as soon as they are idle, and after `drainMs`
 * whatever is left (SSE streams) is cut.
 *
 * A connection that has not sent a byte (a browser's preconnect, a client that aborted before
 * writing its request) is not idle to Node (it waits for headers), so it would hold the drain
 * until the deadline: it is closed too. One that has sent part of a request is left to finish it
 * and be answered 503.
 */
async function drain(
  server: Server | HttpsServer,
  sockets: ReadonlySet<Socket>,
  inFlight: ReadonlySet<ServerResponse>,
  drainMs: number,
): Promise<void> {
  for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false
  const closed = new Promise<void>((resolve) => server.close(() => resolve()))
  // A connection becomes idle when its last answer is sent (or an upload the answer did not
  // wait for ends): close each as soon as it is.
  const closeUnused = () => {
    server.closeIdleConnections()
    for (const socket of sockets) if (socket.bytesRead === 0) socket.destroy()
  }
  closeUnused()
  const sweep = setInterval(closeUnused, IDLE_SWEEP_MS)
  const deadline = setTimeout(() => server.closeAllConnections(), drainMs)
  deadline.unref()
  try {
    await closed
  } finally {
    clearInterval(sweep)
    clearTimeout(deadline)
  }
}

/**
 * Starts a listener.
 * @throws {@link GatehouseError} `GW_ERR_LISTEN` naming the address and what to do.
 */
export async function startListener(options: ListenerOptions): Promise<Listener> {
  const { name, address, limits, tasks, log } = options
  let certificates = options.tls
  const server = createLimitedServer(
    limits,
    certificates && { current: () => certificates as ServerCertificates },
  )
  const connections = new WeakMap<Socket, number>()
  const sockets = new Set<Socket>()
  const inFlight = new Set<ServerResponse>()
  let closing = false

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (closing) {
      res.shouldKeepAlive = false
      sendLocal(res, fromRequestError(draining(name)), {})
      return
    }
    inFlight.add(res)
    res.once('close', () => inFlight.delete(res))
    options.handle(req, res, connections.get(req.socket) ?? 0).catch((err: Error) => {
      log.error({ err: err.message }, 'request handler failed')
      if (!res.destroyed) res.destroy()
    })
  }
  server.on('request', onRequest)
  // Expect: 100-continue is answered by the pipeline when it starts reading the body.
  server.on('checkContinue', onRequest)
  server.on('checkExpectation', onUnknownExpectation)
  server.on('clientError', onClientError)
  server.on('connect', onConnectMethod)
  server.on('connection', (socket: Socket) => {
    const conn = tasks.openConnection(name, `${socket.remoteAddress}:${socket.remotePort}`)
    connections.set(socket, conn.id)
    sockets.add(socket)
    socket.once('close', () => {
      sockets.delete(socket)
      conn.close()
    })
  })
  server.on('drop', dropLogger(name, limits.maxConnections, log))

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen({ host: address, port: options.port }, () => {
        server.off('error', reject)
        resolve()
      })
    })
  } catch (cause) {
    throw listenError(name, address, options.port, cause)
  }
  // After start-up, a failed accept (EMFILE: out of file descriptors) must not end the process.
  server.on('error', (err) => log.error({ gateway: name, err: err.message }, 'listener error'))

  const bound = server.address()
  const boundPort = typeof bound === 'object' && bound ? bound.port : options.port
  const host = address.includes(':') ? `[${address}]` : address
  const removeListener = tasks.addListener(name, `${address}:${boundPort}`)
  const setCertificates = (next: ServerCertificates) => {
    if (!(server instanceof HttpsServerClass)) return
    certificates = next
    server.setSecureContext({ ...next.defaultPair, minVersion: next.config.minVersion })
  }
  const watch = certificates && watchCertificates(name, () => certificates, setCertificates, log)
  return {
    name,
    address,
    port: boundPort,
    url: `${certificates ? 'https' : 'http'}://${host}:${boundPort}`,
    setCertificates,
    async close(drainMs) {
      closing = true
      watch?.close()
      removeListener()
      await drain(server, sockets, inFlight, drainMs)
    },
  }
}
