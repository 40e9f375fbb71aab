/**
 * Connection pools to backends, with TLS origination when the backend has a `tls` block (the
 * seed's BackendTLSPolicy): the server certificate is validated against the system CAs, or the
 * given CA bundle, for `tls.hostname` (also sent as SNI). Validation cannot be turned off.
 *
 * Long-lived streams never starve ordinary requests:
 * - event streams a client opens with `GET` and `Accept: text/event-stream` (an MCP session's
 *   server-to-client stream, MCP 2025-06-18 Transports) each get a connection of their own
 *   ({@link Upstream.openStream}), closed when the stream ends: no connection cap, as each open
 *   stream holds its connection for as long as the session lives; bounded by the gateway's
 *   `limits.maxConnections`. Not a pool: an undici `Pool` keeps every client it ever made (about
 *   9 KiB each, so the memory of a peak of streams never came back) and scans all of them for a
 *   free one on each new stream (quadratic in the streams held).
 * - `subscriptions/listen` streams (MCP 2026-07-28 Subscriptions: "a single long-lived
 *   POST-response stream", which replaced the GET stream) likewise, through
 *   {@link Upstream.openListenStream}, but at most `limits.maxListenStreams` at once: a connected
 *   modern client holds one for as long as it runs, so they are bounded per backend.
 * - `dispatcher`, a pool for every other request, behind {@link Admission}: at most
 *   `limits.maxRequests` in flight; the next ones wait at most `timeouts.response` (then 503).
 */
import { X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Socket } from 'node:net'
import type * as Undici from 'undici'
import type { buildConnector, Dispatcher } from 'undici'
import type { BackendConfig } from '../config/schema.js'
import { Admission } from './admission.js'

/**
 * The three undici classes the proxy uses, from their own modules: undici's index also loads
 * fetch, WebSocket, EventSource, the cache and their web platform code, about 9 MiB of a proxy's
 * idle memory it never uses (docs/design/performance.md). They are the same modules the index exports (one
 * CommonJS module cache), so `instanceof` and the types hold; test/http/upstream.test.ts checks
 * both against the index. `request()` and the other methods of the API are added to the
 * dispatchers' prototype here as undici's index does (`Object.assign(Dispatcher.prototype, api)`).
 */
const undici = createRequire(import.meta.url)
Object.assign(
  undici('undici/lib/dispatcher/dispatcher.js').prototype,
  undici('undici/lib/api/index.js'),
)
const Client: typeof Undici.Client = undici('undici/lib/dispatcher/client.js')
const Pool: typeof Undici.Pool = undici('undici/lib/dispatcher/pool.js')
const buildConnectorOf: typeof Undici.buildConnector = undici('undici/lib/core/connect.js')
type Client = Undici.Client

/** A backend ready for requests. */
export interface Upstream {
  /** `http://host:port` or `https://host:port`. */
  readonly origin: string
  /** The pool for finite requests (and the auth layer's control-plane fetches). */
  readonly dispatcher: Dispatcher
  /** A connection of its own for one long-lived event stream: no cap, none kept afterwards. */
  openStream(): StreamConnection
  /**
   * A connection of its own for one `subscriptions/listen` stream, or `undefined` when
   * `limits.maxListenStreams` are open.
   */
  openListenStream(): StreamConnection | undefined
  /** `limits.maxListenStreams`. */
  readonly maxListenStreams: number
  /** The budget of finite requests in flight (`limits.maxRequests`). */
  readonly admission: Admission
  /** Time to response headers, in milliseconds (`timeouts.response`), waiting included. */
  readonly responseTimeoutMs: number
  /** Closes the pool and the streams' connections; what is still in flight after a second is cut. */
  close(): Promise<void>
}

/** One event stream's connection (see {@link Upstream.openStream}). */
export interface StreamConnection {
  readonly dispatcher: Dispatcher
  /** The stream ended (or never started): closes the connection. Idempotent. */
  done(): void
}

/** How long {@link Upstream.close} lets in-flight requests finish before cutting them. */
const CLOSE_GRACE_MS = 1000

/**
 * A client for undici pools that never loses a pool slot to a refused request. undici 7.x marks a
 * pool's connection busy whenever `dispatch()` returns false, and `DispatcherBase.dispatch()` also
 * returns false after it refused a request synchronously (a header it does not accept, such as
 * `Expect`): the connection then waits for a 'drain' that never comes, one slot lost for good per
 * refused request. This client answers "not busy" when the request never entered its queue.
 */
export class SlotSafeClient extends Client {
  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) {
    const queued = this.stats.size
    return super.dispatch(options, handler) || this.stats.size === queued
  }
}

function isWriteReset(err: Error | null | undefined): boolean {
  const code = (err as NodeJS.ErrnoException | null | undefined)?.code
  return code === 'EPIPE' || code === 'ECONNRESET'
}

/**
 * A backend may answer before it read the whole request body (413, 401) and close the connection
 * (RFC 9110 §15.5.14; RFC 9112 §9.6): writing the rest of the body then fails (EPIPE, ECONNRESET)
 * while the answer sits unread in the socket, and undici fails the request on the write error —
 * a 502 instead of the backend's own answer. Here, once a write failed that way, later writes are
 * dropped and reading goes on: undici parses the answer, or sees the socket end and fails as
 * before.
 */
function keepReadingAfterWriteReset(socket: Socket): void {
  let broken = false
  const write = socket._write.bind(socket)
  const writev = socket._writev?.bind(socket)
  const guard = (cb: (err?: Error | null) => void) => (err?: Error | null) => {
    if (isWriteReset(err)) broken = true
    cb(broken ? null : err)
  }
  socket._write = (chunk, encoding, cb) => (broken ? cb() : write(chunk, encoding, guard(cb)))
  if (writev) {
    socket._writev = (chunks, cb) => (broken ? cb() : writev(chunks, guard(cb)))
  }
}

/**
 * Reads the CA bundles of a backend's `tls.caCertificates` (`undefined` when it names none).
 * `compile.ts` reads them once, when it checks the configuration, and hands them to
 * {@link createUpstream}.
 * @throws Error when a file cannot be read (the message names it).
 */
export function readCaBundles(backend: BackendConfig): string[] | undefined {
  const files = backend.tls?.caCertificates?.map((file) => {
    try {
      return readFileSync(file, 'utf8')
    } catch (cause) {
      throw new Error(`cannot read CA bundle ${file}: ${(cause as Error).message}`, { cause })
    }
  })
  const inline = backend.tls?.caCertificatePems?.map(({ pem, from }, i) => {
    // A bundle no certificate parses from would validate nothing: refuse it, naming its origin.
    try {
      new X509Certificate(pem)
    } catch (cause) {
      throw new Error(`caCertificatePems[${i}]${from ? ` (${from})` : ''}: not a PEM CA bundle`, {
        cause,
      })
    }
    return pem
  })
  return files || inline ? [...(files ?? []), ...(inline ?? [])] : undefined
}

function connector(backend: BackendConfig, ca: string[] | undefined): buildConnector.connector {
  const tls = backend.tls
  const connect = buildConnectorOf({
    timeout: backend.timeouts.connect.ms,
    ...(tls
      ? {
          servername: tls.hostname ?? backend.static.host,
          rejectUnauthorized: true,
          ...(ca ? { ca } : {}),
        }
      : {}),
  })
  return (options, callback) =>
    connect(options, (...args) => {
      if (args[1]) keepReadingAfterWriteReset(args[1])
      callback(...args)
    })
}

/**
 * Creates the pools of one backend.
 * @param ca - the backend's CA bundles, as {@link readCaBundles} read them (read here if omitted)
 * @throws Error when a CA bundle file cannot be read (the message names it).
 */
export function createUpstream(
  backend: BackendConfig,
  ca: string[] | undefined = readCaBundles(backend),
): Upstream {
  const { host, port } = backend.static
  const hostForUrl = host.includes(':') ? `[${host}]` : host
  const origin = `${backend.tls ? 'https' : 'http'}://${hostForUrl}:${port}`
  const responseTimeoutMs = backend.timeouts.response.ms
  const clientOptions: Undici.Client.Options = {
    pipelining: 1,
    keepAliveTimeout: 30_000,
    headersTimeout: responseTimeoutMs,
    bodyTimeout: 0, // streams (SSE) may be idle for long; the client's disconnect ends them
    connect: connector(backend, ca),
  }
  const dispatcher = new Pool(origin, {
    ...clientOptions,
    connections: null,
    factory: (url, opts) => new SlotSafeClient(url, opts),
  })
  const streams = new Set<Client>()
  const openStream = (onDone?: () => void): StreamConnection => {
    const client = new Client(origin, clientOptions)
    streams.add(client)
    return {
      dispatcher: client,
      done() {
        if (!streams.delete(client)) return
        onDone?.()
        client.destroy().catch(() => undefined)
      },
    }
  }
  const maxListen = backend.limits.maxListenStreams
  let listening = 0
  return {
    origin,
    dispatcher,
    openStream: () => openStream(),
    maxListenStreams: maxListen,
    openListenStream() {
      if (listening >= maxListen) return undefined
      listening++
      return openStream(() => listening--)
    },
    admission: new Admission(backend.limits.maxRequests),
    responseTimeoutMs,
    async close() {
      let timer: NodeJS.Timeout | undefined
      const grace = new Promise((r) => (timer = setTimeout(r, CLOSE_GRACE_MS)))
      const open = [...streams]
      streams.clear()
      listening = 0
      await Promise.race([Promise.all([dispatcher.close(), ...open.map((c) => c.close())]), grace])
      clearTimeout(timer)
      await Promise.all([dispatcher.destroy(), ...open.map((c) => c.destroy())])
    },
  }
}
