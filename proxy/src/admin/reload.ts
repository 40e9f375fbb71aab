/**
 * `POST /reload`: reloads the configuration from the files the proxy was started with, as the
 * file watcher and SIGHUP do (../reload.ts). The answer is the outcome: 200 when the new
 * configuration serves or nothing changed, 422 when it was refused (the previous one keeps
 * serving; the body says why, with paths and lines), 503 when this proxy cannot reload.
 */
import type { FastifyReply } from 'fastify'
import type { AdminContext } from './context.js'
import { sendJson } from './reply.js'
import type { AdminRoute } from './routes.js'

/** Answers one reload request. */
export async function serveReload(ctx: AdminContext, reply: FastifyReply): Promise<FastifyReply> {
  if (!ctx.reload) {
    return sendJson(reply, 503, {
      result: 'failure',
      message: 'this proxy was started without a configuration file to reload',
    })
  }
  const record = await ctx.reload()
  return sendJson(reply, record.result === 'failure' ? 422 : 200, record)
}

/** The endpoint's entry in the admin table. */
export function reloadRoute(ctx: AdminContext): AdminRoute {
  return {
    path: '/reload',
    methods: ['POST'],
    description:
      'reload the configuration files: validated and compiled before they replace the running configuration',
    handle: (_request, reply) => serveReload(ctx, reply),
  }
}
