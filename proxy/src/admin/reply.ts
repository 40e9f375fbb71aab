/**
 * Reply helpers of the admin endpoints: the request URL, JSON and text answers (one way to write
 * each, for every route and the error handler).
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ERRORS, type RequestErrorCode } from '../errors.js'

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

/** An error answer in JSON: the status of `code` (errors.ts), the admin endpoint's own body. */
export function sendJsonError(
  reply: FastifyReply,
  code: RequestErrorCode,
  body: unknown,
): FastifyReply {
  return sendJson(reply, ERRORS[code].status, body)
}

/** A one-line text error answer with the status of `code` (errors.ts). */
export function sendTextError(
  reply: FastifyReply,
  code: RequestErrorCode,
  text: string,
): FastifyReply {
  return sendText(reply, ERRORS[code].status, text)
}
