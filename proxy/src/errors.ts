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
  'GW_ERR_NO_ROUTE',
  'GW_ERR_UPSTREAM_CONNECT',
  'GW_ERR_UPSTREAM_TIMEOUT',
  'GW_ERR_UPSTREAM',
  'GW_ERR_JWKS_UNAVAILABLE',
  'GW_ERR_DISCOVERY_UNAVAILABLE',
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
