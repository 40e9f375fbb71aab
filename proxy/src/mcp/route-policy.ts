// Over 300 lines but one job (the MCP-aware stage of a route): kept whole.
/**
 * The MCP-aware stage of a route (docs/auth.md): after authentication, it reads the JSON-RPC body of
 * `POST /mcp` (bounded), checks the `Mcp-Method`/`Mcp-Name` headers against it, authorizes each
 * tool, prompt and resource it names (`mcpAuthorization`), applies the rate limits
 * (`localRateLimit`), and hands the dataplane what forwarding needs: the body as read (sent byte
 * for byte), response headers (RateLimit) and a filter for list results in the response stream.
 *
 * Answers of its own: 413 for a body above {@link MCP_MAX_BODY_BYTES}, 400 with a JSON-RPC error
 * for a body that is not JSON-RPC or whose headers contradict it, 200 with a JSON-RPC error for a
 * denied call (MCP 2025-06-18 Tools §Error Handling: an unknown tool is a protocol error, -32602;
 * Resources: -32002), worded as the MCP SDK words an unknown name so that a denied tool and a
 * missing one look alike — it is hidden from the lists too — and 429 with Retry-After and RateLimit
 * headers when a limit is spent.
 */
import type { Readable } from 'node:stream'
import type { CelCompiler } from '../config/cel.js'
import type { PolicyConfig } from '../config/schema.js'
import { errorResponse, type LocalRequest, type LocalResponse } from '../http/local-response.js'
import { toolsKnownChannel } from '../telemetry/channels.js'
import type { RequestTrace } from '../telemetry/trace-bus.js'
import type { McpDecision } from '../telemetry/trace-events.js'
import { compileMcpAuthorization, type McpAuthorization } from './authorization.js'
import type { McpEra } from './era.js'
import { COMPLETE, type McpMessage, type McpTarget, RPC_ERROR, rpcError } from './json-rpc.js'
import { type ListCacheHints, requestsList } from './list-filter.js'
import {
  compileRateLimits,
  compileSharedRateLimits,
  type Limiter,
  type SharedBuckets,
} from './local-rate-limit.js'
import { ToolParamHeaders } from './param-headers.js'
import { isMcpAware, limitsOf } from './policy-config.js'
import { rateLimitHeaders } from './rate-limit-decision.js'
import { jsonRpcAnswer, readMessages } from './read-request.js'
import { filterResponseBody } from './response-filter.js'

/** MCP 2026-07-28 Subscriptions: the request whose answer is a long-lived stream. */
const LISTEN = 'subscriptions/listen'

/** What forwarding a request needs from the MCP stage. */
export interface McpForward {
  /**
   * A modern `subscriptions/listen`: its answer is a long-lived stream, forwarded outside the
   * backend's request budget (`limits.maxListenStreams` bounds them instead).
   */
  listen?: boolean
  /** The body as read, sent to the backend unchanged instead of the (consumed) request stream. */
  body?: Buffer
  /** Headers set on the request to the backend. */
  requestHeaders?: Record<string, string>
  /** Headers added to the response (RateLimit). */
  responseHeaders?: Record<string, string>
  /**
   * Wraps the backend's response body (list filtering); may adjust `headers` before they leave.
   * Throws a `RequestError` (502) for a body it refuses before anything is sent.
   */
  filterResponse?: (
    body: Readable,
    headers: Record<string, string | string[] | undefined>,
    status: number,
  ) => Readable
}

/**
 * The stage's verdict: answer the request itself (with the response headers a browser client
 * must be able to read, for `Access-Control-Expose-Headers`), or forward it.
 */
export type McpVerdict =
  | {
      response: LocalResponse
      /** Why the stage answered: the request's outcome (docs/design/layering.md). */
      outcome: 'mcp_invalid' | 'mcp_denied' | 'rate_limited'
      expose?: readonly string[]
    }
  | { forward: McpForward }

/** What a browser client reads of a 429 (Fetch: not CORS-safelisted response headers). */
const RATE_LIMIT_EXPOSED = ['Retry-After', 'RateLimit', 'RateLimit-Policy'] as const

/** The request as the MCP stage sees it: a view of {@link LocalRequest}. */
export type McpStageRequest = Pick<
  LocalRequest,
  'method' | 'path' | 'headersDistinct' | 'body' | 'trace'
>

/** The method that uses a listed item: what the item is judged as. */
const USE_METHOD = {
  tool: 'tools/call',
  prompt: 'prompts/get',
  resource: 'resources/read',
} as const

/**
 * Whether a request may use its target. A completion (docs/design/hardening.md) is judged as itself and
 * as the use of the prompt or resource it names: a caller who may not get a prompt may not
 * complete its arguments either.
 */
function allowsMessage(
  authorization: McpAuthorization,
  jwt: Readonly<Record<string, unknown>>,
  method: string,
  target: McpTarget,
): boolean {
  const allowed = authorization.allows(jwt, method, target)
  if (method !== COMPLETE || !allowed) return allowed
  return authorization.allows(jwt, USE_METHOD[target.kind], target)
}

/**
 * The resources a `subscriptions/listen` asks updates of (MCP 2026-07-28 Subscriptions), each
 * judged as a `resources/read` of it: who may not read a resource does not learn when it changes.
 * @returns the decisions and the first denied resource; `undefined` for another message.
 */
function listenedResources(
  authorization: McpAuthorization,
  jwt: Readonly<Record<string, unknown>>,
  m: McpMessage,
): { decisions: McpDecision[]; denied: McpTarget | undefined } | undefined {
  if (!m.resourceSubscriptions) return undefined
  const decisions: McpDecision[] = []
  let denied: McpTarget | undefined
  for (const uri of m.resourceSubscriptions) {
    const target: McpTarget = { kind: 'resource', name: uri }
    const allowed = authorization.allows(jwt, USE_METHOD.resource, target)
    if (!allowed) denied ??= target
    decisions.push({ method: m.method, kind: 'resource', name: uri, allowed })
  }
  return { decisions, denied }
}

/** Claims seen by rules when the request carries no verified token (Optional mode). */
const NO_CLAIMS: Readonly<Record<string, unknown>> = Object.freeze({})

/** MCP 2025-06-18 Transports, Streamable HTTP: the methods a client sends to the MCP endpoint. */
const ALLOWED_METHODS = 'GET, POST, DELETE'

/**
 * A refusal for a request whose body the stage would not read, so could not authorize: a method
 * Streamable HTTP does not use (PUT, PATCH, … — a backend routing on the path alone might still
 * run a JSON-RPC body), or a GET or DELETE that carries a body.
 */
function unreadRequest(
  req: McpStageRequest,
): { response: LocalResponse; reason: string } | undefined {
  const method = req.method
  if (method === 'POST') return undefined
  if (!['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(method)) {
    const reason = `${method} is not an MCP transport method: the MCP policy of this route reads POST bodies and allows ${ALLOWED_METHODS}`
    return {
      reason,
      response: errorResponse('GW_ERR_METHOD_NOT_ALLOWED', reason, { allow: ALLOWED_METHODS }),
    }
  }
  const h = req.headersDistinct
  const length = Number(h['content-length']?.[0] ?? 0)
  if (h['transfer-encoding'] !== undefined || length > 0) {
    const reason = `a ${method} to an MCP route carries no body; send JSON-RPC messages with POST`
    return { reason, response: errorResponse('GW_ERR_MCP_UNEXPECTED_BODY', reason) }
  }
  return undefined
}

/**
 * The JSON-RPC error for a denied target, worded as for a name the server does not have. A
 * resource the server lacks is -32002 up to 2025-11-25, and in 2026-07-28 -32602 with the URI in
 * `data` (Resources §Error Handling: "Resource not found: `-32602` (Invalid Params)", example
 * `"data": { "uri": … }`; changelog minor 6), so a denied resource looks like a missing one in
 * each era.
 */
function deniedError(message: McpMessage, target: McpTarget) {
  switch (target.kind) {
    case 'tool':
      return rpcError(message.id, RPC_ERROR.invalidParams, `Tool ${target.name} not found`)
    case 'prompt':
      return rpcError(message.id, RPC_ERROR.invalidParams, `Prompt ${target.name} not found`)
    case 'resource':
      return message.modern
        ? rpcError(message.id, RPC_ERROR.invalidParams, 'Resource not found', { uri: target.name })
        : rpcError(message.id, RPC_ERROR.resourceNotFound, `Resource ${target.name} not found`)
  }
}

/** Rate-limit buckets held by another process, and the name (the route) the limits go by there. */
export interface SharedLimits {
  buckets: SharedBuckets
  scope: string
}

/** The compiled MCP-aware policy of one route (every MCP-aware policy attached to it). */
export class McpRoutePolicy {
  readonly policies: readonly string[]
  readonly authorization: McpAuthorization | undefined
  readonly rateLimiter: Limiter | undefined
  /** Tool names the rules name (metrics labels; see {@link toolsKnownChannel}). */
  readonly toolNames: readonly string[]
  /** Whether {@link toolNames} went out on the channel (once someone listened). */
  #announced = false
  /** The `x-mcp-header` annotations of the tools this route listed (modern era). */
  readonly #params = new ToolParamHeaders()
  /** Caching hints of filtered lists (modern era): `cacheScope: "private"`, `ttlMs` capped. */
  readonly #listCache: ListCacheHints

  /**
   * @param shared - where the rate-limit buckets live when not here (the cluster primary).
   * @param cel - the compilation's CEL compiler (`CompiledConfig.cel`), which holds the programs.
   */
  constructor(
    entries: ReadonlyArray<{ name: string; policy: PolicyConfig }>,
    shared?: SharedLimits,
    cel?: CelCompiler,
  ) {
    this.policies = entries.map((e) => e.name)
    const rules = entries.flatMap((e) => e.policy.traffic.mcpAuthorization?.rules ?? [])
    const hasAuthz = entries.some((e) => e.policy.traffic.mcpAuthorization !== undefined)
    this.authorization = hasAuthz ? compileMcpAuthorization(rules, cel) : undefined
    const limits = entries.flatMap((e) => limitsOf(e.name, e.policy))
    this.rateLimiter =
      limits.length === 0
        ? undefined
        : shared
          ? compileSharedRateLimits(limits, shared.buckets, shared.scope, cel)
          : compileRateLimits(limits, undefined, cel)
    this.toolNames = this.authorization?.toolNames ?? []
    const caps = entries.flatMap((e) => {
      const ttl = e.policy.traffic.mcpAuthorization?.maxListTtl
      return ttl ? [ttl.ms] : []
    })
    this.#listCache = { maxTtlMs: caps.length > 0 ? Math.min(...caps) : undefined }
  }

  /**
   * Judges one request after authentication, in four steps: read the body, authorize what it
   * names, apply the rate limits, then set up the filtering of list answers.
   * @param claims - the verified claims, `undefined` without a token (Optional mode, no JWT policy).
   */
  async inspect(
    req: McpStageRequest,
    claims: Readonly<Record<string, unknown>> | undefined,
  ): Promise<McpVerdict> {
    const jwt = claims ?? NO_CLAIMS
    const trace = req.trace
    this.#announceToolNames()
    const unread = unreadRequest(req)
    if (unread) {
      trace?.event('mcp_request', { error: unread.reason })
      return { response: unread.response, outcome: 'mcp_invalid' }
    }
    const forward: McpForward = {}
    let messages: readonly McpMessage[] = []
    let era: McpEra = 'legacy'
    // docs/design/hardening.md: under /.well-known/ too. What reaches this stage was not answered by the
    // OAuth endpoints (the pipeline serves them first), so it is judged like any other request.
    if (req.method === 'POST') {
      const read = await readMessages(req, this.#params.lookup)
      if ('response' in read) return { response: read.response, outcome: 'mcp_invalid' }
      forward.body = read.body
      messages = read.messages
      era = read.era
      if (era === 'modern' && messages[0]?.method === LISTEN && messages[0].type === 'request') {
        forward.listen = true
      }
      const denial = this.#authorize(jwt, messages, read.batch, trace)
      if (denial) return { response: denial, outcome: 'mcp_denied' }
    }
    const limited = await this.#limit(jwt, messages, trace)
    if (limited && 'response' in limited) return limited
    if (limited) forward.responseHeaders = limited.headers
    Object.assign(forward, this.#listFilter(req.method, messages, jwt, trace, era))
    return { forward }
  }

  /** Tells the metrics the tool names the rules name, once someone listens. */
  #announceToolNames(): void {
    if (!this.#announced && toolsKnownChannel.hasSubscribers) {
      this.#announced = true
      if (this.toolNames.length > 0) toolsKnownChannel.publish({ names: this.toolNames })
    }
  }

  /** The rate limits: a 429 when one is spent, else the headers for the answer. */
  async #limit(
    jwt: Readonly<Record<string, unknown>>,
    messages: readonly McpMessage[],
    trace: RequestTrace | undefined,
  ): Promise<
    | { response: LocalResponse; outcome: 'rate_limited'; expose: readonly string[] }
    | { headers: Record<string, string> }
    | undefined
  > {
    if (!this.rateLimiter) return undefined
    const decision = await this.rateLimiter.admit(jwt, messages)
    const headers = rateLimitHeaders(decision)
    trace?.event('rate_limit', {
      admitted: decision.admitted,
      retryAfterSec: decision.retryAfterSec,
      limits: decision.limits,
    })
    if (!decision.admitted) {
      const spent = decision.limits.filter((l) => l.exceeded).map((l) => l.name)
      return {
        response: errorResponse(
          'GW_ERR_RATE_LIMITED',
          `rate limit ${spent.join(', ')} exceeded; retry after ${decision.retryAfterSec} s`,
          headers,
        ),
        outcome: 'rate_limited',
        expose: RATE_LIMIT_EXPOSED,
      }
    }
    return { headers }
  }

  /** The filtering of list answers (tools, prompts, resources the caller may not use are hidden). */
  #listFilter(
    method: string,
    messages: readonly McpMessage[],
    jwt: Readonly<Record<string, unknown>>,
    trace: RequestTrace | undefined,
    era: McpEra,
  ): Pick<McpForward, 'requestHeaders' | 'filterResponse'> {
    const authorization = this.authorization
    if (!this.#filtersLists(method, messages) || !authorization) return {}
    const params = this.#params
    return {
      requestHeaders: { 'accept-encoding': 'identity' },
      filterResponse: (body, headers, status) =>
        filterResponseBody(body, headers, status, {
          // An item is visible when the request that uses it would be allowed.
          visible: (kind, name, item) => {
            // A listed tool is a real one: the metrics give it a label of its own.
            if (kind === 'tool' && toolsKnownChannel.hasSubscribers) {
              toolsKnownChannel.publish({ names: [name] })
            }
            // Its x-mcp-header annotations let the gateway judge Mcp-Param-* (param-headers.ts).
            if (kind === 'tool' && era === 'modern') params.learn(item)
            return authorization.allows(jwt, USE_METHOD[kind], { kind, name })
          },
          onHidden: (kind, hidden) => trace?.event('mcp_list_filtered', { kind, hidden }),
          cache: era === 'modern' ? this.#listCache : undefined,
        }),
    }
  }

  /** Whether to filter the answer: a POST holding a list request, or a GET stream. */
  #filtersLists(method: string, messages: readonly McpMessage[]): boolean {
    if (!this.authorization || this.authorization.rules.length === 0) return false
    if (method === 'GET') return true
    return requestsList(messages)
  }

  /** The JSON-RPC answer refusing the body when a message names a denied target. */
  #authorize(
    jwt: Readonly<Record<string, unknown>>,
    messages: readonly McpMessage[],
    batch: boolean,
    trace: RequestTrace | undefined,
  ): LocalResponse | undefined {
    const authorization = this.authorization
    if (!authorization || authorization.rules.length === 0) return undefined
    const denied = new Map<McpMessage, McpTarget>()
    const decisions: McpDecision[] = []
    for (const m of messages) {
      const subscribed = m.type === 'request' ? listenedResources(authorization, jwt, m) : undefined
      if (subscribed) {
        if (subscribed.denied) denied.set(m, subscribed.denied)
        decisions.push(...subscribed.decisions)
      }
      if (m.type !== 'request' || !m.target) continue
      const allowed = allowsMessage(authorization, jwt, m.method, m.target)
      if (!allowed) denied.set(m, m.target)
      decisions.push({
        method: m.method,
        kind: m.target.kind,
        name: m.target.name,
        allowed,
        // Why, rule by rule, only for a denial (the full evaluation costs more than the decision).
        ...(allowed ? {} : { rules: authorization.explain(jwt, m.method, m.target).rules }),
      })
    }
    if (decisions.length > 0) trace?.event('mcp_authorization', { decisions })
    if (denied.size === 0) return undefined
    const answers = messages
      .filter((m) => m.type === 'request')
      .map((m) => {
        const target = denied.get(m)
        return target
          ? deniedError(m, target)
          : rpcError(
              m.id,
              -32000,
              'Request not forwarded: the gateway refused another request of this batch',
            )
      })
    return jsonRpcAnswer('GW_ERR_MCP_TARGET_DENIED', batch ? answers : answers[0])
  }

  /** A view for `/config_dump`. */
  dump(): Record<string, unknown> {
    return {
      policies: this.policies,
      mcpAuthorization: this.authorization ? { rules: this.authorization.rules } : null,
      localRateLimit: this.rateLimiter
        ? this.rateLimiter.limits.map((l) => ({
            ...l,
            trackedKeys: this.rateLimiter?.sizes()[l.name],
          }))
        : null,
    }
  }
}

/**
 * The MCP-aware policy of a route, from the policies attached to it; `undefined` when none of them
 * has `mcpAuthorization` or `localRateLimit` (the route then forwards without reading bodies).
 */
export function compileMcpRoutePolicy(
  entries: ReadonlyArray<{ name: string; policy: PolicyConfig }>,
  shared?: SharedLimits,
  cel?: CelCompiler,
): McpRoutePolicy | undefined {
  const aware = entries.filter((e) => isMcpAware(e.policy))
  return aware.length > 0 ? new McpRoutePolicy(aware, shared, cel) : undefined
}
