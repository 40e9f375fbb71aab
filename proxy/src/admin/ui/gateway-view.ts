/**
 * The read-only UI on a gateway (seed: `ui` section, "attaches the web UI to a gateway"; seed
 * Authentication point 5: where the admin address is not reachable, as in a container, the UI
 * is served on a gateway instead). `ui.gateway` names the gateway, `ui.path` the path under it.
 *
 * It is the admin UI's status and metrics pages, read-only: the page, its script and style, a
 * status document of names and conditions (`./public-status.ts`), the request counts and latency
 * as sums, and — only when `ui.showTrace` allows it — the redacted trace stream. It never answers
 * a configuration value, a token, the config dump or any control: those stay on the admin
 * address. Requests under the path are answered before routing, so a route of the gateway never
 * sees them (the path must not be one a route needs).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AdminContext } from '../context.js'
import { serveTrace } from '../trace.js'
import { loadUiAssets, renderUiPage, UI_HEADERS } from './assets.js'
import { publicMetrics, publicStatus } from './public-status.js'

/** Default of `ui.path`. */
export const DEFAULT_UI_PATH = '/gatehouse/ui'

/** Answers the UI's requests on the gateway `ui.gateway` names; built before the admin context. */
export class GatewayUi {
  #ctx: AdminContext | undefined

  /** Gives the view the running proxy to show (once the admin context exists). */
  attach(ctx: AdminContext): void {
    this.#ctx = ctx
  }

  /**
   * Answers `req` when it is for the UI on `gateway`.
   * @returns whether it did (else the gateway's pipeline handles the request).
   */
  handle(gateway: string, req: IncomingMessage, res: ServerResponse): boolean {
    const ctx = this.#ctx
    const ui = ctx?.config().ui
    if (!ctx || !ui?.gateway || ui.gateway !== gateway) return false
    const base = ui.path ?? DEFAULT_UI_PATH
    const url = new URL(req.url ?? '/', 'http://gateway.invalid')
    if (url.pathname !== base && !url.pathname.startsWith(`${base}/`)) return false
    void this.#serve(ctx, { base, trace: ui.showTrace, messages: ui.showMessages }, req, res, url)
    return true
  }

  async #serve(
    ctx: AdminContext,
    ui: { base: string; trace: boolean; messages: boolean },
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
  ): Promise<void> {
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { ...UI_HEADERS, 'content-type': type })
      res.end(req.method === 'HEAD' ? undefined : body)
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD')
      return send(405, 'text/plain; charset=utf-8', 'the UI on a gateway is read-only: GET only\n')
    }
    const assets = loadUiAssets()
    const rest = url.pathname.slice(ui.base.length) || '/'
    try {
      switch (rest) {
        case '/':
          return send(
            200,
            'text/html; charset=utf-8',
            renderUiPage(
              { mode: 'gateway', base: ui.base, trace: ui.trace, version: ctx.version },
              assets !== undefined,
            ),
          )
        case '/app.js':
          if (assets) return send(200, 'text/javascript; charset=utf-8', assets.js)
          break
        case '/app.css':
          if (assets) return send(200, 'text/css; charset=utf-8', assets.css)
          break
        case '/status.json':
          return send(
            200,
            'application/json',
            JSON.stringify(publicStatus(ctx, { messages: ui.messages })),
          )
        case '/metrics.json':
          return send(200, 'application/json', JSON.stringify((await publicMetrics(ctx)) ?? null))
        case '/trace':
          if (!ui.trace || req.method !== 'GET') break
          return await serveTrace(ctx.traceBus, res, new URL('/?follow=1', url))
      }
      send(404, 'text/plain; charset=utf-8', `nothing at ${url.pathname}\n`)
    } catch {
      if (!res.headersSent) send(500, 'text/plain; charset=utf-8', 'the UI failed to answer\n')
      else res.destroy()
    }
  }
}
