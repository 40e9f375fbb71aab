/**
 * Errors of gwctl. Every failure the user can cause or meet has a stable code, a message that
 * says what was wrong and what to do, and an exit code: 1 for a failed operation, 2 for a
 * command line that cannot be run (the convention of POSIX utilities and commander), 130 for an
 * operation stopped by Ctrl-C (the shell's 128 + SIGINT).
 */

/** Stable codes of gwctl failures, so callers and tests can switch on them. */
export type GwctlErrorCode =
  /** The command line is wrong (unknown flag, bad value, conflicting options). Exit 2. */
  | 'GWCTL_ERR_USAGE'
  /** The admin interface could not be reached (connection refused, bad host, socket missing). */
  | 'GWCTL_ERR_ADMIN_UNREACHABLE'
  /** The admin interface answered with an unexpected status or body. */
  | 'GWCTL_ERR_ADMIN_RESPONSE'
  /** A `--file` could not be read. */
  | 'GWCTL_ERR_FILE_UNREADABLE'
  /** A `--file` (or a live answer) is not a `/config_dump` document. */
  | 'GWCTL_ERR_NOT_CONFIG_DUMP'
  /** CPU profiling is not available (404: the proxy is not a Linux build). */
  | 'GWCTL_ERR_PROFILING_UNAVAILABLE'
  /** An output file could not be written. */
  | 'GWCTL_ERR_WRITE'
  /** The trace stream ended before the traced request finished. */
  | 'GWCTL_ERR_TRACE_INCOMPLETE'
  /** Ctrl-C (or SIGTERM) stopped a running operation before it completed. Exit 130. */
  | 'GWCTL_ERR_INTERRUPTED'

/** What each code means; a `Record` over the union, so adding a code without a line fails to compile. */
const DESCRIPTIONS: Record<GwctlErrorCode, string> = {
  GWCTL_ERR_USAGE: 'the command line is wrong',
  GWCTL_ERR_ADMIN_UNREACHABLE: 'the admin interface could not be reached',
  GWCTL_ERR_ADMIN_RESPONSE: 'the admin interface answered with an unexpected status or body',
  GWCTL_ERR_FILE_UNREADABLE: 'a --file could not be read',
  GWCTL_ERR_NOT_CONFIG_DUMP: 'a --file or live answer is not a config dump',
  GWCTL_ERR_PROFILING_UNAVAILABLE: 'CPU profiling is not available (not a Linux build)',
  GWCTL_ERR_WRITE: 'an output file could not be written',
  GWCTL_ERR_TRACE_INCOMPLETE: 'the trace stream ended before the request finished',
  GWCTL_ERR_INTERRUPTED: 'interrupted before the operation completed',
}

/** Every code, for documentation and the completeness test. */
export const GWCTL_ERROR_CODES = Object.keys(DESCRIPTIONS) as readonly GwctlErrorCode[]

/** A failure gwctl reports as `gwctl: <message>` on stderr before exiting non-zero. */
export class GwctlError extends Error {
  /** Stable code. */
  readonly code: GwctlErrorCode
  /** Process exit code: 2 for usage errors, 130 (128 + SIGINT) when interrupted, 1 otherwise. */
  readonly exitCode: 1 | 2 | 130

  constructor(code: GwctlErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'GwctlError'
    this.code = code
    this.exitCode = code === 'GWCTL_ERR_USAGE' ? 2 : code === 'GWCTL_ERR_INTERRUPTED' ? 130 : 1
  }
}

/** A usage error (exit 2). */
export function usageError(message: string): GwctlError {
  return new GwctlError('GWCTL_ERR_USAGE', message)
}
