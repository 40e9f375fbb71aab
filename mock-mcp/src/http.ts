/** Small HTTP helpers of the backend: JSON bodies in and out, JSON-RPC error answers. */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { sendJson } from '@gatehouse/support'

const MAX_BODY_BYTES = 1024 * 1024

/**
 * Reads a JSON request body (at most 1 MiB).
 * @returns the parsed body, or `undefined` for an empty one
 * @throws RangeError when the body is too large, SyntaxError when it is not JSON
 */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY_BYTES) throw new RangeError('request body too large')
    chunks.push(chunk as Buffer)
  }
  if (size === 0) return undefined
  return JSON.parse(Buffer.concat(chunks).toString('utf8'))
}

/** Answers with a JSON-RPC error object (JSON-RPC 2.0 §5.1) without an id. */
export function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null })
}
