/**
 * The admin interface as a Fastify application: the routes of `./routes.ts`, a guard against
 * browsers (`./browser-guard.ts`: a foreign `Origin` or cross-site Fetch Metadata, e.g. a
 * cross-site POST to `/quitquitquit`; a non-loopback authority on a loopback bind: DNS
 * rebinding), one not-found answer (405 with `Allow` for a known path, else
 * 404 listing the endpoints) and one error handler. It is built without listening, so tests can
 * `inject` requests; `./server.ts` binds it.
 */
import { createServer } from 'node:http'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { browserRefusal } from './browser-guard.js'
import type { AdminContext } from './context.js'
import { requestUrl, sendJsonError, sendTextError } from './reply.js'
import { type AdminEndpoint, type AdminRoute, type AdminRouteState, adminRoutes } from './routes.js'
import { RELAY_CONTENT_TYPE } from './ui/relay.js'

/** Options of {@link buildAdminApp}. */
export interface AdminAppOptions {
  /** Whether to answer loopback `Host` names only (a TCP loopback bind). Read per request. */
  loopbackOnly(): boolean
}

/** Builds the application (not listening). */
export function buildAdminApp(
  ctx: AdminContext,
  state: AdminRouteState,
  options: AdminAppOptions,
): { app: FastifyInstance; endpoints: AdminEndpoint[] } {
  const log = ctx.logging.logger('proxy::admin')
  const app = createApp()
  ignoreBodies(app)
  const routes = adminRoutes(ctx, state)
  guardAgainstBrowsers(app, options, crossSitePages(routes))
  const endpoints: AdminEndpoint[] = routes.map(({ path, methods, description }) => ({
    path,
    methods,
    description,
  }))
  const allowed = registerRoutes(app, routes, log)
  app.get('/', (_request, reply) => reply.redirect('/ui', 302))
  answerUnknownPaths(app, allowed, endpoints)
  answerFailures(app, log)
  return { app, endpoints }
}

/** Fastify on a server that `./address.ts` binds (unix socket created owner-only, names resolved). */
function createApp(): FastifyInstance {
  return Fastify({
    logger: false,
    serverFactory: (handler) => {
      const server = createServer(handler)
      // Streams (trace, CPU profile) may legitimately stay open for minutes.
      server.requestTimeout = 0
      server.headersTimeout = 10_000
      return server
    },
    // HEAD is added per route below: never on a stream or a timed profile, which it would start.
    exposeHeadRoutes: false,
  })
}

/**
 * Admin endpoints take no body; whatever is sent is read and ignored, never refused as 415. The
 * one exception is the UI's relay (ui/relay.ts), whose own content type is read as text.
 */
function ignoreBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, payload, done) => {
    payload.resume()
    payload.once('end', () => done(null))
  })
  app.addContentTypeParser(
    RELAY_CONTENT_TYPE,
    { parseAs: 'string', bodyLimit: 131_072 },
    (_request, body, done) => done(null, body),
  )
}

/** GET paths a browser may be sent to from another site (`AdminRoute.crossSite`). */
function crossSitePages(routes: readonly AdminRoute[]): Set<string> {
  return new Set(routes.filter((r) => r.crossSite).map((r) => r.path))
}

/**
 * browser-guard.ts: foreign Origin (scheme included), cross-site Fetch Metadata, and a
 * non-loopback authority (absolute-form target or Host) on a loopback bind. A `crossSite` page
 * (the UI's OAuth callback) is judged on its authority only.
 */
function guardAgainstBrowsers(
  app: FastifyInstance,
  options: AdminAppOptions,
  crossSite: ReadonlySet<string>,
): void {
  app.addHook('onRequest', async (request, reply) => {
    const page = request.method === 'GET' && crossSite.has(requestUrl(request).pathname)
    const refusal = browserRefusal(request.raw, options.loopbackOnly(), { anySite: page })
    if (refusal !== undefined) return sendTextError(reply, 'GW_ERR_ADMIN_BROWSER', refusal)
  })
}

/** Registers every route (GET ones also answer HEAD unless long); returns the methods by path. */
function registerRoutes(
  app: FastifyInstance,
  routes: readonly AdminRoute[],
  log: Logger,
): Map<string, string[]> {
  const allowed = new Map<string, string[]>()
  for (const route of routes) {
    const methods =
      route.methods.includes('GET') && !route.long ? [...route.methods, 'HEAD'] : [...route.methods]
    allowed.set(route.path, methods)
    app.route({
      method: methods,
      url: route.path,
      handler: async (request, reply) => {
        try {
          return await route.handle(request, reply)
        } catch (err) {
          // A route that took the raw response over (a stream) is past the error handler.
          if (!reply.sent) throw err
          log.error({ err, path: route.path }, 'admin endpoint failed')
          reply.raw.destroy()
        }
      },
    })
  }
  return allowed
}

/** 405 with `Allow` for a known path and another method, else 404 listing the endpoints. */
function answerUnknownPaths(
  app: FastifyInstance,
  allowed: ReadonlyMap<string, string[]>,
  endpoints: readonly AdminEndpoint[],
): void {
  app.setNotFoundHandler((request, reply) => {
    const path = requestUrl(request).pathname
    const methods = allowed.get(path)
    if (methods) {
      return sendTextError(
        reply.header('allow', methods.join(', ')),
        'GW_ERR_METHOD_NOT_ALLOWED',
        `${request.method} is not allowed on ${path}; use ${methods.filter((m) => m !== 'HEAD').join(' or ')}`,
      )
    }
    return sendJsonError(reply, 'GW_ERR_NO_ROUTE', {
      error: 'not_found',
      message: `no admin endpoint at ${path}`,
      endpoints,
    })
  })
}

/** 500 with the message; a response already under way is cut instead. */
function answerFailures(app: FastifyInstance, log: Logger): void {
  app.setErrorHandler((err, request, reply) => {
    log.error({ err, path: requestUrl(request).pathname }, 'admin endpoint failed')
    if (reply.raw.headersSent) {
      reply.raw.destroy()
      return
    }
    return sendJsonError(reply, 'GW_ERR_ADMIN_INTERNAL', {
      error: 'internal',
      message: (err as Error).message,
    })
  })
}
