/**
 * The admin web UI's endpoints on the admin address: the page (`/ui`), its built script and style,
 * the OAuth flow debugger's redirect URI (`/ui/callback`) and its relay (`/ui/relay`). The page
 * reads the existing endpoints (`/config_dump`, `/debug/trace?follow=1`, `/metrics`,
 * `/logging`, `/reload`, `/debug/pprof/*`); nothing here reveals or changes anything of its own
 * but the relay, which the browser guard keeps to the admin's own pages.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AdminContext } from '../context.js'
import { sendJson, sendJsonError, sendTextError } from '../reply.js'
import { loadUiAssets, renderCallbackPage, renderUiPage, UI_HEADERS } from './assets.js'
import { RelayRequestSchema, relay, relayOrigins, relayRefusal } from './relay.js'

/** The path of the page; its files and endpoints sit under it. */
export const UI_BASE = '/ui'

/** One UI endpoint (the shape of `AdminRoute`, ../routes.ts). */
export interface UiRoute {
  path: string
  methods: readonly string[]
  description: string
  handle(request: FastifyRequest, reply: FastifyReply): unknown
  /**
   * A page any site may send the browser to (the debugger's redirect URI, reached from the
   * authorization server): the guard checks only the authority (DNS rebinding), not the site.
   */
  crossSite?: true
}

/** Sends a UI document with its headers. */
function sendUi(reply: FastifyReply, type: string, body: string): FastifyReply {
  return reply.code(200).headers(UI_HEADERS).type(type).send(body)
}

/** The UI's endpoints. */
export function uiRoutes(ctx: AdminContext): UiRoute[] {
  const notBuilt = (reply: FastifyReply) =>
    sendTextError(
      reply,
      'GW_ERR_ADMIN_UNAVAILABLE',
      'the UI is not built: run `npm run build` at the repository root',
    )
  return [
    {
      path: UI_BASE,
      methods: ['GET'],
      description: 'the web UI: status, traffic and metrics, OAuth flow debugger, controls',
      handle: (_request, reply) =>
        sendUi(
          reply,
          'text/html; charset=utf-8',
          renderUiPage(
            { mode: 'admin', base: UI_BASE, version: ctx.version },
            loadUiAssets() !== undefined,
          ),
        ),
    },
    {
      path: `${UI_BASE}/app.js`,
      methods: ['GET'],
      description: 'the web UI script',
      handle: (_request, reply) => {
        const assets = loadUiAssets()
        return assets ? sendUi(reply, 'text/javascript; charset=utf-8', assets.js) : notBuilt(reply)
      },
    },
    {
      path: `${UI_BASE}/app.css`,
      methods: ['GET'],
      description: 'the web UI style',
      handle: (_request, reply) => {
        const assets = loadUiAssets()
        return assets ? sendUi(reply, 'text/css; charset=utf-8', assets.css) : notBuilt(reply)
      },
    },
    {
      path: `${UI_BASE}/callback`,
      methods: ['GET'],
      description: "the OAuth flow debugger's redirect URI: hands the answer to the debugger's tab",
      crossSite: true,
      handle: (_request, reply) =>
        sendUi(reply, 'text/html; charset=utf-8', renderCallbackPage(UI_BASE)),
    },
    {
      path: `${UI_BASE}/relay`,
      methods: ['POST'],
      description:
        'the OAuth flow debugger sends one request to a gateway or an issuer named by the configuration, and answers the exchange',
      handle: async (request, reply) => serveRelay(ctx, request, reply),
    },
  ]
}

/** One relayed request: 400 for a bad ask, 403 for a target outside the configuration. */
async function serveRelay(
  ctx: AdminContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  let body: unknown
  try {
    body = typeof request.body === 'string' ? JSON.parse(request.body) : undefined
  } catch {
    body = undefined
  }
  const parsed = RelayRequestSchema.safeParse(body)
  if (!parsed.success) {
    return sendJsonError(reply, 'GW_ERR_ADMIN_PARAMETER', {
      error: 'invalid_request',
      message: `send ${'{'}"method","url","headers","body"${'}'} as application/vnd.gatehouse.relay+json: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ')}`,
    })
  }
  const refusal = relayRefusal(parsed.data.url, relayOrigins(ctx))
  if (refusal) {
    return sendJsonError(reply, 'GW_ERR_ADMIN_RELAY_TARGET', {
      error: 'forbidden',
      message: refusal,
    })
  }
  try {
    return sendJson(reply.headers({ 'cache-control': 'no-store' }), 200, await relay(parsed.data))
  } catch (err) {
    const cause = (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message
    return sendJsonError(reply, 'GW_ERR_UPSTREAM_CONNECT', {
      error: 'unreachable',
      message: `${new URL(parsed.data.url).origin} did not answer: ${cause}`,
    })
  }
}
