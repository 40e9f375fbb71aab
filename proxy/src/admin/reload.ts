/**
 * `POST /reload`: reloads the configuration from the files the proxy was started with, as the
 * file watcher and SIGHUP do (../reload.ts). The answer is the outcome: 200 when the new
 * configuration serves or nothing changed, 422 when it was refused (the previous one keeps
 * serving; the body says why, with paths and lines), 503 when this proxy cannot reload.
 */
import type { FastifyReply } from 'fastify'
import type { AdminContext } from './context.js'
import { sendJson } from './reply.js'

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
