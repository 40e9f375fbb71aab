/**
 * `POST /reload`: reloads the configuration from the files the proxy was started with, as the
 * file watcher and SIGHUP do (../reload.ts). The answer is the outcome: 200 when the new
 * configuration serves or nothing changed, 422 when it was refused (the previous one keeps
 * serving; the body says why, with paths and lines), 503 when this proxy cannot reload.
 */
import type { FastifyReply } from 'fastify'
import type { AdminContext } from './context.js'
import { sendJson, sendJsonError } from './reply.js'

/** Answers one reload request. */
export async function serveReload(ctx: AdminContext, reply: FastifyReply): Promise<FastifyReply> {
  if (!ctx.reload) {
    return sendJsonError(reply, 'GW_ERR_ADMIN_UNAVAILABLE', {
      result: 'failure',
      message: 'this proxy was started without a configuration file to reload',
    })
  }
  const record = await ctx.reload()
  return record.result === 'failure'
    ? sendJsonError(reply, 'GW_ERR_RELOAD_REFUSED', record)
    : sendJson(reply, 200, record)
}
