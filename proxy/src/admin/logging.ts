/**
 * `GET/POST /logging` (seed, Admin interface table): GET reports the log filter, POST `?level=`
 * sets `error|warn|info|debug|trace` or a RUST_LOG-style per-module filter
 * (`info,proxy::httpproxy=trace`). Either way the answer is one text line with the current filter.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { LogFilterError, type Logging } from '../telemetry/logging.js'

function line(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' })
  res.end(`${text}\n`)
}

/** Serves `/logging`; `onChange` hears every change of the filter. */
export function serveLogging(
  logging: Logging,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  options: { onChange?: (from: string, to: string) => void } = {},
): void {
  if (req.method === 'GET' || req.method === 'HEAD') {
    line(res, 200, `current log level is ${logging.filter()}`)
    return
  }
  const level = url.searchParams.get('level')
  if (level === null) {
    line(
      res,
      400,
      'missing query parameter "level": POST /logging?level=<error|warn|info|debug|trace or info,proxy::httpproxy=trace>',
    )
    return
  }
  const before = logging.filter()
  try {
    const now = logging.setFilter(level)
    options.onChange?.(before, now)
    line(res, 200, `current log level is ${now}`)
  } catch (err) {
    if (err instanceof LogFilterError) {
      line(res, 400, `invalid log filter "${level}": ${err.message}`)
      return
    }
    throw err
  }
}
