// Over 300 lines but one job (the table of error codes): kept whole.
/**
 * Typed errors of the proxy with stable codes, and the one table that gives each code its meaning
 * (fastify-style): {@link ERRORS} maps a code to the HTTP status and wire `error` the gateway
 * answers with, so a call site names a code and a description, never a status. Callers switch on
 * `code`; every code is documented in docs/errors.md (a test derives the list from this table).
 */

/** What a code means: a short meaning, and for an answered error its status and wire `error`. */
export interface ErrorSpec {
  /** What happened, in a few words (the docs say more). */
  readonly description: string
  /** HTTP status of the answer; absent for errors that end the process or cut a connection. */
  readonly status?: number
  /** The body's `error` member (RFC 6749 §5.2 / RFC 6750 §3 where one applies). */
  readonly error?: string
}

/** Every error code the proxy raises, with its answer (docs/errors.md says when each occurs). */
export const ERRORS = {
  // Start-up, configuration and process errors: no HTTP answer.
  GW_ERR_CONFIG_READ: { description: 'the configuration file cannot be read' },
  GW_ERR_CONFIG_PARSE: { description: 'the configuration file is not valid YAML' },
  GW_ERR_CONFIG_INVALID: { description: 'the configuration is not valid' },
  GW_ERR_CEL_COMPILE: { description: 'a CEL expression does not parse or type-check' },
  GW_ERR_LOG_FILTER: { description: 'a log filter names an unknown level or module' },
  GW_ERR_LISTEN: { description: 'an address cannot be bound' },
  GW_ERR_TLS_CERTIFICATE: {
    description: "an HTTPS listener's certificate files, read again after a change, are not usable",
  },
  GW_ERR_JWKS_UNAVAILABLE: { description: "a policy's key set was never fetched" },
  GW_ERR_MCP_FILTER_LIMIT: {
    description: 'a response message is too large for the MCP list filter; the stream is cut',
  },
  GW_ERR_MCP_FILTER_UNREADABLE: {
    description: 'a response the MCP list filter cannot read; the stream is cut',
  },
  // HTTP and the listener.
  GW_ERR_BAD_REQUEST: { status: 400, error: 'bad_request', description: 'not valid HTTP/1.1' },
  GW_ERR_BAD_PATH: { status: 400, error: 'invalid_path', description: 'request target refused' },
  GW_ERR_NO_ROUTE: { status: 404, error: 'not_found', description: 'no route or endpoint' },
  GW_ERR_METHOD_NOT_ALLOWED: {
    status: 405,
    error: 'method_not_allowed',
    description: 'a method the gateway or the route does not serve',
  },
  GW_ERR_REQUEST_TIMEOUT: {
    status: 408,
    error: 'request_timeout',
    description: 'the request did not arrive in time',
  },
  GW_ERR_BODY_TOO_LARGE: {
    status: 413,
    error: 'payload_too_large',
    description: 'a body the gateway reads is above its limit',
  },
  GW_ERR_BODY_NOT_RECEIVED: {
    status: 400,
    error: 'invalid_request',
    description: 'a body the gateway reads never arrived whole',
  },
  GW_ERR_EXPECTATION_FAILED: {
    status: 417,
    error: 'expectation_failed',
    description: 'an Expect other than 100-continue',
  },
  GW_ERR_HEADERS_TOO_LARGE: {
    status: 431,
    error: 'request_header_fields_too_large',
    description: 'the request head is above limits.maxHeaderSize',
  },
  GW_ERR_INTERNAL: { status: 500, error: 'internal_error', description: 'a bug in the gateway' },
  GW_ERR_DRAINING: { status: 503, error: 'shutting_down', description: 'the gateway is draining' },
  GW_ERR_HOST_NOT_ALLOWED: {
    status: 403,
    error: 'host_not_allowed',
    description: 'DNS rebinding protection refused the Host',
  },
  GW_ERR_ORIGIN_NOT_ALLOWED: {
    status: 403,
    error: 'origin_not_allowed',
    description: 'the Origin is not allowed',
  },
  // The admin API (loopback): its own JSON and text bodies; the `error` is the table's only.
  GW_ERR_ADMIN_BROWSER: {
    status: 403,
    error: 'forbidden',
    description: 'the admin API refused a request a browser could have sent',
  },
  GW_ERR_ADMIN_PARAMETER: {
    status: 400,
    error: 'invalid_request',
    description: 'an admin request with a missing or bad query parameter',
  },
  GW_ERR_ADMIN_UNAVAILABLE: {
    status: 503,
    error: 'unavailable',
    description: 'an admin endpoint this proxy cannot serve (no metrics, nothing to reload)',
  },
  GW_ERR_ADMIN_BUSY: {
    status: 409,
    error: 'conflict',
    description: 'a CPU profile is already running',
  },
  GW_ERR_ADMIN_RELAY_TARGET: {
    status: 403,
    error: 'forbidden',
    description: 'the OAuth flow debugger asked to reach an origin the configuration does not name',
  },
  GW_ERR_RELOAD_REFUSED: {
    status: 422,
    error: 'failure',
    description: 'a reload refused the new configuration; the previous one serves',
  },
  GW_ERR_ADMIN_INTERNAL: {
    status: 500,
    error: 'internal',
    description: 'a bug in an admin endpoint',
  },
  // The backend.
  GW_ERR_UPSTREAM_BUSY: { status: 503, error: 'upstream_busy', description: 'no backend slot' },
  GW_ERR_UPSTREAM_STREAMS_FULL: {
    status: 503,
    error: 'upstream_busy',
    description: 'the backend already holds limits.maxListenStreams subscription streams',
  },
  GW_ERR_UPSTREAM_CONNECT: {
    status: 502,
    error: 'upstream_unavailable',
    description: 'the backend cannot be reached',
  },
  GW_ERR_UPSTREAM_TIMEOUT: {
    status: 504,
    error: 'upstream_timeout',
    description: 'the backend did not answer in time',
  },
  GW_ERR_UPSTREAM: { status: 502, error: 'upstream_error', description: 'the backend failed' },
  // MCP.
  GW_ERR_SESSION_NOT_FOUND: {
    status: 404,
    error: 'session_not_found',
    description: 'an MCP session not issued to this principal',
  },
  GW_ERR_MCP_UNEXPECTED_BODY: {
    status: 400,
    error: 'invalid_request',
    description: 'a body on an MCP GET, HEAD, DELETE or OPTIONS',
  },
  GW_ERR_MCP_INVALID_MESSAGE: {
    status: 400,
    error: 'invalid_request',
    description: 'a POST body that is not JSON-RPC (answered with a JSON-RPC error)',
  },
  GW_ERR_MCP_HEADER_MISMATCH: {
    status: 400,
    error: 'invalid_request',
    description:
      'MCP request metadata headers missing, malformed or not mirroring the body (JSON-RPC -32020)',
  },
  GW_ERR_MCP_METHOD_REMOVED: {
    status: 404,
    error: 'method_not_found',
    description: 'a method MCP 2026-07-28 removed, in a request of that revision (JSON-RPC -32601)',
  },
  GW_ERR_MCP_TARGET_DENIED: {
    status: 200,
    error: 'access_denied',
    description: "a JSON-RPC request naming a target the route's rules deny (a JSON-RPC error)",
  },
  GW_ERR_RATE_LIMITED: { status: 429, error: 'rate_limited', description: 'a rate limit is spent' },
  // OAuth on the data plane (RFC 6750 §3.1): answered with a WWW-Authenticate challenge.
  GW_ERR_UNAUTHENTICATED: { status: 401, error: 'unauthorized', description: 'no bearer token' },
  GW_ERR_INVALID_TOKEN: {
    status: 401,
    error: 'invalid_token',
    description: 'the bearer token failed verification',
  },
  GW_ERR_AUTHORIZATION_HEADER: {
    status: 400,
    error: 'invalid_request',
    description: 'more than one Authorization header',
  },
  GW_ERR_INSUFFICIENT_SCOPE: {
    status: 403,
    error: 'insufficient_scope',
    description: "a valid token that the route's rules refuse",
  },
  // The OAuth endpoints the gateway serves (metadata, registration, broker).
  GW_ERR_OAUTH_METHOD: {
    status: 405,
    error: 'invalid_request',
    description: 'an OAuth endpoint called with the wrong method',
  },
  GW_ERR_OAUTH_SERVER_ERROR: {
    status: 500,
    error: 'server_error',
    description: 'a bug in a broker endpoint',
  },
  GW_ERR_AUTHORIZE_REQUEST: {
    status: 400,
    error: 'invalid_request',
    description: 'an authorization request refused before its redirect URI is trusted (HTML page)',
  },
  GW_ERR_SIGN_IN_FAILED: {
    status: 400,
    error: 'invalid_request',
    description:
      "the IdP's response or a consent form is malformed, unknown or expired (HTML page)",
  },
  GW_ERR_BROWSER_MISMATCH: {
    status: 403,
    error: 'access_denied',
    description: 'a consent or sign-in not from the browser and page that started it (HTML page)',
  },
  GW_ERR_FORM_CONTENT_TYPE: {
    status: 400,
    error: 'invalid_request',
    description: 'a form that is not application/x-www-form-urlencoded',
  },
  GW_ERR_FORM_TOO_LARGE: {
    status: 413,
    error: 'invalid_request',
    description: 'a form above 16 KiB',
  },
  GW_ERR_TOKEN_REQUEST: {
    status: 400,
    error: 'invalid_request',
    description: 'a token request with a parameter missing or repeated',
  },
  GW_ERR_TOKEN_GRANT_TYPE: {
    status: 400,
    error: 'unsupported_grant_type',
    description: 'a grant type the broker does not issue',
  },
  GW_ERR_TOKEN_TARGET: {
    status: 400,
    error: 'invalid_target',
    description: 'a resource other than the MCP resource',
  },
  GW_ERR_TOKEN_GRANT: {
    status: 400,
    error: 'invalid_grant',
    description: 'a code or refresh token that is invalid, spent or not the client’s',
  },
  GW_ERR_TOKEN_CLIENT: {
    status: 401,
    error: 'invalid_client',
    description: 'client authentication failed',
  },
  GW_ERR_IDP_UNAVAILABLE: {
    status: 503,
    error: 'temporarily_unavailable',
    description: "the IdP's token endpoint did not answer usably",
  },
  GW_ERR_TOKEN_VALIDATION_UNAVAILABLE: {
    status: 503,
    error: 'temporarily_unavailable',
    description: "the IdP's introspection or UserInfo endpoint did not answer usably",
  },
  // No answer of its own: the client is redirected with the IdP's error (RFC 6749 §4.1.2.1).
  GW_ERR_IDP_SIGN_IN_FAILED: {
    description:
      "broker mode: a sign-in failed on the IdP's side (its authorization error such as invalid_scope, a refused code exchange, a response naming another issuer); logged with the cause, the client told what to do",
  },
  GW_ERR_DISCOVERY_UNAVAILABLE: {
    status: 503,
    error: 'temporarily_unavailable',
    description: "the IdP's discovery document is not available",
  },
  GW_ERR_IDP_UNREACHABLE: {
    status: 502,
    error: 'temporarily_unavailable',
    description: "the IdP's registration endpoint is not reachable",
  },
  GW_ERR_REGISTRATION_REFUSED_BY_IDP: {
    status: 403,
    error: 'invalid_client_metadata',
    description: 'the IdP refused a registration passed on to it (its 401 or 403 is relayed)',
  },
  GW_ERR_REGISTRATION_DISABLED: {
    status: 404,
    error: 'not_found',
    description: 'dynamic client registration is off',
  },
  GW_ERR_REGISTRATION_UNSUPPORTED: {
    status: 501,
    error: 'unsupported_operation',
    description: 'registration cannot be passed to the IdP',
  },
  GW_ERR_REGISTRATION_TOO_LARGE: {
    status: 413,
    error: 'invalid_client_metadata',
    description: 'a registration body above 16 KiB',
  },
  GW_ERR_REGISTRATION_CONTENT_TYPE: {
    status: 415,
    error: 'invalid_client_metadata',
    description: 'a registration body that is not application/json',
  },
  GW_ERR_REGISTRATION_METADATA: {
    status: 400,
    error: 'invalid_client_metadata',
    description: 'client metadata refused (RFC 7591 §3.2.2)',
  },
  GW_ERR_REGISTRATION_REDIRECT_URI: {
    status: 400,
    error: 'invalid_redirect_uri',
    description: 'a redirect URI refused (RFC 7591 §3.2.2)',
  },
  GW_ERR_REGISTRATION_LIMIT: {
    status: 429,
    error: 'temporarily_unavailable',
    description: 'too many registrations from one address',
  },
  GW_ERR_AUTHORIZE_LIMIT: {
    status: 429,
    error: 'temporarily_unavailable',
    description: 'too many authorization requests waiting for consent from one address',
  },
  GW_ERR_SESSIONS_FULL: {
    status: 503,
    error: 'temporarily_unavailable',
    description: 'the MCP session bindings are full',
  },
  GW_ERR_CLIENT_METADATA: {
    status: 400,
    error: 'invalid_client',
    description: 'a Client ID Metadata Document was refused',
  },
  GW_ERR_CLIENT_METADATA_BUSY: {
    status: 503,
    error: 'temporarily_unavailable',
    description: 'too many Client ID Metadata Documents are being fetched',
  },
  GW_ERR_STORE_FULL: {
    status: 503,
    error: 'temporarily_unavailable',
    description: 'a broker store namespace is full',
  },
  GW_ERR_STORE_UNAVAILABLE: {
    status: 503,
    error: 'temporarily_unavailable',
    description: 'the broker store cannot be reached',
  },
} as const satisfies Record<string, ErrorSpec>

/** A union of the codes, for narrowing. */
export type ErrorCode = keyof typeof ERRORS

/** Every code, in table order. */
export const ERROR_CODES = Object.keys(ERRORS) as readonly ErrorCode[]

/** The codes the gateway answers a request with (those with a status). */
export type RequestErrorCode = {
  [K in ErrorCode]: (typeof ERRORS)[K] extends { status: number } ? K : never
}[ErrorCode]

/**
 * Wire `error` values registered for OAuth 2.0 (RFC 6749 §4.1.2.1, §5.2; RFC 6750 §3.1;
 * RFC 7591 §3.2.2; RFC 8707 §2), which an {@link OAuthError} may carry.
 */
type OAuthWireError =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'invalid_target'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'server_error'
  | 'temporarily_unavailable'
  | 'invalid_client_metadata'
  | 'invalid_redirect_uri'

/**
 * The codes answered with an OAuth error (`error` registered by RFC 6749, 6750 or 7591), and the
 * bare 401 challenge of a request without a token (RFC 6750 §3.1: no `error` in the challenge;
 * the body says `unauthorized`).
 */
export type OAuthErrorCode =
  | {
      [K in ErrorCode]: (typeof ERRORS)[K] extends { error: OAuthWireError } ? K : never
    }[ErrorCode]
  | 'GW_ERR_UNAUTHENTICATED'

/** Base class of every error the proxy raises on purpose. */
export class GatehouseError extends Error {
  /** Stable code; see {@link ERRORS}. */
  readonly code: ErrorCode
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'GatehouseError'
    this.code = code
  }
}

/** Options of a {@link RequestError}. */
export interface RequestErrorOptions {
  cause?: unknown
  /** Headers the answer carries besides the body's (`Allow` on 405, `Retry-After` on 503). */
  headers?: Record<string, string>
}

/**
 * A request the gateway answers itself with an error status: the code's status and `error` from
 * {@link ERRORS}, the message as `error_description` (the JSON body `{ error, error_description }`
 * of docs/errors.md). Rendered in one place, `fromRequestError` in http/local-response.ts.
 */
export class RequestError extends GatehouseError {
  declare readonly code: RequestErrorCode
  /** HTTP status of the answer, from the table. */
  readonly status: number
  /** The body's `error` member, e.g. `upstream_timeout`, from the table. */
  readonly error: string
  /** Headers the answer carries besides the body's (`Allow` on 405, `Retry-After` on 503). */
  readonly headers: Readonly<Record<string, string>>
  constructor(code: RequestErrorCode, description: string, options?: RequestErrorOptions) {
    super(code, description, options)
    this.name = 'RequestError'
    this.status = ERRORS[code].status
    this.error = ERRORS[code].error
    this.headers = options?.headers ?? {}
  }
}

/**
 * An OAuth error answer: the RFC 6749 §5.2 body `{ error, error_description }`, and for the data
 * plane's 401/403/400 the RFC 6750 §3 `WWW-Authenticate` challenge, which the policy composes
 * (auth/challenge.ts: `resource_metadata`, `scope`) and passes as `challenge`.
 */
export class OAuthError extends RequestError {
  declare readonly code: OAuthErrorCode
  constructor(
    code: OAuthErrorCode,
    description: string,
    options?: RequestErrorOptions & { challenge?: string },
  ) {
    const { challenge, ...rest } = options ?? {}
    super(code, description, {
      ...rest,
      headers:
        challenge === undefined ? rest.headers : { ...rest.headers, 'www-authenticate': challenge },
    })
    this.name = 'OAuthError'
  }
}

/** One problem in a configuration file, located by its path (`gateways.default.port`). */
export interface ConfigIssue {
  path: string
  message: string
  /**
   * A Gateway API style reason (CamelCase) when the issue is of a kind status reports by name
   * (`Unauthenticated`: a route that no authentication covers); absent: `Invalid`.
   */
  reason?: string
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
