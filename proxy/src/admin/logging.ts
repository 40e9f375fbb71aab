/**
 * `GET/POST /logging` (seed, Admin interface table): GET reports the log filter, POST `?level=`
 * sets `error|warn|info|debug|trace` or a RUST_LOG-style per-module filter
 * (`info,proxy::httpproxy=trace`). Either way the answer is one text line with the current filter;
 * a refused filter leaves the current one in force.
 */
import { ERRORS, type RequestErrorCode } from '../errors.js'
import { LogFilterError, type Logging } from '../telemetry/logging.js'

/** The answer of `/logging`: a status and one line of text. */
export interface LoggingAnswer {
  status: number
  /** The error code of a refusal (errors.ts), whose status it is; never sent. */
  code?: RequestErrorCode
  text: string
}

/** Sets the filter from the `level` query parameter (`null` when it is missing). */
export function setLogFilter(
  logging: Logging,
  level: string | null,
  options: { onChange?: (from: string, to: string) => void } = {},
): LoggingAnswer {
  if (level === null) {
    return {
      status: ERRORS.GW_ERR_ADMIN_PARAMETER.status,
      code: 'GW_ERR_ADMIN_PARAMETER',
      text: 'missing query parameter "level": POST /logging?level=<error|warn|info|debug|trace or info,proxy::httpproxy=trace>',
    }
  }
  const before = logging.filter()
  try {
    const now = logging.setFilter(level)
    options.onChange?.(before, now)
    return { status: 200, text: `current log level is ${now}` }
  } catch (err) {
    if (err instanceof LogFilterError) {
      return {
        status: ERRORS.GW_ERR_ADMIN_PARAMETER.status,
        code: 'GW_ERR_ADMIN_PARAMETER',
        text: `invalid log filter "${level}": ${err.message}; the log level stays ${before}`,
      }
    }
    throw err
  }
}
