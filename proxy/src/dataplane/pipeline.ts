// Over 300 lines but one job (the request pipeline of one gateway): kept whole.
/**
 * The request pipeline of one gateway, one named step each: request target ({@link checkedTarget})
 * → {@link route} → CORS preflight ({@link answerPreflight}) → Origin check ({@link checkOrigin}) →
 * MCP OAuth endpoints ({@link serveOAuth}) → authentication and authorization
 * ({@link authenticate}) → MCP-aware policy ({@link inspectMcp}) → MCP session binding and
 * forward ({@link forwardTo}). It reads only the compiled snapshot (`GatewayRuntime`, runtime.ts),
 * never raw configuration. Each request travels as one {@link RequestContext}.
 *
 * Every step that ends a request returns an {@link Answered}: the status and the explicit
 * {@link RequestOutcome} that the metrics, the access log and the trace read (docs/design/layering.md).
 * Detail only a `/debug/trace` watcher reads (headers, policy lists) is built only when one watches.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from 'pino'
import { RequestError } from '../errors.js'
import {
  errorResponse,
  fromRequestError,
  type LocalRequest,
  type LocalResponse,
  sendLocal,
} from '../http/local-response.js'
import { headerEra } from '../mcp/era.js'
import type { McpForward } from '../mcp/route-policy.js'
import type { Logging } from '../telemetry/logging.js'
import type { RequestTask, TaskRegistry } from '../telemetry/tasks.js'
import type { Telemetry } from '../telemetry/telemetry.js'
import type { RequestTrace, TraceBus } from '../telemetry/trace-bus.js'
import type { RequestOutcome } from '../telemetry/trace-events.js'
import type { Cors } from './cors.js'
import { forward } from './forward.js'
import type { HeaderChanges } from './headers.js'
import { BODY_LIMIT, readBody } from './request-body.js'
import { checkedTarget } from './request-checks.js'
import type { CompiledRule, GatewayRuntime } from './runtime.js'
import type { SessionBindings } from './session-binding.js'
import { sessionGate } from './session-gate.js'
import { parseTarget } from './target.js'

/** Process-wide services the pipeline reports to. */
export interface PipelineDeps {
  traceBus: TraceBus
  tasks: TaskRegistry
  logging: Logging
  /** Metrics, access log and OpenTelemetry spans (docs/observability.md); absent: none of them. */
  telemetry?: Telemetry | undefined
  /** Who each MCP session belongs to (session-binding.ts), shared by every gateway. */
  sessions: SessionBindings
}

/** One request on its way through the pipeline. */
export interface RequestContext {
  readonly gw: GatewayRuntime
  readonly req: IncomingMessage
  readonly res: ServerResponse
  readonly method: string
  /** The normalised path: what routes match and what the backend gets. */
  readonly path: string
  /** The query, with its `?`, or `''`; forwarded untouched. */
  readonly query: string
  readonly trace: RequestTrace | undefined
  readonly task: RequestTask
  /** CORS headers of the matched rule for an actual (non-preflight) response. */
  cors: Record<string, string>
  /** The outcome if a step throws: `allowed` once a route with policies matched. */
  outcome: RequestOutcome
}

/** How a step ended a request: the status sent and the request's outcome. */
export interface Answered {
  status: number
  outcome: RequestOutcome
}

/** The loggers and services of the steps. */
interface Steps {
  deps: PipelineDeps
  log: Logger
  httpLog: Logger
  corsLog: Logger
}

/** What authentication decided for a request that may go on. */
interface Admitted {
  /** A policy verified a token: the backend does not get it. */
  authenticated: boolean
  /** The verified claims (the MCP-aware stage reads them). */
  claims: Readonly<Record<string, unknown>> | undefined
  requestHeaders: HeaderChanges | undefined
}

/**
 * Creates the request handler of one gateway.
 * @param runtime - returns the current snapshot (swapped atomically on reload)
 */
export function createPipeline(
  runtime: () => GatewayRuntime,
  deps: PipelineDeps,
): (req: IncomingMessage, res: ServerResponse, connectionId: number) => Promise<void> {
  const steps: Steps = {
    deps,
    log: deps.logging.logger('proxy::dataplane'),
    httpLog: deps.logging.logger('proxy::httpproxy'),
    corsLog: deps.logging.logger('proxy::cors'),
  }
  return (req, res, connectionId) => handle(steps, runtime(), req, res, connectionId)
}

/** One request, start to end: the trace and task around {@link route}. */
async function handle(
  steps: Steps,
  gw: GatewayRuntime,
  req: IncomingMessage,
  res: ServerResponse,
  connectionId: number,
): Promise<void> {
  const { traceBus, tasks, telemetry } = steps.deps
  const method = req.method ?? 'GET'
  const url = req.url ?? '/'
  const parsed = parseTarget(url)
  const path = parsed.ok ? parsed.target.path : url
  const watcher = traceBus.start(path)
  const trace = telemetry ? telemetry.observe(watcher, req, gw.name, path) : watcher
  const task = tasks.beginRequest(gw.name, connectionId, method, path)
  const started = performance.now()
  let answered: Answered = { status: 0, outcome: NO_POLICY }
  // Redacted by the trace bus, like every event's data.
  if (trace?.watched) {
    trace.event('request_started', { method, path, gateway: gw.name, headers: req.headers })
  }
  let ctx: RequestContext | undefined
  try {
    const { path: normal, query } = checkedTarget(req, method, parsed)
    ctx = { gw, req, res, method, path: normal, query, trace, task, cors: {}, outcome: NO_POLICY }
    answered = await route(steps, ctx)
  } catch (err) {
    answered = { status: answerError(steps, res, err, path), outcome: ctx?.outcome ?? NO_POLICY }
  } finally {
    task.end()
    const ms = performance.now() - started
    if (trace) {
      if (trace.watched) trace.event('response', { status: answered.status })
      trace.finish({ ...answered, durationMs: Math.round(ms * 1000) / 1000 })
    }
    if (steps.httpLog.isLevelEnabled('debug')) {
      steps.httpLog.debug({ method, path, status: answered.status, ms }, 'request')
    }
  }
}

/** The outcome of a request no policy judged. */
const NO_POLICY: RequestOutcome = { policy: 'no_policy' }
/** The outcome of a request its policies let through. */
const ALLOWED: RequestOutcome = { policy: 'allowed' }

/** Answers a request that failed with a thrown error; a {@link RequestError} says how. */
function answerError(steps: Steps, res: ServerResponse, err: unknown, path: string): number {
  if (err instanceof RequestError) {
    sendLocal(res, fromRequestError(err), {})
    return err.status
  }
  steps.log.error({ err: (err as Error).message, path }, 'request failed')
  const internal = new RequestError('GW_ERR_INTERNAL', 'the gateway failed to handle the request')
  sendLocal(res, fromRequestError(internal), {})
  return 500
}

/** Sends a local answer (with the route's CORS headers unless told otherwise). */
function send(
  ctx: RequestContext,
  local: LocalResponse,
  outcome: RequestOutcome,
  headers = ctx.cors,
): Answered {
  sendLocal(ctx.res, local, headers)
  return { status: local.status, outcome }
}

/** Selects the route, then answers a preflight, checks the Origin and runs the policies. */
async function route(steps: Steps, ctx: RequestContext): Promise<Answered> {
  const probe = ctx.gw.probe
  if (probe && ctx.path === probe.path && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
    return answerProbe(ctx, probe.ready())
  }
  const match = ctx.gw.router.match(ctx.path)
  if (!match) {
    ctx.trace?.event('route_selected', { matched: false })
    const description = `no route matches ${ctx.method} ${ctx.path} on gateway "${ctx.gw.name}"`
    const error = new RequestError('GW_ERR_NO_ROUTE', description)
    return send(ctx, fromRequestError(error), { policy: 'no_route' })
  }
  const rule = match.entry.target
  ctx.trace?.event('route_selected', {
    route: rule.route,
    rule: rule.rule,
    match: { type: match.entry.type, value: match.entry.value },
  })
  if (ctx.trace?.watched) {
    ctx.trace.event('policies_applied', {
      policies: rule.policies.map((p) => p.name),
      cors: rule.cors !== undefined,
    })
  }
  // Fetch standard: a preflight carries no credentials, so it is answered before auth runs.
  if (rule.cors?.isPreflight(ctx.method, ctx.req.headers)) {
    ctx.task.stage('cors')
    return answerPreflight(steps, ctx, rule.cors)
  }
  ctx.cors = rule.cors?.response(ctx.req.headers) ?? {}
  const refused = checkOrigin(steps, ctx, rule)
  if (refused !== undefined) return refused
  if (rule.policies.length === 0) return forwardTo(steps, ctx, rule, OPEN, NO_POLICY)
  ctx.outcome = ALLOWED
  return authenticate(steps, ctx, rule)
}

/**
 * A load balancer's probe (`probePath`): 200 or 503 and one word, never the reasons, which only
 * the admin interface's `/ready` gives (they name policies and IdP URLs).
 */
function answerProbe(ctx: RequestContext, ready: boolean): Answered {
  const headers = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }
  const body = ctx.method === 'HEAD' ? undefined : ready ? 'ok\n' : 'unavailable\n'
  return send(ctx, { status: ready ? 200 : 503, headers, body }, NO_POLICY, {})
}

/** What a route without policies forwards with. */
const OPEN: Admitted = { authenticated: false, claims: undefined, requestHeaders: undefined }

/** Fetch standard: answers a CORS preflight, allowed or not (without the allow headers). */
function answerPreflight(steps: Steps, ctx: RequestContext, cors: Cors): Answered {
  const { req } = ctx
  const headers = cors.preflight(req.headers)
  const allowed = 'access-control-allow-origin' in headers
  ctx.trace?.event('cors', { preflight: true, origin: req.headers.origin, allowed })
  if (!allowed) {
    steps.corsLog.debug(
      { origin: req.headers.origin },
      'preflight from an origin that is not allowed',
    )
  }
  return send(ctx, { status: 204 }, { policy: 'preflight' }, headers)
}

/** MCP 2025-06-18, Transports: Origin validated here, as the backend sees only its own Host. */
function checkOrigin(steps: Steps, ctx: RequestContext, rule: CompiledRule): Answered | undefined {
  const { headers } = ctx.req
  const verdict = rule.origin?.check(headers)
  if (!verdict || verdict.ok) return undefined
  ctx.trace?.event('cors', { origin: headers.origin, host: headers.host, allowed: false })
  steps.corsLog.debug(
    { origin: headers.origin, host: headers.host, code: verdict.code },
    'origin validation refused the request',
  )
  return send(ctx, errorResponse(verdict.code, verdict.description), {
    policy: 'origin_denied',
  })
}

/** What the policies see of the request (the OAuth endpoints also read the body). */
function localRequest(ctx: RequestContext): LocalRequest & { trace?: RequestTrace | undefined } {
  const { req, res } = ctx
  return {
    method: ctx.method,
    path: ctx.path,
    query: ctx.query,
    remoteAddress: req.socket.remoteAddress,
    headers: req.headers,
    get headersDistinct() {
      return req.headersDistinct
    },
    body: (limit = BODY_LIMIT) => readBody(req, res, limit),
    trace: ctx.trace,
  }
}

/**
 * The MCP OAuth endpoints live under /.well-known/ (RFC 8615), and in broker mode under
 * <issuer>/oauth/: a policy that serves the path answers it. A `/.well-known/` below the root
 * (`/mcp/.well-known/openid-configuration`) goes there too: the policy answers 404 for the
 * metadata it does not have there (auth/oauth-endpoints/endpoints.ts says why).
 */
async function serveOAuth(
  ctx: RequestContext,
  rule: CompiledRule,
  local: LocalRequest,
): Promise<Answered | undefined> {
  if (!ctx.path.includes('/.well-known/') && !ctx.path.includes('/oauth/')) return undefined
  ctx.task.stage('mcp_oauth')
  for (const policy of rule.policies) {
    const answer = await policy.serveOAuth(local)
    if (answer) {
      ctx.trace?.event('mcp_oauth', { policy: policy.name, status: answer.status })
      return send(ctx, answer, { policy: 'oauth_endpoint' })
    }
  }
  return undefined
}

/** Runs every policy's authentication and authorization, then the MCP-aware stage. */
async function authenticate(
  steps: Steps,
  ctx: RequestContext,
  rule: CompiledRule,
): Promise<Answered> {
  const local = localRequest(ctx)
  const served = await serveOAuth(ctx, rule, local)
  if (served) return served
  ctx.task.stage('auth')
  const admitted: Admitted = { authenticated: false, claims: undefined, requestHeaders: undefined }
  for (const policy of rule.policies) {
    const result = await policy.authenticate(local)
    if (!result.ok) {
      const denyCors = rule.cors?.response(ctx.req.headers, ['WWW-Authenticate']) ?? {}
      const outcome: RequestOutcome =
        result.reason === 'rules'
          ? { policy: 'forbidden', authFailure: 'rules' }
          : { policy: 'unauthenticated', authFailure: result.reason }
      return send(ctx, result.response, outcome, denyCors)
    }
    if (result.claims) {
      admitted.authenticated = true
      admitted.claims = result.claims
    }
    if (result.requestHeaders) {
      admitted.requestHeaders ??= { set: {}, remove: [] }
      admitted.requestHeaders.remove.push(...result.requestHeaders.remove)
      Object.assign(admitted.requestHeaders.set, result.requestHeaders.set)
    }
  }
  if (!rule.mcp) return forwardTo(steps, ctx, rule, admitted, ALLOWED)
  return inspectMcp(steps, ctx, rule, rule.mcp, local, admitted)
}

/** MCP-aware policy (docs/auth.md): per-tool authorization and rate limits on the JSON-RPC body. */
async function inspectMcp(
  steps: Steps,
  ctx: RequestContext,
  rule: CompiledRule,
  mcp: NonNullable<CompiledRule['mcp']>,
  local: LocalRequest,
  admitted: Admitted,
): Promise<Answered> {
  ctx.task.stage('mcp_policy')
  const verdict = await mcp.inspect(local, admitted.claims)
  if ('response' in verdict) {
    const exposed = verdict.expose && rule.cors?.response(ctx.req.headers, verdict.expose)
    return send(ctx, verdict.response, { policy: verdict.outcome }, exposed || ctx.cors)
  }
  return forwardTo(steps, ctx, rule, admitted, ALLOWED, verdict.forward)
}

/**
 * The session step of a modern request (2026-07-28 and later): none. That revision has no
 * sessions (Streamable HTTP §Earlier Streamable HTTP Revisions: "An `Mcp-Session-Id` header on a
 * request: ignore it, and do not mint or echo session IDs"), so nothing is checked or bound, and
 * the header is not forwarded ({@link withoutSession}): a dual-era backend never sees another
 * user's 2025 session id on a request the session binding did not judge.
 */
const MODERN_GATE = { ok: true, onResponseHead: async () => {} } as const

/** The request header changes of a modern request: the policies', and no `Mcp-Session-Id`. */
function withoutSession(
  mcp: Record<string, string> | undefined,
  auth: HeaderChanges | undefined,
): HeaderChanges {
  return {
    set: { ...auth?.set, ...mcp },
    remove: [...(auth?.remove ?? []), 'mcp-session-id'],
  }
}

/**
 * A `subscriptions/listen` on a route that does not read bodies, told by its headers (MCP
 * 2026-07-28 Streamable HTTP §Standard Request Headers: `Mcp-Method` mirrors `method`; the
 * backend, which reads the body, rejects a header that lies). A lie gains a connection of its own
 * within `limits.maxListenStreams`, not a way past a policy.
 */
function isListenByHeader(req: IncomingMessage): boolean {
  return req.method === 'POST' && req.headers['mcp-method'] === 'subscriptions/listen'
}

/** Binds the MCP session to its user, then forwards to the backend and streams its answer. */
async function forwardTo(
  steps: Steps,
  ctx: RequestContext,
  rule: CompiledRule,
  admitted: Admitted,
  outcome: RequestOutcome,
  mcp?: McpForward,
): Promise<Answered> {
  const modern = headerEra(ctx.req.headers) === 'modern'
  const gate = modern
    ? MODERN_GATE
    : await sessionGate({
        // A broker policy whose store persists holds its routes' bindings (they survive a restart).
        sessions: rule.policies.find((p) => p.sessions)?.sessions ?? steps.deps.sessions,
        backend: rule.backend,
        method: ctx.method,
        headers: ctx.req.headers,
        claims: admitted.claims,
        trace: ctx.trace,
        log: steps.log,
      })
  if (!gate.ok) return send(ctx, gate.response, outcome)
  const requestHeaders = modern
    ? withoutSession(mcp?.requestHeaders, admitted.requestHeaders)
    : mcp?.requestHeaders
      ? {
          set: { ...admitted.requestHeaders?.set, ...mcp.requestHeaders },
          remove: admitted.requestHeaders?.remove ?? [],
        }
      : admitted.requestHeaders
  const result = await forward({
    req: ctx.req,
    res: ctx.res,
    backendName: rule.backend,
    upstream: rule.upstream,
    pathAndQuery: ctx.path + ctx.query,
    responseHeaders: mcp?.responseHeaders ? { ...ctx.cors, ...mcp.responseHeaders } : ctx.cors,
    stripAuthorization: admitted.authenticated,
    requestHeaders,
    listen: mcp ? mcp.listen === true : modern && isListenByHeader(ctx.req),
    requestBody: mcp?.body,
    filterResponse: mcp?.filterResponse,
    onResponseHead: gate.onResponseHead,
    log: steps.httpLog,
    trace: ctx.trace,
    task: ctx.task,
  })
  if (result.kind === 'local') return send(ctx, fromRequestError(result.error), outcome)
  return { status: result.status, outcome }
}
