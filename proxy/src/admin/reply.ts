/**
 * Reply helpers of the admin endpoints: the request URL, JSON and text answers (one way to write
 * each, for every route and the error handler).
 */
import type { FastifyReply, FastifyRequest } from 'fastify'

/** The request URL with its query, parsed once. */
export function requestUrl(request: FastifyRequest): URL {
  return new URL(request.url, 'http://admin.invalid')
}

/** A JSON answer, indented for people reading it with curl. */
export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply
    .code(status)
    .type('application/json')
    .send(`${JSON.stringify(body, null, 2)}\n`)
}

/** A one-line text answer. */
export function sendText(reply: FastifyReply, status: number, text: string): FastifyReply {
  return reply
    .code(status)
    .type('text/plain; charset=utf-8')
    .send(text.endsWith('\n') ? text : `${text}\n`)
}
