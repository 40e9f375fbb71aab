/**
 * The mock-idp's HTTP(S) server. The port must be bound before the issuer can name it, and keys
 * and providers are made after that: a request arriving in between waits for the handler instead
 * of finding none (and never being answered).
 */
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { sendJson } from '@gatehouse/support'

/** A request handler of the mock-idp. */
export type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>

/** A bound server whose handler is attached later. */
export interface DeferredServer {
  server: Server
  port: number
  /** Attaches the handler; requests that arrived before are handled now. */
  attach(handler: Handler): void
}

/** Binds a server on `host:port` (0: any free port), TLS when `tls` is given. */
export async function listenDeferred(
  host: string,
  port: number,
  tls?: { keyPem: string; certPem: string },
): Promise<DeferredServer> {
  let attach: (handler: Handler) => void = () => {}
  const handler = new Promise<Handler>((resolve) => {
    attach = resolve
  })
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    void handler.then((h) =>
      h(req, res).catch((err: unknown) => {
        if (!res.headersSent)
          sendJson(res, 500, { error: 'server_error', error_description: (err as Error).message })
        else res.destroy()
      }),
    )
  }
  const server: Server = tls
    ? createHttpsServer({ key: tls.keyPem, cert: tls.certPem }, onRequest)
    : createHttpServer(onRequest)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  return { server, port: (server.address() as AddressInfo).port, attach }
}
