/**
 * Typed errors of the proxy with stable codes. Callers switch on `code`; every code is listed in
 * {@link ERROR_CODES} and documented in docs/errors.md (a test keeps the two in step).
 */

/** Every error code the proxy raises. */
export const ERROR_CODES = [
  'GW_ERR_CONFIG_READ',
  'GW_ERR_CONFIG_PARSE',
  'GW_ERR_CONFIG_INVALID',
  'GW_ERR_LISTEN',
  'GW_ERR_BAD_REQUEST',
  'GW_ERR_BAD_PATH',
  'GW_ERR_NO_ROUTE',
  'GW_ERR_METHOD_NOT_ALLOWED',
  'GW_ERR_REQUEST_TIMEOUT',
  'GW_ERR_BODY_TOO_LARGE',
  'GW_ERR_EXPECTATION_FAILED',
  'GW_ERR_HEADERS_TOO_LARGE',
  'GW_ERR_INTERNAL',
  'GW_ERR_DRAINING',
  'GW_ERR_UPSTREAM_BUSY',
  'GW_ERR_UPSTREAM_CONNECT',
  'GW_ERR_UPSTREAM_TIMEOUT',
  'GW_ERR_UPSTREAM',
  'GW_ERR_JWKS_UNAVAILABLE',
  'GW_ERR_DISCOVERY_UNAVAILABLE',
  'GW_ERR_STORE_FULL',
  'GW_ERR_STORE_UNAVAILABLE',
  'GW_ERR_CLIENT_METADATA',
  'GW_ERR_REGISTRATION_LIMIT',
] as const

/** A union of the codes, for narrowing. */
export type ErrorCode = (typeof ERROR_CODES)[number]

/** Base class of every error the proxy raises on purpose. */
export class GatehouseError extends Error {
  /** Stable code; see {@link ERROR_CODES}. */
  readonly code: ErrorCode
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'GatehouseError'
    this.code = code
  }
}

/**
 * A request the gateway answers itself with an error status: carries the HTTP status and the
 * `error` member of the JSON body `{ error, error_description }` (docs/errors.md); the message is
 * the `error_description`. Rendered in one place, `errorResponse` in http/local-response.ts.
 */
export class RequestError extends GatehouseError {
  /** HTTP status of the answer. */
  readonly status: number
  /** The body's `error` member, e.g. `upstream_timeout`. */
  readonly error: string
  /** Headers the answer carries besides the body's (`Allow` on 405, `Retry-After` on 503). */
  readonly headers: Readonly<Record<string, string>>
  constructor(
    code: ErrorCode,
    status: number,
    error: string,
    description: string,
    options?: { cause?: unknown; headers?: Record<string, string> },
  ) {
    super(code, description, options)
    this.name = 'RequestError'
    this.status = status
    this.error = error
    this.headers = options?.headers ?? {}
  }
}

/** One problem in a configuration file, located by its path (`gateways.default.port`). */
export interface ConfigIssue {
  path: string
  message: string
}

/** The configuration file could not be read, parsed or validated. Lists every problem found. */
export class ConfigError extends GatehouseError {
  readonly issues: readonly ConfigIssue[]
  readonly file: string | undefined
  constructor(
    code: Extract<ErrorCode, `GW_ERR_CONFIG_${string}`>,
    issues: readonly ConfigIssue[],
    file?: string,
    options?: { cause?: unknown },
  ) {
    const where = file ? `${file}: ` : ''
    const lines = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message))
    super(code, `${where}invalid configuration\n  ${lines.join('\n  ')}`, options)
    this.name = 'ConfigError'
    this.issues = issues
    this.file = file
  }
}
