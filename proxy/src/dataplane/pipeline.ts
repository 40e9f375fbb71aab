/**
 * The request pipeline of one gateway: request target → route → CORS preflight → Origin check →
 * MCP OAuth endpoints → authentication and authorization → MCP session binding → forward. It reads only the compiled
 * snapshot (`GatewayRuntime`, runtime.ts), never raw configuration. Each request travels as one
 * {@link RequestContext}.
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
import type { McpForward } from '../mcp/route-policy.js'
import type { Logging } from '../telemetry/logging.js'
import type { RequestTask, TaskRegistry } from '../telemetry/tasks.js'
import type { Telemetry } from '../telemetry/telemetry.js'
import type { RequestTrace, TraceBus } from '../telemetry/trace-bus.js'
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
  /** Metrics, access log and OpenTelemetry spans (issue #14); absent: none of them. */
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
  const log = deps.logging.logger('proxy::dataplane')
  const httpLog = deps.logging.logger('proxy::httpproxy')
  const corsLog = deps.logging.logger('proxy::cors')
  const { traceBus, tasks } = deps

  return async function handle(req, res, connectionId) {
    const gw = runtime()
    const method = req.method ?? 'GET'
    const url = req.url ?? '/'
    const parsed = parseTarget(url)
    const path = parsed.ok ? parsed.target.path : url
    const trace = deps.telemetry
      ? deps.telemetry.observe(traceBus.start(path), req, gw.name, path)
      : traceBus.start(path)
    const task = tasks.beginRequest(gw.name, connectionId, method, path)
    const started = performance.now()
    let status = 0
    // Redacted by the trace bus, like every event's data.
    trace?.event('request_started', { method, path, gateway: gw.name, headers: req.headers })
    try {
      const { path: normal, query } = checkedTarget(req, method, parsed)
      const ctx: RequestContext = {
        gw,
        req,
        res,
        method,
        path: normal,
        query,
        trace,
        task,
        cors: {},
      }
      status = await route(ctx)
    } catch (err) {
      status = answerError(res, err, path)
    } finally {
      task.end()
      trace?.event('response', { status })
      trace?.finish({ status, durationMs: Math.round((performance.now() - started) * 1000) / 1000 })
      if (httpLog.isLevelEnabled('debug')) {
        httpLog.debug({ method, path, status, ms: performance.now() - started }, 'request')
      }
    }
  }

  function answerError(res: ServerResponse, err: unknown, path: string): number {
    if (err instanceof RequestError) {
      sendLocal(res, fromRequestError(err), {})
      return err.status
    }
    log.error({ err: (err as Error).message, path }, 'request failed')
    const internal = new RequestError('GW_ERR_INTERNAL', 'the gateway failed to handle the request')
    sendLocal(res, fromRequestError(internal), {})
    return 500
  }

  function send(ctx: RequestContext, local: LocalResponse, headers = ctx.cors): number {
    sendLocal(ctx.res, local, headers)
    return local.status
  }

  async function route(ctx: RequestContext): Promise<number> {
    const match = ctx.gw.router.match(ctx.path)
    if (!match) {
      ctx.trace?.event('route_selected', { matched: false })
      const description = `no route matches ${ctx.method} ${ctx.path} on gateway "${ctx.gw.name}"`
      return send(ctx, fromRequestError(new RequestError('GW_ERR_NO_ROUTE', description)))
    }
    const rule = match.entry.target
    ctx.trace?.event('route_selected', {
      route: rule.route,
      rule: rule.rule,
      match: { type: match.entry.type, value: match.entry.value },
    })
    ctx.trace?.event('policies_applied', {
      policies: rule.policies.map((p) => p.name),
      cors: rule.cors !== undefined,
    })
    // Fetch standard: a preflight carries no credentials, so it is answered before auth runs.
    const preflight = rule.cors?.isPreflight(ctx.method, ctx.req.headers) ?? false
    if (preflight && rule.cors) {
      ctx.task.stage('cors')
      return answerPreflight(ctx, rule.cors)
    }
    ctx.cors = rule.cors?.response(ctx.req.headers) ?? {}
    const refused = checkOrigin(ctx, rule)
    if (refused !== undefined) return refused
    if (rule.policies.length === 0)
      return forwardTo(ctx, rule, {
        authenticated: false,
        claims: undefined,
        requestHeaders: undefined,
      })
    return authenticate(ctx, rule)
  }

  function answerPreflight(ctx: RequestContext, cors: Cors): number {
    const { req } = ctx
    const headers = cors.preflight(req.headers)
    const allowed = 'access-control-allow-origin' in headers
    ctx.trace?.event('cors', { preflight: true, origin: req.headers.origin, allowed })
    if (!allowed)
      corsLog.debug({ origin: req.headers.origin }, 'preflight from an origin that is not allowed')
    return send(ctx, { status: 204 }, headers)
  }

  /** MCP 2025-06-18, Transports: Origin validated here, as the backend sees only its own Host. */
  function checkOrigin(ctx: RequestContext, rule: CompiledRule): number | undefined {
    const { headers } = ctx.req
    const verdict = rule.origin?.check(headers)
    if (!verdict || verdict.ok) return undefined
    ctx.trace?.event('cors', { origin: headers.origin, host: headers.host, allowed: false })
    corsLog.debug(
      { origin: headers.origin, host: headers.host, code: verdict.code },
      'origin validation refused the request',
    )
    return send(ctx, errorResponse(verdict.code, verdict.description))
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

  async function authenticate(ctx: RequestContext, rule: CompiledRule): Promise<number> {
    const local = localRequest(ctx)
    // The MCP OAuth endpoints live under /.well-known/ (RFC 8615), and in broker mode under
    // <issuer>/oauth/ (issue #22): skip the lookup otherwise.
    if (ctx.path.startsWith('/.well-known/') || ctx.path.includes('/oauth/')) {
      ctx.task.stage('mcp_oauth')
      for (const policy of rule.policies) {
        const answer = await policy.serveOAuth(local)
        if (answer) {
          ctx.trace?.event('mcp_oauth', { policy: policy.name, status: answer.status })
          return send(ctx, answer)
        }
      }
    }
    ctx.task.stage('auth')
    const admitted: Admitted = {
      authenticated: false,
      claims: undefined,
      requestHeaders: undefined,
    }
    for (const policy of rule.policies) {
      const result = await policy.authenticate(local)
      if (!result.ok) {
        const denyCors = rule.cors?.response(ctx.req.headers, ['WWW-Authenticate']) ?? {}
        return send(ctx, result.response, denyCors)
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
    if (!rule.mcp) return forwardTo(ctx, rule, admitted)
    // MCP-aware policy (issue #14): per-tool authorization and rate limits on the JSON-RPC body.
    ctx.task.stage('mcp_policy')
    const verdict = await rule.mcp.inspect(local, admitted.claims)
    if ('response' in verdict) {
      const exposed = verdict.expose && rule.cors?.response(ctx.req.headers, verdict.expose)
      return send(ctx, verdict.response, exposed || ctx.cors)
    }
    return forwardTo(ctx, rule, admitted, verdict.forward)
  }

  async function forwardTo(
    ctx: RequestContext,
    rule: CompiledRule,
    admitted: Admitted,
    mcp?: McpForward,
  ): Promise<number> {
    const gate = await sessionGate({
      sessions: deps.sessions,
      backend: rule.backend,
      method: ctx.method,
      headers: ctx.req.headers,
      claims: admitted.claims,
      trace: ctx.trace,
      log,
    })
    if (!gate.ok) return send(ctx, gate.response)
    const result = await forward({
      req: ctx.req,
      res: ctx.res,
      backendName: rule.backend,
      upstream: rule.upstream,
      pathAndQuery: ctx.path + ctx.query,
      responseHeaders: mcp?.responseHeaders ? { ...ctx.cors, ...mcp.responseHeaders } : ctx.cors,
      stripAuthorization: admitted.authenticated,
      requestHeaders: mcp?.requestHeaders
        ? {
            set: { ...admitted.requestHeaders?.set, ...mcp.requestHeaders },
            remove: admitted.requestHeaders?.remove ?? [],
          }
        : admitted.requestHeaders,
      requestBody: mcp?.body,
      filterResponse: mcp?.filterResponse,
      onResponseHead: gate.onResponseHead,
      log: httpLog as Logger,
      trace: ctx.trace,
      task: ctx.task,
    })
    if (result.kind === 'local') return send(ctx, fromRequestError(result.error))
    return result.status
  }
}
